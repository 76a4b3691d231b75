import { describe, expect, it } from 'vitest';
import { hostFor, PRIMARY_WEIGHT } from './fan-out-plan';

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
