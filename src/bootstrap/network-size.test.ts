import { describe, expect, it } from 'vitest';
import { compareDistance, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { distanceFraction, estimateNetworkSize } from './network-size';

describe('network size estimate', () => {
  it('counts everyone when fewer than k are known', () => {
    const self = randomId();
    const [a, b] = [randomId(), randomId()];
    expect(estimateNetworkSize(self, [a, b, a, self])).toBe(3);
    expect(distanceFraction(self, self)).toBe(0);
  });

  it('is within a factor of 1.6 of the truth from the 20 closest, for 100 to 10,000 nodes', () => {
    const rand = seededRandom(7);
    for (const n of [100, 1000, 10_000]) {
      for (let trial = 0; trial < 5; trial++) {
        const ids = Array.from({ length: n }, () => randomId(rand));
        const self = ids[0]!;
        const closest = ids.slice(1).sort((a, b) => compareDistance(a, b, self)).slice(0, 20);
        const est = estimateNetworkSize(self, closest);
        expect(est / n, `n=${n} est=${est}`).toBeGreaterThan(1 / 1.6);
        expect(est / n, `n=${n} est=${est}`).toBeLessThan(1.6);
      }
    }
  });
});
