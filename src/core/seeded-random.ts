// A small seeded PRNG (sfc32) so the simulator and tests are reproducible per seed.
// Not for cryptography.

export type Random = () => number;

/** Returns a function yielding floats in [0, 1), deterministic for a given seed. */
export function seededRandom(seed: number): Random {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162;
  let d = 1;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next(); // mix the seed in
  return next;
}

/** An integer in [lo, hi). */
export function randomInt(rand: Random, lo: number, hi: number): number {
  return lo + Math.floor(rand() * (hi - lo));
}

/** In-place Fisher-Yates shuffle. */
export function shuffle<T>(rand: Random, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
