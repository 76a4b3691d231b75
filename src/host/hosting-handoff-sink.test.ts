// A node nearest a region's key that takes every HANDOFF and never claims (an attacker's
// node, testing/handoff-sink-scenario.ts): the first primary that hands the region to it
// costs one failover's gap; the hosts that claimed past it then hand it the region no more
// (declined-handoffs.ts). Before, every new primary's re-check handed it over again: 14-15 s
// of 40 without a primary, in 16 gaps, 79 HANDOFFs sent to it.
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
});
