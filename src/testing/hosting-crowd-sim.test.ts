import { describe, expect, it } from 'vitest';
import { describeFigures, runHostingScale } from './hosting-scale-sim';
import { SIM_TIMEOUT_MS } from './sim-timeout';
import { MOVE_HZ } from '../region/move-rate';

// The hosting simulation's crowds at CI sizes (the walks are in hosting-scale-sim.test.ts; a
// file of their own so the two halves run side by side): players crowding one region, at a
// lowered per-link frame limit and at the product's. Full sizes: `npm run bench -- hosting_scale`
// (crowd of 200; `HOSTING_SCALE_CROWDS=100` for the crowd of 100), docs/BENCHMARKS.md.

describe('hosting simulation: crowds in one region', () => {
  // A crowd's MOVEs converge on its region's primary, and its nearest neighbours (often its
  // backups) forward most of them: in the crowd of 200 that met the DHT's per-link frame
  // limit (1000 a second). The primary dropped frames (lookup answers, pings, acks) and closed
  // a backup's link for flood; the backup took that for its death and claimed, and lookups
  // missing a host moved the set: every subscriber to a new epoch, with nobody killed. Here
  // 40 players meet a limit of 60 a second, pinned links (a primary's to its backups) held
  // to it too (the product lets them carry 4 times more). 100 until the backups pinned their
  // share's links (fan-out-share.ts): fewer frames routed through the primary's neighbours,
  // and at 100 none was dropped (main: 231); at 80, 158 dropped, and nobody moved. 60 since
  // a node pins 64 peers, not 48 (more frames go direct): at 80, 78 dropped; at 70, none;
  // at 60, 331 and nobody moved; at 50 the set changed (1 step-down). The drops come late
  // in the run: 550 over 15 s measured after 15 s of warm-up, none over 8 s after 10 s, nor
  // with the peers joined 8 at once (a different network); a crowd of 32 at 45 and at 40 a
  // second dropped 676 and 318 but moved the set (1 and 4 reconfigs, ~30 failovers). So this
  // test keeps its size, length and one-by-one join, ~26 CPU-s, the larger half of this file.
  // It sits at the cliff: any change of event order moves which link the drops fall on. On
  // main a219f73 seeds 3 and 4 end with a reconfig (one with a link closed for flood), and
  // seed 1 with REPLICATE merely deferred by a microtask closes a link for flood: a change
  // that turns it red changed the order of events, which is not yet a frame more per link.
  // With MOVE at 20 a second (region/move-rate.ts) this crowd moved the set at this limit
  // (seed 1: 4 reconfigs, 4 step-downs, 245 frames dropped) until a link's PINGs and PONGs got a
  // budget of their own (dht/link-set.ts LIVENESS_FRAMES): a backup whose primary's frames met
  // the limit lost a probe's answer with them, closed the live link as dead, and the primary
  // replaced it in two regions' sets, then took it back when lookups found it again.
  it('a crowd whose primary meets the per-link frame limit: nobody killed, no host-set change', async () => {
    const f = await runHostingScale({ peers: 40, players: 40, seed: 1, crowd: true, measureMs: 15_000, linkFramesPerSec: 60, pinnedFramesFactor: 1 });
    console.log(describeFigures(f));
    expect(f.dhtDrops.rateLimited).toBeGreaterThan(50);
    expect(f.hostStats.reconfigs).toBe(0);
    expect(f.hostStats.stepDowns).toBe(0);
    expect(f.clientStats.failovers).toBe(0);
    expect(f.attachesPerPlayerMin).toBeLessThan(1);
  }, SIM_TIMEOUT_MS);

  // The crowd target: players crowding one region each see their 32 nearest at MOVE's rate
  // (MOVE_HZ: every position they sent while among them, within a second; 36 players are
  // fewer than a host's `nearest`, so none is held to a crowd's crowdNearMs), and everyone
  // within the interest radius; no frame is dropped over a link's rate limit (a crowd's
  // MOVEs converge on the primary through its backups: pinned links carry 4 times the
  // limit), and every edit is answered. A crowd of 36 joined 12 at once, 10 s of warm-up (the
  // rates' grace) and 3 s measured: more than 33, so a player's 32 nearest are a choice
  // among the 35 others, as in the crowd of 100 (`HOSTING_SCALE_CROWDS=100
  // npm run bench -- hosting_scale`; the bench's default is the crowd of 200). Every figure
  // is per player (1,155 nearest-32 rates, 350 edit samples measured; 40 players and 4 s
  // measured gave 2,582 and 585 in about a fifth more CPU). With a host's nearest cut from 56
  // to 16 (INTEREST_DEFAULTS.nearest) the 32 nearest's p10 reads 0 and this fails. The
  // product's per-link frame limit is far off at 36 (the crowd of 200 met it): the test above
  // meets a lowered limit with 40.
  it('a crowd of 36 in one region: the 32 nearest at MOVE\'s rate, everyone seen, no frame dropped, every edit answered', async () => {
    const f = await runHostingScale({ peers: 36, players: 36, seed: 2, crowd: true, joinBatch: 12, warmupMs: 10_000, measureMs: 3000 });
    console.log(describeFigures(f));
    expect(f.nearest32Hz.n).toBeGreaterThan(500); // 1,155 measured
    expect(f.nearest32Hz.p10).toBe(MOVE_HZ);
    expect(f.visibility).toBeGreaterThanOrEqual(0.995);
    expect(f.dhtDrops.rateLimited).toBe(0);
    expect(f.clientStats.timeouts).toBe(0);
    expect(f.hostStats.reconfigs).toBe(0);
    expect(f.edits.samples).toBeGreaterThan(150); // 350 measured
    expect(f.edits.missing).toBe(0);
    // What the backups relay to their shares carries the primary's batch signatures, all valid (docs/TRUST.md rule 10).
    expect(f.clientStats.relayUnproven).toBe(0);
    // The busiest upload grows with the crowd: 49.5 kB/s measured (35.6 with MOVE at 10; seed 2; at 10, crowd of 40: 39.8;
    // crowd of 50: 46.1; crowd of 100: 102.7, bound 128; crowd of 200: bound 256).
    expect(f.hostKbps.max).toBeLessThan(64);
  }, SIM_TIMEOUT_MS);
});
