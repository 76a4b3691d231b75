// Seeded hashing for terrain (the simulator's PRNG is core/seeded-random.ts, whose output
// may change freely; this file's may not: it defines the world). Everything here is a pure
// function of its inputs so that every peer, worker and test generates the very same world from the same seed string.
// Math.random is never used: one stray call would make two peers disagree about a chunk.

/** 32-bit FNV-1a of a string, finished with a murmur3 mix so near-identical seeds spread well. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** murmur3's finaliser: every input bit affects every output bit. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: a tiny PRNG, good enough to shuffle simplex-noise permutation tables. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Hash of (seed, x, z, salt) to a uint32, for per-position decisions (tree cells, dirt depth).
 * Stateless, so a decision about a world position is the same whichever chunk asks.
 */
export function hash2(seed: number, x: number, z: number, salt = 0): number {
  let h = mix32(seed ^ Math.imul(salt + 1, 0x9e3779b9));
  h = mix32(h ^ Math.imul(x | 0, 0x27d4eb2d));
  h = mix32(h ^ Math.imul(z | 0, 0x165667b1));
  return h;
}
