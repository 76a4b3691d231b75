// A node nearest a region's key that takes every HANDOFF and never claims (an attacker's
// node, testing/handoff-sink-scenario.ts): the first primary that hands the region to it
// costs one failover's gap; the hosts that claimed past it then hand it the region no more
// (declined-handoffs.ts). Before, every new primary's re-check handed it over again: 14-15 s
// of 40 without a primary, in 16 gaps, 79 HANDOFFs sent to it. One that took the region and
// fell silent stays out of the set until heard (quiet-hosts.ts). Two such nodes among the
// three nearest the key, sending the hosts frames of the region, with the primary killed
// midway: what one host learnt of them (unclaiming-hosts.ts) must outlive its notes, its
// handoffs and its death.
import { describe, expect, it } from 'vitest';
import { HOST_DEFAULTS } from './host-options';
import { CLAIM_TIMEOUT_MS } from './claim-round';
import { runHandoffSink, SINK_WINDOW_MS } from '../testing/handoff-sink-scenario';

describe('a node nearest the key that never takes the region it is handed (simulated)', () => {
  for (const seed of [1, 2]) {
    it(`costs the region one failover's gap, not one per re-check (seed ${seed})`, async () => {
      const r = await runHandoffSink(seed);
      expect(r.handoffsToSink, 'the sink was handed the region').toBeGreaterThan(0);
      expect(r.noPrimaryMs, `time without a primary in ${SINK_WINDOW_MS} ms`).toBeLessThanOrEqual(HOST_DEFAULTS.failoverMs + CLAIM_TIMEOUT_MS);
      expect(r.gaps).toBeLessThanOrEqual(2);
      expect(r.confirmed, 'honest edits confirmed').toBe(r.edits);
      expect(r.doublePrimaries).toBe(0);
    });
  }

  // sybil_1k seed 1's region 1,1 in small: the first primary hands the region to one sink (a
  // node outside its set that it never met), takes nothing from either after; each host that
  // learnt of them (its own claims, a granted claim's ABANDON, its primary's SYNC) names them
  // again only one at a time, and never hands the region to one. Before: 11.65 s without a
  // primary in 100 s, the longest gap 3.5 s, 2 of 95 edits unconfirmed, 17 HANDOFF frames to
  // the sinks (a handoff to one once a 30-second note ended, a set naming both after the
  // failover); now 1.1 s, the longest gap the kill's failover (650 ms). Seed 1: 7.6 s and
  // 2.75 s before, 1.85 s and 700 ms now.
  it('two silent nodes among the three nearest, their frames, a kill: no gap past the failover (seed 2)', async () => {
    const r = await runHandoffSink(2, { sinks: 2, windowMs: 100_000, chatterMs: 4000, killAt: 60_000 });
    expect(r.handoffsToSink, 'HANDOFF frames to a sink: one handoff, said four times').toBeLessThanOrEqual(4);
    expect(r.longestGapMs, 'the longest run without a primary').toBeLessThanOrEqual(HOST_DEFAULTS.failoverMs + CLAIM_TIMEOUT_MS / 3);
    expect(r.noPrimaryMs, 'time without a primary in 100 s').toBeLessThanOrEqual(3000);
    expect(r.confirmed, 'honest edits confirmed').toBe(r.edits);
    expect(r.doublePrimaries).toBe(0);
  });

  // Its host started, the sink claims the epoch it is handed as an honest host would, then
  // falls silent while its DHT answers: every re-check's lookup named it a backup again and
  // the set's fill dropped it as quiet, an epoch and a gap each (e1 -> e11, 9 gaps, 2,600 ms
  // without a primary; today's code with the old re-check: e1 -> e13, 9 gaps, 2,650 ms). Kept
  // out until heard (quiet-hosts.ts): e1 -> e4, 1 gap, 1,650 ms. Since the fresh subscriber's
  // lookups go in turns, the sink, noted quiet before any re-check would hand it the region, is
  // handed it no more in this seed (3 handoffs with the old re-check, 0 now), so the handoff
  // is not asked for here: the epochs and gaps are what the old re-check fails.
  it('a silent node nearest the key stays out of the set until it is heard (seed 2, its host started)', async () => {
    const r = await runHandoffSink(2, { startedHost: true });
    // A handoff, the sink's claim, the failover past it, one re-check's new set.
    expect(r.epochAtEnd - r.epochAtJoin, 'epochs claimed in the window').toBeLessThanOrEqual(4);
    expect(r.gaps).toBeLessThanOrEqual(2);
    expect(r.noPrimaryMs, `time without a primary in ${SINK_WINDOW_MS} ms`).toBeLessThanOrEqual(HOST_DEFAULTS.failoverMs + CLAIM_TIMEOUT_MS);
    expect(r.confirmed, 'honest edits confirmed').toBe(r.edits);
    expect(r.doublePrimaries).toBe(0);
  });
});
