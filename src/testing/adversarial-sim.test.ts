// The adversarial simulation's own options (the DHT figures it measures are asserted in
// src/dht/dht-adversarial.test.ts): `readsPerKey` reads each record by that many readers.
import { describe, expect, it } from 'vitest';
import { runAdversarialSim } from './adversarial-sim';

describe('runAdversarialSim', () => {
  it('reads each key readsPerKey times in each read phase', async () => {
    const r = await runAdversarialSim({ nodes: 80, hostileShare: 0.2, seed: 3, lookups: 10, records: 10, regions: 5, churn: 0, readsPerKey: 3 });
    expect(r.before.reads).toBe(30);
    expect(r.after.reads).toBe(30);
    expect(r.locationsBefore!.reads).toBe(15);
    expect(r.locationsAfter!.reads).toBe(15);
    // Every read is counted once: newest, stale, missing or forged.
    expect(Math.round(r.after.success * r.after.reads) + r.after.stale + r.after.missing + r.after.forged).toBe(30);
  }, 60_000);
});
