// hosting_scale: the hosting simulation (src/testing/hosting-scale-sim.ts, through
// `npm run sim -- --hosting`, each run in a process of its own) at the sizes of its targets:
// random walks with N peers and N players (sim{N}_*), and N players crowding one region on N
// peers (crowd{N}_*), 50 ms mean one-way latency, 15 s warm-up then MINUTES measured.
// Figures (docs/BENCHMARKS.md "Hosting at scale"):
// - sim{N}_links_per_player_p50/_p99: hosts a player's region client is attached to;
// - sim{N}_host_kbps_p50/_p99/_max: upload per peer (HostWires.bytesOut), kB/s;
// - sim{N}_edit_visible_ms_p50/_p99: submit to another subscriber drawing it, pending
//   (ordered, not committed: PENDING) or committed, whichever first; sim{N}_edit_committed_ms_p50/_p99: to its state holding it,
//   committed (the DELTA: what edit_visible measured before); _edit_missing: never shown to a
//   subscriber that stayed;
// - sim{N}_remote_hz_p10/_p50: new positions per second of the players within the interest
//   radius (48 blocks); sim{N}_visibility: share of such pairs listed within the last second;
// - crowd{N}_host_kbps_max, and what the busiest peer sent by frame type
//   (crowd{N}_busiest_{channel}_{TYPE}_kbps, those of at least 1 kB/s);
// - crowd{N}_nearest32_hz_p10/_p50: new positions per second of each of a player's 32 nearest
//   while it is among them; _window_hz_p10/_p50: per 2 s window, of the 32 nearest at its end
//   whatever they were before (how the figure was first counted); _age_ms_p90: time since the
//   newest position of one of the 32 nearest (src/testing/position-rates.ts);
// - crowd{N}_edit_visible_ms_p50/_p99, _edit_first_ms_p99 (to the first observer: the
//   commit's part), crowd{N}_visibility;
// - crowd{N}_host_set_changes (a primary re-claimed over a new set; nobody is killed in a
//   crowd run), crowd{N}_dht_rate_dropped (frames the peers' DHT links dropped over their
//   rate limit, measured window), crowd{N}_edit_timeouts (edits with no answer in 5 s),
//   crowd{N}_reattaches (players' subscriptions that let go of their primary and looked
//   again, measured window; the sim prints them by region and cause);
// - _wall_s: the run's wall time on this machine.
// Run: `npm run bench -- hosting_scale` (only when named: several minutes). Sizes:
// HOSTING_SCALE_SIZES=100,200 (random walks), HOSTING_SCALE_CROWDS=200, HOSTING_SCALE_MINUTES=0.5.
// HOSTING_SCALE_REGION_SIZES=2,8 adds the random walks with regions of 2 x 2 and 8 x 8 chunk
// columns (sim{N}_r{S}_*: links per player, upload, edit to visible, region attaches per
// player per minute, visibility; docs/HOSTING.md "Region size").
// From 1,000 peers the random walk's peers join 16 at once (--join-batch 16; one by one they
// took 40 minutes of wall time to join); HOSTING_SCALE_JOIN_BATCH=K sets it for every size.
// From 1,000 peers the warm-up is 30 s, not 15; HOSTING_SCALE_WARMUP=S sets it for every size.
// latest.json's sim1k_*: HOSTING_SCALE_SIZES=1000 HOSTING_SCALE_CROWDS= HOSTING_SCALE_MINUTES=0.25.
// HOSTING_SCALE_LATENCY_SPREAD=S runs the random walks with links drawn within S of the 50 ms
// (--latency-spread S) and names them sim{N}_spread{S}_*, S = 0 (every link 50 ms) sim{N}_fixedlat_*:
// latest.json's sim1k_fixedlat_* are the line above with HOSTING_SCALE_LATENCY_SPREAD=0.
// sim{N}_join_batch records which.
// HOSTING_SCALE_PLAY_ONLY=200 (the default; empty: none) adds the random walk of N hosting
// peers with N more players on play-only peers, 64 joining at once, 10 s of warm-up:
// sim{N}_po{N}_* (links per player, upload, edits, visibility as above; _po_links_per_player_p99,
// _po_dht_links_max, _po_kbps_max: the play-only peers'; _po_in_tables, _po_hosting: play-only
// peers in a hosting peer's table and regions they host, both 0). The full size of
// src/testing/hosting-scale-sim.test.ts's play-only test, which `npm test` runs at 32 + 32.
import type { HostingScaleFigures } from '../src/testing/hosting-scale-sim';
import { runHostingSimProcess } from './hosting-sim';

