import { describe, expect, it } from 'vitest';
import { describeFigures, runHostingScale } from './hosting-scale-sim';
import { DHT_DEFAULTS } from '../dht/dht-options';
import { SIM_TIMEOUT_MS } from './sim-timeout';
import { MOVE_HZ } from '../region/move-rate';

// The hosting simulation at CI size: one random walk that asserts, in
// about 15 s of CPU, what the full sizes show (`npm run bench -- hosting_scale`: random
// walks of 100 and 200 peers, 200 hosting peers with 200 play-only players, the crowd of
// 200; docs/BENCHMARKS.md "Hosting at scale"). Every bound is per player or per peer, and
// the walking area grows with the players (about two per region), so what a player meets
// around it is the same at any size. The crowds are in hosting-crowd-sim.test.ts.
//
// Most of a walk's CPU is the players' play after the join (about 2 CPU-s per virtual second
// at 60 players, wherever the peers are). One walk carries the checks of hosting and
// play-only players, its warm-up paid once, and its peers join 8 at once (one by one the
// join cost 16 CPU-s of a 60-peer walk and changes nothing measured after it). 32 players
// on 22 hosting peers, not 60 on 40: the same density (two players a region: 16 regions
// walked, against 36), every figure within the noise of the larger walk's (below, 60-player
// figures in brackets), in 13.8 s against 27.3 (npm test's simulations run, quiet machine).

// Upload bounds (kB/s, HostWires' bytes): the figures measured at 200 hosting peers and 400
// players with room (docs/BENCHMARKS.md "Hosting at scale"); here they hold
// with more room.
const HOST_KBPS_P50 = 32;
const HOST_KBPS_MAX = 100;
const PLAY_ONLY_KBPS_MAX = 4;

