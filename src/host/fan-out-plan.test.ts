import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { FanOutPlan, hostFor, PENDING_ALONE_UP_TO, PRIMARY_WEIGHT, SHARE_ABOVE } from './fan-out-plan';

describe('hostFor: which host of a crowded region serves a subscriber', () => {
  it('the primary takes a PRIMARY_WEIGHT share against each backup\'s 1; every host gets some; the ends stay in range', () => {
    for (const n of [2, 3, 5]) {
      const counts = new Array<number>(n).fill(0);
      const N = 10_000;
      for (let i = 0; i < N; i++) counts[hostFor(i / N, n)]!++;
      const total = PRIMARY_WEIGHT + n - 1;
      expect(Math.abs(counts[0]! / N - PRIMARY_WEIGHT / total)).toBeLessThan(0.01);
      for (let b = 1; b < n; b++) expect(Math.abs(counts[b]! / N - 1 / total)).toBeLessThan(0.01);
      expect(hostFor(0, n)).toBe(0);
      expect(hostFor(0.999_999_9, n)).toBe(n - 1);
    }
    expect(hostFor(0.5, 1)).toBe(0);
  });
});

describe('FanOutPlan: who sends a PENDING', () => {
  const id = (i: number) => { const b = new Uint8Array(20); b[0] = (i * 37) & 0xff; b[1] = i >> 8; b[2] = i & 0xff; return b as NodeId; };
  const planFor = (n: number) => {
    const subscribers = new Map(Array.from({ length: n }, (_, i) => [idToHex(id(i)), { id: id(i) }]));
    const plan = new FanOutPlan({ ctx: { selfHex: 'ff'.repeat(20) }, subscribers, backups: () => [id(9000), id(9001)] }, () => true);
    plan.plan(0);
    return { plan, subscribers };
  };

  it('up to PENDING_ALONE_UP_TO subscribers the primary sends every PENDING itself, past SHARE_ABOVE too; a bigger crowd has it ride and relayed', () => {
    for (const n of [SHARE_ABOVE, SHARE_ABOVE + 1, PENDING_ALONE_UP_TO]) {
      const { plan, subscribers } = planFor(n);
      expect(plan.pendingAlone()).toBe(true);
      expect(plan.shared).toBe(n > SHARE_ABOVE);
      // Shared: the backups serve some (their positions and deltas), the PENDING is still the primary's.
      if (n > SHARE_ABOVE) expect([...subscribers.keys()].filter((h) => !plan.direct(h, 5000)).length).toBeGreaterThan(0);
    }
    const { plan } = planFor(PENDING_ALONE_UP_TO + 1);
    expect(plan.shared).toBe(true);
    expect(plan.pendingAlone()).toBe(false);
  });
});
