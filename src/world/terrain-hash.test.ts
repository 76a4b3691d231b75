import { describe, expect, it } from 'vitest';
import { hash2, hashString, mulberry32 } from './terrain-hash';

describe('seeded randomness', () => {
  it('hashes strings stably and spreads near-identical seeds', () => {
    expect(hashString('world')).toBe(hashString('world'));
    expect(hashString('world1')).not.toBe(hashString('world2'));
    expect(hashString('')).toBeGreaterThanOrEqual(0);
  });

  it('mulberry32 repeats its sequence for a seed, stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    for (let i = 0; i < 1000; i++) {
      const v = a();
      expect(v).toBe(b());
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });

  it('hash2 depends on every input, negatives included', () => {
    const h = hash2(1, -5, 7);
    expect(hash2(1, -5, 7)).toBe(h);
    expect(hash2(2, -5, 7)).not.toBe(h);
    expect(hash2(1, 5, 7)).not.toBe(h);
    expect(hash2(1, -5, -7)).not.toBe(h);
    expect(hash2(1, -5, 7, 1)).not.toBe(h);
  });
});