// 22 hosting peers that play and 10 play-only players (read-only DHT nodes that host
// nothing: dht/read-only-peers.ts), all walking at random (two per region) and each editing
// every ~5 s, 50 ms one-way latency, 10 s of warm-up (a player is measured from 10 s after it
// started: position-rates.ts's grace), 4 s measured: every figure is a per-player rate, share
// or percentile, and 4 s gives ~380 edit samples and ~300 visibility pairs.
//
// Why this size can still fail: the upload, edit, rate and visibility bounds are per player
// or per peer and fail on a regression at any size (the sessions that set them saw each one
// fail; with a player's source subscribing to 5 of its 3 x 3 regions, the corners left out
// (network-chunk-source.ts recentre), visibility falls to 94.8% and this fails). The link budget does not bind here: the busiest peer
// holds 30 DHT links (27 pinned); the 60-peer walk's held 20 to hosting peers, under its 32
// (29 unpinned with the play-only peers', 42 pinned), so neither size pressed on it. That
// check is a ceiling here; the budget's own rules are tested in dht/link-rebalance.test.ts
// and dht/read-only-peers.test.ts, and under full pressure at 200 peers by
// `npm run bench -- hosting_scale` (sim200_*, sim200_po200_*).
describe('hosting simulation at scale', () => {
  it('22 hosting peers and 10 play-only, 32 walking players: everyone within the radius seen; links and upload bounded; every edit shown; play-only peers host nothing', async () => {
    const f = await runHostingScale({ peers: 22, players: 32, seed: 3, joinBatch: 8, warmupMs: 10_000, measureMs: 4000, editEveryMs: 5000 });
    console.log(describeFigures(f));
    console.log(JSON.stringify({ client: f.clientStats, host: f.hostStats, hostingLinks: f.hostingLinksPerPeer, unseen: f.unseen.slice(0, 5) }));
    expect([f.peers, f.players, f.playOnly]).toEqual([22, 32, 10]);
    expect(f.visibilityPairs).toBeGreaterThan(150); // 306 measured [514]
    // TODO: should be every pair (1). Misses (0.25% of pairs in a 60-peer walk)
    // come in the re-attach loop of a subscriber whose link the primary's link budget
    // closes (docs/HOSTING.md "Hosting at scale, measured"). 1 measured.
    expect(f.visibility).toBeGreaterThanOrEqual(0.99);
    // Nine regions around a player: at most nine hosts (fewer when one host holds several),
    // play-only or not.
    expect(f.linksPerPlayer.max).toBeLessThanOrEqual(9);
    expect(f.linksPerPlayer.p50).toBeGreaterThanOrEqual(4); // 8 measured [8]
    expect(f.playOnlyLinksPerPlayer.max).toBeLessThanOrEqual(9);
    expect(f.playOnlyLinksPerPlayer.p50).toBeGreaterThanOrEqual(4); // 8 measured (200 + 200: 9)
    // The link budget (docs/BOUNDS.md): 32 links to hosting peers, read-only peers' links
    // apart (at most 32 more), and 64 pinned peers apart, each with one more in flight until
    // the next sweep (30 DHT links, 27 pinned measured [20 to hosting peers, 29 unpinned, 42
    // pinned]). A play-only peer's links are its own budget's and its pins (19 [26]; 39 at 200 + 200).
    expect(f.hostingLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxLinks + 1);
    expect(f.unpinnedLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxLinks + DHT_DEFAULTS.maxReadOnlyLinks + 1);
    expect(f.pinnedLinksPerPeer.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxPinnedLinks + 1);
    expect(f.playOnlyDhtLinks.max).toBeLessThanOrEqual(DHT_DEFAULTS.maxLinks + DHT_DEFAULTS.maxPinnedLinks + 1);
    // Play-only peers: in no hosting peer's table, hosting nothing, said so to many peers.
    expect(f.readOnly.inTables).toBe(0);
    expect(f.readOnly.hosting).toBe(0);
    expect(f.readOnly.marked).toBeGreaterThan(100); // 222 measured [802]
    // Upload: the hosting peers carry the play-only players too (p50 9.1, max 22.2 kB/s
    // measured [6.6, 30.4]; 10.6 and 71.0 at 200 + 200); a play-only peer sends its MOVEs and edits only (0.8).
    for (const x of [f.hostKbps.p50, f.hostKbps.p99, f.hostKbps.max, f.playOnlyKbps.max, f.editVisibleMs.p99, f.remoteHz.p10]) expect(Number.isFinite(x)).toBe(true);
    expect(f.hostKbps.p50).toBeLessThan(HOST_KBPS_P50);
    expect(f.hostKbps.max).toBeLessThan(HOST_KBPS_MAX);
    expect(f.playOnlyKbps.max).toBeLessThan(PLAY_ONLY_KBPS_MAX);
    // Edits: every one confirmed and shown to every player attached to its region.
    expect(f.edits.samples).toBeGreaterThan(150); // 379 measured [416]
    expect(f.edits.notConfirmed).toBe(0);
    expect(f.edits.missing).toBe(0);
    expect(f.editVisibleMs.p50).toBeGreaterThanOrEqual(100); // at least the editor -> primary -> player trip
    expect(f.editVisibleMs.p99).toBeLessThan(600); // 145 measured [150]
    // Drawn pending, a round trip to a backup before the commit (103 against 206 at the median [102, 171]).
    expect(f.editVisibleMs.p50).toBeLessThan(f.editCommittedMs.p50 - 50);
    // MOVE goes at MOVE_HZ (20): a player within the radius is seen moving at about that rate.
    expect(f.remoteHz.p10).toBeGreaterThanOrEqual(0.9 * MOVE_HZ); // 20 measured (10 with MOVE at 10)
    expect(f.nearest32Hz.p10).toBeGreaterThanOrEqual(0.95 * MOVE_HZ); // 20 measured
    expect(f.remoteHz.max).toBeLessThanOrEqual(1.2 * MOVE_HZ);
  }, SIM_TIMEOUT_MS);
});
