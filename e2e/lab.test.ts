// Players in two homes behind real NATs (network namespaces, iptables; bench/lab/README.md):
// one behind a cone NAT, one behind a symmetric NAT, join one world through the relay, link
// through a TURN relay (coturn, credentials the relay minted from their shared secret), see
// each other's avatar and edits and an item A picks up; a headless peer on the internet side links to both;
// then the direct path between A and the headless peer dies, and A closes that link within 3.5 s and dials anew;
// then A's NAT forgets its mappings while A places blocks, and A's links are open after it with every edit
// confirmed and shown at B; last a third player, C, in B's home once its router drops all UDP,
// links through TURN over TCP, attaches to A's region and shows A's last block. With
// credentials coturn refuses as expired, and with no ICE servers at all, the start screen
// says why within 5 s of the tab's identity (what it says then: a tab taken for "WebRTC
// blocked" whose first candidate came late, on a loaded machine, is told again). The lab runs in namespaces of its own (`scripts/lab.sh --world`,
// bench/lab/lab-world.ts), which needs root: elsewhere the test is skipped, with the reason
// in `npm test`'s report.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { LabWorldOutcome, StartSaid } from '../bench/lab/lab-world';
import { judgeChange } from '../bench/lab/lab-cases';

const ROOT = process.getuid?.() === 0;
const NOT_ROOT = 'the lab needs root (network namespaces, iptables, coturn): run `npm test` as root, as CI does';
/**
 * Said within 5 s of the tab's identity being ready (`vp:identity`): from there on the tab
 * joins (relay, dials, the 4 s join deadline of bootstrap/peer.ts) and the time is the
 * product's. The page's boot before it is not counted: e2e/start-screen times a whole start
 * from navigation; here, with six tabs of the lab on a loaded machine, the boot alone took
 * 3.7-4.6 s, and the problem came 4.0 s after the identity in each of four worlds.
 */
const EXPLAINED_WITHIN_MS = 5000;

/**
 * The lab world's own bound: 45-65 s on this machine, quiet or beside helpers at load ~10,
 * before its NAT flush (7-8 s more at load 20-27, and 9-16 s for the UDP-blocked home); at
 * load 27 the world without that home took 142 s, at load 30-60 the whole world 99 s. Past
 * it the world is stopped and the test fails with the steps it passed (lab-world.ts marks each
 * on stderr), so a hang costs this, not the test's whole timeout, and says where it stood.
 */
const LAB_WORLD_MS = 210_000;

function runLabWorld(): Promise<LabWorldOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['scripts/lab.sh', '--world'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const bound = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`scripts/lab.sh --world still running after ${LAB_WORLD_MS} ms, stopped:\n${(out + err).slice(-4000)}`));
    }, LAB_WORLD_MS);
    child.once('exit', (code) => {
      clearTimeout(bound);
      const line = out.split('\n').find((l) => l.startsWith('lab-world '));
      if (code === 0 && line) resolve(JSON.parse(line.slice('lab-world '.length)) as LabWorldOutcome);
      else reject(new Error(`scripts/lab.sh --world exited with ${code}:\n${(out + err).slice(-4000)}`));
    });
  });
}

function saidInTime(what: string, s: StartSaid): void {
  expect(s.ms - s.idMs, `${what}: ${s.said.join(' then ')} said ${Math.round(s.ms)} ms after navigation, identity ready at ${Math.round(s.idMs)} ms`).toBeLessThan(EXPLAINED_WITHIN_MS);
}