export async function benchHostingScale(): Promise<Record<string, number>> {
  const sizes = (process.env.HOSTING_SCALE_SIZES ?? '100,200').split(',').filter(Boolean).map(Number);
  const crowds = (process.env.HOSTING_SCALE_CROWDS ?? '200').split(',').filter(Boolean).map(Number);
  const minutes = process.env.HOSTING_SCALE_MINUTES ?? '0.5';
  const out: Record<string, number> = {};
  const r1 = (x: number) => Math.round(x * 10) / 10;
  // The figures a random-walk run shares with its region-size variants, under `p`.
  const walkFigures = (p: string, f: HostingScaleFigures): Record<string, number> => ({
    [`${p}links_per_player_p50`]: f.linksPerPlayer.p50,
    [`${p}links_per_player_p99`]: f.linksPerPlayer.p99,
    [`${p}dht_links_per_peer_p99`]: f.dhtLinksPerPeer.p99,
    [`${p}pinned_links_per_peer_p99`]: f.pinnedLinksPerPeer.p99,
    [`${p}play_links_direct`]: Math.round(f.playLinksDirect * 10_000) / 10_000,
    [`${p}host_kbps_p50`]: r1(f.hostKbps.p50),
    [`${p}host_kbps_p99`]: r1(f.hostKbps.p99),
    [`${p}host_kbps_max`]: r1(f.hostKbps.max),
    [`${p}edit_visible_ms_p50`]: Math.round(f.editVisibleMs.p50),
    [`${p}edit_visible_ms_p99`]: Math.round(f.editVisibleMs.p99),
    [`${p}edit_visible_samples`]: f.editVisibleMs.n,
    [`${p}edit_visible_over_150ms`]: f.editTail.slow,
    [`${p}edit_committed_ms_p50`]: Math.round(f.editCommittedMs.p50),
    [`${p}edit_committed_ms_p99`]: Math.round(f.editCommittedMs.p99),
    [`${p}attaches_per_player_min`]: r1(f.attachesPerPlayerMin),
    [`${p}visibility`]: Math.round(f.visibility * 10_000) / 10_000,
    [`${p}wall_s`]: Math.round(f.wallSec),
  });
  // The 1,000-peer figures are sim1k_* (as their targets name them); smaller sizes keep their digits.
  const simName = (n: number) => `sim${n % 1000 === 0 ? `${n / 1000}k` : n}`;
  const joinBatch = (n: number) => Number(process.env.HOSTING_SCALE_JOIN_BATCH ?? (n >= 1000 ? 16 : 1));
  // 1,000 players started at once still settle 15 s after (host-set changes, re-attaches: docs/BENCHMARKS.md "Hosting at scale").
  const warmup = (n: number) => Number(process.env.HOSTING_SCALE_WARMUP ?? (n >= 1000 ? 30 : 15));
  const spread = process.env.HOSTING_SCALE_LATENCY_SPREAD;
  const spreadArgs = spread === undefined ? [] : ['--latency-spread', spread];
  const spreadName = spread === undefined ? '' : Number(spread) === 0 ? 'fixedlat_' : `spread${spread}_`;
  for (const n of sizes) {
    const f = await runHostingSimProcess(['--peers', String(n), '--players', String(n), '--seed', '1', '--minutes', minutes, '--join-batch', String(joinBatch(n)), '--warmup', String(warmup(n)), ...spreadArgs]);
    const p = `${simName(n)}_${spreadName}`;
    Object.assign(out, walkFigures(p, f), {
      [`${p}join_batch`]: f.joinBatch,
      [`${p}warmup_s`]: warmup(n),
      [`${p}measured_s`]: Math.round(f.measuredSec),
      [`${p}edit_missing`]: f.edits.missing,
      [`${p}remote_hz_p10`]: r1(f.remoteHz.p10),
      [`${p}remote_hz_p50`]: r1(f.remoteHz.p50),
    });
  }
  for (const n of (process.env.HOSTING_SCALE_PLAY_ONLY ?? '200').split(',').filter(Boolean).map(Number)) {
    const f = await runHostingSimProcess(['--peers', String(n), '--players', String(2 * n), '--seed', '1', '--minutes', minutes, '--join-batch', '64', '--warmup', '10']);
    const p = `${simName(n)}_po${n}_`;
    Object.assign(out, walkFigures(p, f), {
      [`${p}edit_missing`]: f.edits.missing,
      [`${p}po_links_per_player_p99`]: f.playOnlyLinksPerPlayer.p99,
      [`${p}po_dht_links_max`]: f.playOnlyDhtLinks.max,
      [`${p}po_kbps_max`]: r1(f.playOnlyKbps.max),
      [`${p}po_in_tables`]: f.readOnly.inTables,
      [`${p}po_hosting`]: f.readOnly.hosting,
    });
  }
  const regionSizes = (process.env.HOSTING_SCALE_REGION_SIZES ?? '').split(',').filter(Boolean).map(Number);
  for (const n of sizes) {
    for (const size of regionSizes) {
      const f = await runHostingSimProcess(['--peers', String(n), '--players', String(n), '--seed', '1', '--minutes', minutes, '--region-size', String(size)]);
      Object.assign(out, walkFigures(`${simName(n)}_r${size}_`, f));
    }
  }
  for (const n of crowds) {
    const f = await runHostingSimProcess(['--peers', String(n), '--players', String(n), '--seed', '1', '--minutes', minutes, '--crowd']);
    Object.assign(out, {
      [`crowd${n}_host_kbps_p99`]: r1(f.hostKbps.p99),
      [`crowd${n}_host_kbps_max`]: r1(f.hostKbps.max),
      [`crowd${n}_nearest32_hz_p10`]: r1(f.nearest32Hz.p10),
      [`crowd${n}_nearest32_hz_p50`]: r1(f.nearest32Hz.p50),
      [`crowd${n}_nearest32_window_hz_p10`]: r1(f.nearest32WindowHz.p10),
      [`crowd${n}_nearest32_window_hz_p50`]: r1(f.nearest32WindowHz.p50),
      [`crowd${n}_nearest32_age_ms_p90`]: Math.round(f.nearest32AgeMs.p90),
      [`crowd${n}_edit_visible_ms_p50`]: Math.round(f.editVisibleMs.p50),
      [`crowd${n}_edit_visible_ms_p99`]: Math.round(f.editVisibleMs.p99),
      [`crowd${n}_edit_first_ms_p99`]: Math.round(f.editFirstVisibleMs.p99),
      [`crowd${n}_visibility`]: Math.round(f.visibility * 10_000) / 10_000,
      [`crowd${n}_host_set_changes`]: f.hostStats.reconfigs,
      [`crowd${n}_dht_rate_dropped`]: f.dhtDrops.rateLimited,
      [`crowd${n}_edit_timeouts`]: f.clientStats.timeouts,
      [`crowd${n}_reattaches`]: Object.values(f.reattachCauses).reduce((a, b) => a + b, 0),
      [`crowd${n}_positions_lost`]: f.positionsLost.asked,
      [`crowd${n}_wall_s`]: Math.round(f.wallSec),
    });
    for (const [type, c] of Object.entries(f.busiest?.byType ?? {})) if (c.kbps >= 1) out[`crowd${n}_busiest_${type.replace(' ', '_')}_kbps`] = c.kbps;
  }
  return out;
}
