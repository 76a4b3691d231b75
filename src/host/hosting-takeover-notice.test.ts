// One live node of the attacker's inside a region's host set of three (the kit's `member`:
// a backup that acks every beat, so the set keeps it) tells the region's subscriber that it
// took the region over: NOT_PRIMARY naming itself primary of the next epoch, a takeover
// notice (region-client.ts). A notice is no certificate, only a hint of one, and the
// subscriber that follows it leaves its live primary and asks the member, which never
// answers. Sent every 400 ms, each notice that came while the subscriber looked sent it back
// to the member: attached 2% of 20 s, 4 of 20 edits confirmed (seeds 1 and 2). With one
// notice and then redirects between the member and a live key of the attacker's far from the
// key (each naming the other as primary), the subscriber asked the pair for good: attached 2%,
// 0 of 20 confirmed; with one notice and the member, the first backup a subscriber asks,
// answering every SUBSCRIBE "alone" (no certified primary to be had), it waited and asked the
// member again for good: attached 2%, 0 of 20 confirmed. An open gap, pinned (it.fails): the
// limits that held these runs off (a host's notice followed once per attach and not again for
// 60 s once it led elsewhere, at most 8 hints per attach, no backup asked again that said
// "alone") left an honest editor without a confirmed edit for 20 s after a real crash in
// `failover_crash` (docs/TRUST.md Open gaps) and were taken out.
import { describe, expect, it } from 'vitest';
import { every } from '../core/clock';
import { idEquals } from '../core/node-id';
import { regionName, type RegionCoord } from '../region/region-key';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { regionEditStream } from '../testing/region-edit-stream';

const R: RegionCoord = { rx: 2, rz: 3 };
/** How often the member sends its notice. */
const NOTICE_EVERY_MS = 400;
const ATTACK_MS = 20_000;
const EDIT_EVERY_MS = 1000;

/**
 * `redirects`: the member and a live node of the attacker's far from the key answer each
 * SUBSCRIBE of the region with a redirect naming the other (NOT_PRIMARY of the epoch).
 */
async function run(seed: number, redirects = false, alone = false) {
  const sim = new HostSim({ seed });
  await sim.grow(12);
  const player = await sim.editedRegion(R);
  const primary = sim.primaryOf(R)!;
  // The first backup the certificate names: the one a subscriber that looks again asks first.
  const first = primary.host.regionState(R)!.cert!.hosts.find((h) => !idEquals(h, primary.dht.selfId))!;
  const member = (alone ? sim.backupsOf(R).find((p) => idEquals(p.dht.selfId, first)) : sim.backupsOf(R).find((p) => p !== player)) as SimPeer;
  // Play-only: it hosts nothing, so no host set takes it in.
  const rogue = redirects ? await sim.add(undefined, { playOnly: true }) : undefined;
  // The member hosts as a backup does (acks, beats, grants), but answers no subscriber of
  // the region: the attacker's code sends its notices instead.
  const send = member.wire.players.send.bind(member.wire.players);
  member.wire.players.send = (to, m) => ((m.t === 'SNAPSHOT' || m.t === 'NOT_PRIMARY') && regionName(m) === regionName(R) ? false : send(to, m));
  if (rogue) {
    const rogueSend = rogue.wire.players.send.bind(rogue.wire.players);
    rogue.wire.players.send = (to, m) => ((m.t === 'SNAPSHOT' || m.t === 'NOT_PRIMARY') && regionName(m) === regionName(R) ? false : rogueSend(to, m));
    for (const [at, say, other] of [[member, send, rogue], [rogue, rogueSend, member]] as const) {
      at.wire.players.events.on('frame', ({ from, msg }) => {
        if (msg.t !== 'SUBSCRIBE' || regionName(msg) !== regionName(R)) return;
        say(from, { t: 'NOT_PRIMARY', ...R, e: member.host.regionState(R)?.epoch ?? 0, primary: other.dht.selfId });
      });
    }
  }
  if (alone) {
    member.wire.players.events.on('frame', ({ from, msg }) => {
      if (msg.t === 'SUBSCRIBE' && regionName(msg) === regionName(R)) send(from, { t: 'NOT_PRIMARY', ...R, e: member.host.regionState(R)?.epoch ?? 0, alone: true });
    });
  }
  let notices = 0;
  // With redirects, one notice: the redirects keep the subscriber away from then on.
  const stopNotices = every(sim.clock, NOTICE_EVERY_MS, () => {
    if ((redirects || alone) && notices++ > 0) return;
    const e = member.host.regionState(R)?.epoch ?? 0;
    send(player.dht.selfId, { t: 'NOT_PRIMARY', ...R, e: e + 1, primary: member.dht.selfId });
  });
  const { edits, edit } = regionEditStream(player, R);
  const stopEdits = every(sim.clock, EDIT_EVERY_MS, edit);
  let samples = 0, attached = 0;
  const stopSampling = every(sim.clock, 100, () => {
    samples++;
    if (player.client.attachment(R)?.primary === primary.hex) attached++;
  });
  const before = player.client.stats.reattachWhy.takeover;
  await sim.run(ATTACK_MS);
  stopEdits();
  stopNotices();
  stopSampling();
  await sim.run(3000);
  const out = {
    attachedShare: attached / samples,
    takeovers: player.client.stats.reattachWhy.takeover - before,
    confirmed: edits.filter((e) => e.ok === true).length,
    edits: edits.length,
    primaryKept: sim.primaryOf(R) === primary,
  };
  sim.stopAll();
  return out;
}

describe('a member of the host set sending takeover notices to a subscriber', () => {
  it.fails.each([1, 2])('and redirects between it and a rogue: the subscriber still attaches to its primary (seed %i)', async (seed) => {
    const r = await run(seed, true);
    expect(r.primaryKept).toBe(true);
    expect(r.attachedShare).toBeGreaterThan(0.9);
    expect(r.confirmed).toBe(r.edits);
  }, 120_000);

  it.fails.each([1, 2])('and "alone" to each SUBSCRIBE: the subscriber still attaches to its primary (seed %i)', async (seed) => {
    const r = await run(seed, false, true);
    expect(r.primaryKept).toBe(true);
    // One wait of ALONE_RETRY_MS (3 s): the edits made meanwhile fail 'uncertified' (a page
    // keeps them tentative and sends them again); every other one is confirmed.
    expect(r.attachedShare).toBeGreaterThan(0.8);
    expect(r.confirmed).toBeGreaterThanOrEqual(r.edits - 4);
  }, 120_000);

  it.fails.each([1, 2])('keeps the subscriber on its live primary and its edits confirmed (seed %i)', async (seed) => {
    const r = await run(seed);
    expect(r.primaryKept).toBe(true);
    expect(r.attachedShare).toBeGreaterThan(0.9);
    expect(r.takeovers).toBeLessThanOrEqual(2);
    expect(r.confirmed).toBe(r.edits);
  }, 120_000);
});
