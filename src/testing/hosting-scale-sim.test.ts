import { describe, expect, it } from 'vitest';
import { describeFigures, runHostingScale } from './hosting-scale-sim';
import { DHT_DEFAULTS } from '../dht/dht-options';
import { SIM_TIMEOUT_MS } from './sim-timeout';

// The hosting simulation (issue 12 item 1) at CI sizes: each test asserts at a size that runs
// in tens of seconds of CPU what the full sizes show (`npm run bench -- hosting_scale`:
// random walks of 100 and 200 peers, the crowd of 200, and 200 hosting peers with 200
// play-only players; docs/BENCHMARKS.md "Hosting at scale"). Every bound is per player or
// per peer, and the walking area grows with the players (about two per region), so what a
// player meets around it is the same at any size; each test says why its size can still fail.

// Upload bounds of the play-only test (kB/s, HostWires' bytes): the figures measured at 200
// hosting peers and 400 players with room (docs/BENCHMARKS.md "Hosting at scale: play-only
// peers"); at 32 + 32 the same bounds hold with more room.
const HOST_KBPS_P50 = 32;
const HOST_KBPS_MAX = 128;
const PLAY_ONLY_KBPS_MAX = 4;

// A random walk of 60 peers, each a player walking at random (about two per region), editing
// every ~5 s, 50 ms one-way latency, 8 s measured after 10 s of warm-up (not 15: every
// figure is a per-player rate, share or percentile, and 8 s gives 870 edit samples). 60 peers, not
// fewer: at 40 the busiest peer held 23 unpinned links, far under the budget of 32, so that
// bound could hardly fail; at 60 the busiest holds 47 links. The bounds are today's code with
// room (docs/BENCHMARKS.md "Hosting at scale" has the figures at 100 and 200 peers).
describe('hosting simulation at scale (issue 12 item 1)', () => {
  it('60 peers, 60 walking players: players see the others within the interest radius; figures bounded', async () => {
    const f = await runHostingScale({ peers: 60, players: 60, seed: 3, measureMs: 8000, warmupMs: 10_000, editEveryMs: 5000 });
    console.log(describeFigures(f));
    console.log(JSON.stringify({ client: f.clientStats, host: f.hostStats, unseen: f.unseen.slice(0, 5) }));
    expect(f.visibilityPairs).toBeGreaterThan(500);
    // TODO(issue 12): should be every pair (1). Misses (0.25% of pairs at seed 3) come in the
    // re-attach loop of a subscriber whose link the primary's link budget closes
    // (docs/HOSTING.md "Hosting at scale, measured").
    expect(f.visibility).toBeGreaterThanOrEqual(0.99);
    // Nine regions around a player: at most nine hosts (fewer when one host holds several).
    expect(f.linksPerPlayer.max).toBeLessThanOrEqual(9);
    expect(f.linksPerPlayer.p50).toBeGreaterThanOrEqual(4);
    // The link budget: 32 unpinned links and 64 pinned peers apart (docs/BOUNDS.md; pins stay
    // outside the 32 since session 15), each with one more in flight until the next sweep.
    expect(f.unpinnedLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxLinks + 1);
    expect(f.pinnedLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxPinnedLinks + 1);
    for (const x of [f.hostKbps.p50, f.hostKbps.p99, f.hostKbps.max, f.editVisibleMs.p99, f.remoteHz.p10]) expect(Number.isFinite(x)).toBe(true);
    expect(f.hostKbps.p50).toBeLessThan(32);
    // 46.8 measured (session 13; 512 was the bound when players' lists were not by interest).
    expect(f.hostKbps.max).toBeLessThan(100);
    // Edits: every one confirmed and shown to every player attached to its region.
    expect(f.edits.samples).toBeGreaterThan(100);
    expect(f.edits.notConfirmed).toBe(0);
    expect(f.edits.missing).toBe(0);
    expect(f.editVisibleMs.p50).toBeGreaterThanOrEqual(100); // at least the editor -> primary -> player trip
    expect(f.editVisibleMs.p99).toBeLessThan(600); // 332 measured (session 13, committed); drawn pending 266 (session 14)
    // Drawn pending, a round trip to a backup before the commit (187 at the median, session 14).
    expect(f.editVisibleMs.p50).toBeLessThan(f.editCommittedMs.p50 - 50);
    // MOVE goes at 10 Hz: a player within the radius is seen moving at about that rate.
    expect(f.remoteHz.p50).toBeGreaterThanOrEqual(9);
    expect(f.nearest32Hz.p10).toBeGreaterThanOrEqual(9.5); // 10 measured (session 13)
    expect(f.remoteHz.max).toBeLessThanOrEqual(12);
  }, SIM_TIMEOUT_MS);

  // Play-only peers (read-only DHT nodes that host nothing: dht/read-only-peers.ts): 32
  // hosting peers and 64 players, the other 32 on play-only peers, all walking at random and
  // editing; 16 join at once, 10 s of warm-up (a player is measured from 10 s after it
  // started: position-rates.ts's grace) and 3 s measured. 64 peers in all, more than a
  // hosting peer's 32 unpinned links and its 32 for read-only peers together, so both budgets
  // can bind. Full size (200 + 200, ~3 min of CPU): `npm run bench -- hosting_scale`, sim200_po200_*.
  it('32 hosting peers, 64 players (32 play-only): everyone within the radius seen; links and upload bounded; play-only peers host nothing', async () => {
    const f = await runHostingScale({ peers: 32, players: 64, seed: 1, joinBatch: 16, warmupMs: 10_000, measureMs: 3000 });
    console.log(describeFigures(f));
    console.log(JSON.stringify({ client: f.clientStats, host: f.hostStats, unseen: f.unseen.slice(0, 5) }));
    expect([f.peers, f.players, f.playOnly]).toEqual([32, 64, 32]);
    expect(f.visibilityPairs).toBeGreaterThan(300); // 558 measured (200 + 200: 3,488)
    // >= 0.99 for the reason the 60-peer test above gives (1 measured).
    expect(f.visibility).toBeGreaterThanOrEqual(0.99);
    // Nine regions around a player: at most nine hosts, play-only or not.
    expect(f.linksPerPlayer.max).toBeLessThanOrEqual(9);
    expect(f.playOnlyLinksPerPlayer.max).toBeLessThanOrEqual(9);
    expect(f.playOnlyLinksPerPlayer.p50).toBeGreaterThanOrEqual(4); // 7 measured (200 + 200: 9)
    // Seen moving at about MOVE's 10 Hz (10.0 at p10 measured).
    expect(f.remoteHz.p10).toBeGreaterThanOrEqual(9);
    // The link budget (docs/BOUNDS.md) on a hosting peer: 32 unpinned (read-only peers'
    // links apart, at most 32 more) and 64 pinned, each with one more in flight (33 and 51
    // measured). A play-only peer's links are its own budget's and its pins (22 measured;
    // 39 at 200 + 200).
    expect(f.unpinnedLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxLinks + DHT_DEFAULTS.maxReadOnlyLinks + 1);
    expect(f.pinnedLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxPinnedLinks + 1);
    expect(f.playOnlyDhtLinks.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxLinks + DHT_DEFAULTS.maxPinnedLinks + 1);
    // Play-only peers: in no hosting peer's table, hosting nothing, said so to many peers.
    expect(f.readOnly.inTables).toBe(0);
    expect(f.readOnly.hosting).toBe(0);
    expect(f.readOnly.marked).toBeGreaterThan(200); // 1,026 measured
    // Upload: the hosting peers carry the play-only players too (p50 12.0, max 52.5 kB/s
    // measured; 10.6 and 71.0 at 200 + 200); a play-only peer sends its MOVEs and edits only (0.8).
    for (const x of [f.hostKbps.p50, f.hostKbps.max, f.playOnlyKbps.max]) expect(Number.isFinite(x)).toBe(true);
    expect(f.hostKbps.p50).toBeLessThan(HOST_KBPS_P50);
    expect(f.hostKbps.max).toBeLessThan(HOST_KBPS_MAX);
    expect(f.playOnlyKbps.max).toBeLessThan(PLAY_ONLY_KBPS_MAX);
    // Edits: every one confirmed and shown to every player attached to its region.
    expect(f.edits.samples).toBeGreaterThan(150); // 289 measured (200 + 200: 1,778)
    expect(f.edits.notConfirmed).toBe(0);
    expect(f.edits.missing).toBe(0);
  }, SIM_TIMEOUT_MS);
});
