import { describe, expect, it } from 'vitest';
import { LatencySamples } from './latency-samples';

describe('LatencySamples', () => {
  it('summarises the last N samples by nearest rank', () => {
    const l = new LatencySamples(100);
    expect(l.summary().samples).toBe(0);
    expect(Number.isNaN(l.summary().p50)).toBe(true);
    for (let i = 1; i <= 150; i++) l.add(i); // only 51..150 are kept
    expect(l.total).toBe(150);
    expect(l.summary()).toEqual({ p50: 101, p99: 150, samples: 100 });
    expect(l.flat('x')).toEqual({ x_p50: 101, x_p99: 150, x_samples: 100 });
  });
});