describe('the network lab: two homes behind NATs, coturn and the relay on the internet', () => {
  it('cone and symmetric NAT link through TURN and see each other, a UDP-blocked home joins over TURN/TCP; expired credentials and no ICE servers are explained within 5 s', async (ctx) => {
    if (!ROOT) {
      console.warn(`e2e/lab.test.ts SKIPPED: ${NOT_ROOT}`);
      ctx.skip(NOT_ROOT);
    }
    const o = await runLabWorld();
    console.log(`lab world: ${JSON.stringify(o)}`);
    expect(o.joinMs, 'B (symmetric NAT) linked to A (cone NAT)').not.toBeNull();
    // A symmetric NAT leaves no direct path to a cone NAT: the link crosses coturn.
    expect(o.paths.ab && o.paths.ba, 'the link A-B has a selected candidate pair at both ends').toBeTruthy();
    expect([o.paths.ab!.local, o.paths.ab!.remote]).toContain('relay');
    expect([o.paths.ba!.local, o.paths.ba!.remote]).toContain('relay');
    expect(o.paths.aHeadless, 'A linked to the headless peer on the internet side').toBeTruthy();
    expect(o.paths.bHeadless, 'B linked to the headless peer on the internet side').toBeTruthy();
    expect(o.avatars).toEqual({ aSeesB: true, bSeesA: true });
    expect(o.edits.aToB, "A's block shown at B").not.toBeNull();
    expect(o.edits.bToA, "B's block shown at A").not.toBeNull();
    expect(o.edits.aConfirmed && o.edits.bConfirmed, 'both edits confirmed').toBe(true);
    // A free item the hosts spawned in A's region (any of it, not only what A sees from the
    // spawn), walked onto by A: the pickup vote decided across both NATs, A its owner at A and at B.
    expect(o.item, "a free item in A's region").not.toBeNull();
    expect(o.item!.ownerAtA, "the item is A's at A").toBe(o.item!.aSelf);
    expect(o.item!.ownerAtB, "the item is A's at B").toBe(o.item!.aSelf);
    // Last, the direct path between A and the headless peer died (A's router drops UDP to
    // and from it) while A sent over it: the path watch closed the link within 3.5 s (2 s
    // of silence, looked at every 0.5 s). The DHT alone found such a death after its probe's
    // 4 s RPC timeout (4.36 s measured before the watch) or its 15 s heartbeat timeout. Then
    // A dialled it anew (through TURN).
    const death = o.pathDeath;
    expect(death, 'A was linked to the headless peer before its path died').not.toBeNull();
    expect(death!.closed, `A closed its direct link to the headless peer: ${death!.trace.join('; ')}`).not.toBeNull();
    expect(death!.closed!.ms, `A's direct link closed (${death!.closed!.reason}) within 3.5 s of the path's death`).toBeLessThan(3500);
    expect(death!.reopened, `A dialled the headless peer anew: ${death!.trace.join('; ')}`).not.toBeNull();
    // Last, A's NAT forgot every mapping (conntrack flushed in its router) while A placed a
    // block every 500 ms beside B: an edit made after it confirmed, A's links to B and to the
    // headless peer open again (or still: ICE takes the new mapping as a peer-reflexive
    // candidate), every edit confirmed (none left tentative, none refused) and shown at B.
    const flush = o.flush;
    expect(flush, `the NAT flush step ran: ${o.diagnostics.join(' | ')}`).not.toBeNull();
    expect(judgeChange(flush!), `after A's NAT flush: ${flush!.problems.join('; ')}; links ${flush!.trace.join('; ')}`).toEqual({ pass: true, why: expect.stringMatching(/^back in/) });
    expect(flush!.linksBack, `A's links after its NAT flush: ${flush!.trace.join('; ')}`).toEqual({ b: true, headless: true });
    // Last, C in B's home, its router now dropping every UDP packet (a firewall letting TCP
    // only): linked through TURN over TCP (each of its links a relay pair reached over TCP),
    // attached to A's region and showing A's last block. Not to the headless peer: Chromium's
    // checks over TURN/TCP carry a tiebreaker of 0, which node-datachannel's libjuice refuses
    // (bench/lab/README.md), so `headlessLinked` is logged, not judged.
    const c = o.udpBlocked;
    expect(c, `the UDP-blocked home's step ran: ${o.diagnostics.join(' | ')}`).not.toBeNull();
    expect(c!.joinMs, `C (UDP blocked) linked within 30 s; its start screen said ${c!.said.join(', ') || 'nothing'}: ${o.diagnostics.join(' | ')}`).not.toBeNull();
    expect(c!.paths.length, "C's links").toBeGreaterThan(0);
    for (const p of c!.paths) expect(p && { local: p.local, relayProtocol: p.relayProtocol }, `C's link ${JSON.stringify(p)}`).toEqual({ local: 'relay', relayProtocol: 'tcp' });
    expect(c!.attachedMs, `C attached to A's region: ${o.diagnostics.join(' | ')}`).not.toBeNull();
    expect(c!.seesAMs, `C shows A's last block: ${o.diagnostics.join(' | ')}`).not.toBeNull();
    // coturn refused the relay's credentials (minted by a clock two days behind): said as such,
    // from the 401 Chromium reports for TURN's answer to them (net/turn-refusal.ts), not as
    // a TURN server that merely did not carry the link.
    expect(o.expired.kind, `B said ${o.expired.said.join(' then ')}`).toBe('turn-refused');
    saidInTime('expired TURN credentials', o.expired);
    // No STUN, no TURN: host candidates only, nothing reaches across two NATs.
    expect(o.none.kind).toBe('no-direct-path');
    saidInTime('no ICE servers', o.none);
  }, LAB_WORLD_MS + 15_000);
});
