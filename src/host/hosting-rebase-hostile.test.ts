// A host set of three: its primary is killed silently, and one of its two backups is
// hostile. It hosts nothing (as the hostile nodes of the 1,000-peer kit: they answer pings, so
// host sets take them in) and either says nothing or answers every claim with a refusal,
// bare or naming a newer certificate (forged, the claim's own again, or granted by its own
// key and one more), or naming a granted epoch to cover (made up).
// The honest backup alone is no majority of the set, so only a rebase (a certificate by a
// new set alone, once no majority of the old one answered for rebaseMs) gives the region a
// primary again. A refusal is an answer: before, the refusing member kept the survivor from
// ever rebasing (claim-round.ts `alive` has why that may be ignored), and so did one whose
// refusals named a certificate (region-claimant.ts `onGrant`: only one the claimant takes, newer
// than its claim's, is news; `noNews`: the round may end before the check). Likely, not traced,
// what kept region 2,1 of sybil_1k (seed 1, with FRESH_RANK) without a primary for 158 s.
import { describe, expect, it } from 'vitest';
import { every } from '../core/clock';
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { signGrant, type EpochCert } from '../region/epoch-cert';
import { RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import { HostSim, simKeyHash, type SimPeer } from '../testing/host-sim';
import { HOST_DEFAULTS } from './host-options';

const R: RegionCoord = { rx: 3, rz: 1 };
const NAME = regionName(R);
/** Kill to an edit confirmed at a fresh subscriber: the rebase's wait plus the claims around it. */
const BOUND_MS = HOST_DEFAULTS.rebaseMs + 15_000;

/**
 * How the hostile backup answers a claim: not at all, a bare refusal, or a refusal naming a
 * "newer certificate", as a refusal "behind eN" of an honest host names the one it holds:
 * the claim's own with its epoch raised (a forgery: no grant in it verifies), the claim's
 * own again (every grant verifies, nothing newer), or one of the next epoch over its own key
 * and a key that is no node (every grant verifies; anchored nowhere). Or a refusal naming a
 * granted epoch the claim must cover, made up: two ids no node holds ('forged-pend'), or the
 * hostile backup and a second live node of the attacker's, which names it too when asked
 * ('backed-pend': the epoch after the claim's certificate, learnt once claims go past it).
 */
type Hostility = 'silent' | 'refuses' | 'forged-cert' | 'replayed-cert' | 'minted-cert' | 'forged-pend' | 'backed-pend';

/** The hostile backup: its host stopped, every CLAIM answered as `how` says (a refusal promising that epoch); `partner`: the attacker's other live node ('backed-pend'). */
function hostile(sim: HostSim, p: SimPeer, how: Hostility, partner?: SimPeer): { refusals: number } {
  p.host.stop();
  const out = { refusals: 0 };
  // Its own key and one more that is no node: a newer certificate whose every grant verifies, over the two.
  const keys = [sim.keyring.signer(p.dht.selfId), sim.keyring.signer(randomId(seededRandom(sim.seed * 31 + 7)))];
  const minted = async (key: NodeId, known: EpochCert): Promise<EpochCert> => {
    const hosts = keys.map((k) => k.id);
    const terms = { e: known.e + 1, primary: p.dht.selfId, hosts, prev: { e: known.e, hosts } };
    return { ...terms, grants: await Promise.all(keys.map((k) => signGrant(k, key, terms))) };
  };
  if (how !== 'silent') {
    p.wire.replicas.events.on('frame', async ({ from, msg }) => {
      if (msg.t !== 'CLAIM') return;
      out.refusals++;
      if (how === 'minted-cert' && msg.known) {
        const cert = await minted(await new RegionKeys(sim.world, simKeyHash).key(msg), msg.known);
        return p.wire.replicas.send(from, { t: 'GRANT', rx: msg.rx, rz: msg.rz, e: msg.e, ok: false, promised: msg.e, reqs: [], cert });
      }
      // Forged (no grant verifies), or the claim's own certificate named again (every grant verifies).
      const cert = how === 'forged-cert' && msg.known ? { cert: { ...msg.known, e: msg.known.e + 1 } } : how === 'replayed-cert' && msg.known ? { cert: msg.known } : {};
      // A granted epoch to cover, made up: the claim's own epoch over two ids no node holds.
      // Or the epoch after the claim's certificate over the attacker's two live nodes, named alike by both.
      const pend = how === 'forged-pend' ? { pend: { e: msg.e, hosts: [new Uint8Array(20).fill(0xa5), new Uint8Array(20).fill(0x5a)] } } : how === 'backed-pend' && msg.known && partner ? { pend: { e: msg.known.e + 1, hosts: [p.dht.selfId, partner.dht.selfId] } } : {};
      p.wire.replicas.send(from, { t: 'GRANT', rx: msg.rx, rz: msg.rz, e: msg.e, ok: false, promised: msg.e, reqs: [], ...cert, ...pend });
    });
  }
  return out;
}

/** Region R hosted by three and edited once; one of its backups (`bad`) hostile from now on. */
async function hostedWithHostile(seed: number, how: Hostility) {
  const sim = new HostSim({ seed });
  await sim.grow(12);
  const player = await sim.editedRegion(R);
  const primary = sim.primaryOf(R)!;
  const backups = sim.backupsOf(R);
  expect(backups.length).toBe(2);
  const [bad, honest] = backups as [SimPeer, SimPeer];
  // 'backed-pend': the attacker's second live node is the one farthest from the key, no near id.
  const key = await new RegionKeys(sim.world, simKeyHash).key(R);
  const partner = how === 'backed-pend' ? sortByDistance(sim.live().filter((p) => p !== player && p !== primary && !backups.includes(p)), (p) => p.dht.selfId, key).at(-1) : undefined;
  return { sim, player, primary, bad, honest, partner, h: hostile(sim, bad, how, partner), partnerH: partner ? hostile(sim, partner, how, bad) : undefined };
}

async function run(seed: number, how: Hostility) {
  const { sim, player, primary, bad, honest: survivor, partner, h, partnerH } = await hostedWithHostile(seed, how);
  sim.kill(primary.hex);
  const killedAt = sim.clock.now();
  // A subscriber that held nothing of the region, as the kit's fresh subscriber.
  const fresh = sim.live().find((p) => p !== bad && p !== survivor && p !== player && p !== partner && !p.host.regionState(R))!;
  await sim.settle(fresh.client.subscribe(R), 60_000).catch(() => {});
  let confirmedAt = -1;
  for (let i = 0; confirmedAt < 0 && sim.clock.now() - killedAt < BOUND_MS + 10_000; i++) {
    const x = R.rx * 64 + 4 + (i % 50), z = R.rz * 64 + 9;
    const ok = await sim.settle(fresh.client.submit(x, 121, z, 1, { x, y: 121, z: z + 3 }), 8000).then(() => true, () => false);
    if (ok) confirmedAt = sim.clock.now();
    else await sim.run(1000);
  }
  const out = { recoverMs: confirmedAt < 0 ? -1 : confirmedAt - killedAt, refusals: h.refusals, partnerRefusals: partnerH?.refusals ?? 0, primaryAtEnd: sim.primaryOf(NAME), bad, survivor, doubles: sim.doublePrimaries() };
  sim.stopAll();
  return out;
}

describe('a rebase over a set whose primary died and one of whose backups is hostile (simulated)', () => {
  const said: Record<Hostility, string> = { silent: 'says nothing', refuses: 'refuses every claim', 'forged-cert': 'refuses every claim naming a forged newer certificate', 'replayed-cert': "refuses every claim naming the claim's own certificate", 'minted-cert': 'refuses every claim naming a newer certificate over its own two keys (every grant verifies)', 'forged-pend': 'refuses every claim naming a granted epoch of two ids no node holds', 'backed-pend': 'and a live node of the attacker\'s far from the key refuse every claim naming a granted epoch over the two' };
  const check = async (how: Hostility) => {
    const r = await run(3, how);
    console.log(`kill to an edit confirmed at a fresh subscriber: ${r.recoverMs} ms; refusals sent by the hostile backup: ${r.refusals}`);
    if (how !== 'silent') expect(r.refusals, 'the hostile backup was asked and refused').toBeGreaterThan(0);
    if (how === 'backed-pend') expect(r.partnerRefusals, 'the far node, named in the granted epoch, was asked and refused').toBeGreaterThan(0);
    expect(r.recoverMs, 'an edit confirmed at a fresh subscriber').toBeGreaterThanOrEqual(0);
    expect(r.recoverMs).toBeLessThan(BOUND_MS);
    expect(r.primaryAtEnd && r.primaryAtEnd !== r.bad).toBe(true);
    expect(r.doubles).toEqual([]);
  };
  // A granted epoch a refusal names is no certificate (no signature but its sender's vouches
  // for it): it counts only where another answer names it too (claim-round.ts `backed`), and a
  // set a covering claim heard no majority of is not learnt again for a while (election.ts
  // `unheardLately`). Before, the refuser counted as a live host of the previous set and the
  // survivor never rebased (no edit confirmed in 35 s), every claim covering the made-up epoch.
  // Nor where a second live id of the attacker's, far from the key, named in that epoch's set
  // and so asked by the next claim, names it too ('backed-pend'): the other answer must come
  // from among the claimant's 3 nearest, as must the refuser's own. Before, the two backed
  // each other and the survivor never rebased (no edit confirmed in 35 s).
  for (const how of ['silent', 'refuses', 'forged-cert', 'replayed-cert', 'minted-cert', 'forged-pend', 'backed-pend'] as const) {
    it(`the honest survivor gets the region a primary again; the hostile backup ${said[how]}`, () => check(how));
  }
});

// The same path must not depose a live primary: its honest backup, made to claim again and
// again past rebaseMs (as one that takes a slow primary for dead would), hears the primary's
// own refusals, which count whatever they name, and the hostile backup's count for nothing.
// The primary may move to new epochs of its own meanwhile (its set's fill drops the hostile
// backup, which acks nothing, as quiet), never to another primary's.
describe('a live primary with a hostile backup that refuses every claim (simulated)', () => {
  it('is not deposed by its honest backup claiming past rebaseMs', async () => {
    const { sim, player, primary, honest, h } = await hostedWithHostile(3, 'refuses');
    for (let t = 0; t < HOST_DEFAULTS.rebaseMs + 5000; t += 1000) {
      void honest.host.regionState(R)!.claim(0, true);
      await sim.run(1000);
    }
    expect(h.refusals).toBeGreaterThan(0);
    expect(sim.primariesOf(R)).toEqual([primary]);
    const held = primary.host.regionState(R)!;
    expect(idToHex(held.cert!.primary)).toBe(primary.hex);
    const x = R.rx * 64 + 6, z = R.rz * 64 + 6;
    const stamp = await sim.settle(player.client.submit(x, 121, z, 1, { x, y: 121, z: z + 3 }), 10_000);
    expect(stamp.e).toBe(held.epoch);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

// The kit's hostile node nearest a key hosts nothing and acks nothing, while its DHT answers
// pings. Given time, the primary's set fill drops it as quiet and takes the next linked node,
// so when the primary then dies the two honest hosts left are a majority of its set and fail
// over in under a second, no rebase. Before, the fill took the quiet node as its own
// replacement (the nearest linked node, and it answers pings): it never left the set, and
// every such failover waited rebaseMs (the 1,000-peer kit: 12.2 to 42.5 s at every region
// with 1 hostile node among its 3 nearest).
describe('a hostile backup that hosts nothing (simulated)', () => {
  it('is out of the set when the primary dies: the honest two fail over without a rebase', async () => {
    const { sim, primary, bad } = await hostedWithHostile(1, 'silent');
    await sim.run(8000);
    const cert = primary.host.regionState(R)!.cert!;
    expect(cert.hosts.map(idToHex), 'the hostile node left the set').not.toContain(bad.hex);
    sim.kill(primary.hex);
    const killedAt = sim.clock.now();
    await sim.clock.runUntil(() => sim.primariesOf(R).some((p) => p !== bad), 20_000);
    const took = sim.clock.now() - killedAt;
    const now = sim.primaryOf(R);
    console.log(`kill to an honest primary: ${took} ms, e${cert.e} -> e${now?.host.regionState(R)?.epoch}`);
    expect(!!now && now !== bad, 'an honest primary').toBe(true);
    expect(took).toBeLessThan(2000);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

// The same hostile node, now sending the region's frames (the kit's rows: here a CLAIM under
// the region's real certificate, replayed, every 500 ms) while it still acks nothing. A frame
// of the region ended its quiet note, so each re-check named it a backup again and the fill
// dropped it again backupQuietMs later: two epochs every RECHECK_MS, the node in the set for
// a third of the time, and a primary dying then waits rebaseMs. Its comeback now needs
// evidence that it hosts (an ACK or SYNC_REQ) once a comeback on a frame alone came to
// nothing (quiet-hosts.ts).
describe('a hostile backup that hosts nothing but sends frames of the region (simulated)', () => {
  it('is not taken back into the set by its frames, an epoch each', async () => {
    const { sim, primary, bad } = await hostedWithHostile(1, 'silent');
    const region = primary.host.regionState(R)!;
    const real = region.cert!;
    const stopRows = every(sim.clock, 500, () => bad.wire.replicas.send(primary.dht.selfId, { t: 'CLAIM', rx: R.rx, rz: R.rz, e: real.e, hosts: real.hosts, known: real }));
    await sim.run(8000);
    const from = region.epoch;
    let inSet = 0, samples = 0;
    for (let t = 0; t < 60_000; t += 100) {
      await sim.run(100);
      samples++;
      if (region.hosts.some((h) => idToHex(h) === bad.hex)) inSet++;
    }
    stopRows();
    const moved = region.epoch - from;
    console.log(`over 60 s: the hostile node in the set ${((100 * inSet) / samples).toFixed(1)}% of the time, epochs e${from} -> e${region.epoch}`);
    expect(sim.primaryOf(R), 'the primary kept the region').toBe(primary);
    expect(inSet / samples, 'share of the time the hostile node was in the set').toBeLessThan(0.08);
    expect(moved, 'epochs the region moved').toBeLessThanOrEqual(8);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

// A hostile backup that acks every beat (so the fill keeps it: the kit's member) and withholds
// its grant when the primary dies. The honest survivor is no majority of the set without it:
// one crash and one withheld grant are two faults, more than a set of three outlives, so only
// the rebase after rebaseMs gives the region a primary (docs/TRUST.md, open gaps). It comes
// when rebaseMs allows: before, the claims' backoff after five failed rounds put it off by up
// to 12 s, and the spare that granted the survivor's first claim claimed itself when its own
// deferral ran out, at the moment of the rebase, and took the grant the rebase needed (kill
// to an honest primary 21.1, 17.3 and 19.2 s on seeds 1-3).
describe('a hostile backup that acks every beat and withholds its grant (simulated)', () => {
  it('holds the region off no longer than the rebase takes', async () => {
    const { sim, primary, bad } = await hostedWithHostile(1, 'silent');
    bad.wire.replicas.events.on('frame', ({ from, msg }) => {
      if (msg.t === 'HEARTBEAT' && msg.rx === R.rx && msg.rz === R.rz) bad.wire.replicas.send(from, { t: 'ACK', rx: R.rx, rz: R.rz, e: msg.e, to: msg.s, b: msg.b });
    });
    await sim.run(8000);
    const cert = primary.host.regionState(R)!.cert!;
    expect(cert.hosts.map(idToHex), 'acking, the hostile node stays in the set').toContain(bad.hex);
    sim.kill(primary.hex);
    const killedAt = sim.clock.now();
    await sim.clock.runUntil(() => sim.primariesOf(R).some((p) => p !== bad), 30_000);
    const took = sim.clock.now() - killedAt;
    console.log(`kill to an honest primary: ${took} ms (rebaseMs ${HOST_DEFAULTS.rebaseMs})`);
    expect(sim.primaryOf(R) !== undefined && sim.primaryOf(R) !== bad, 'an honest primary').toBe(true);
    expect(took).toBeLessThan(HOST_DEFAULTS.rebaseMs + 4000);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
