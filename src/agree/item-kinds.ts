// The kinds of item, and the rule that keeps the limited kind (the star) to a fixed number
// in the whole world without anyone counting: the world seed decides how many stars exist
// and which area is the only one allowed to spawn each of them, and a star has a fixed id
// (`star-k`), so star k can appear at most once, in one area, whose ledger remembers that
// it did (ItemLedger state `stars`). No cross-region count, no global lock.

export const ITEM_KINDS = ['gem', 'apple', 'coin', 'star'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Kinds any area spawns (the star only in its home area, at most once per star). */
export const COMMON_KINDS: readonly ItemKind[] = ['gem', 'apple', 'coin'];

export const STAR_RULE = {
  /** Stars in a world: MIN + hash(seed) mod SPREAD (3..7). */
  min: 3,
  spread: 5,
  /** Home areas lie within this many areas of the origin on each axis, so players near spawn find them. */
  homeRadius: 2,
  /** A home area with its star not yet spawned proposes it with this probability. */
  chance: 0.25,
} as const;

/** FNV-1a over a string's UTF-16 code units: small, deterministic, not cryptographic. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** How many stars the world holds, from its seed. */
export function starCap(seed: string): number {
  return STAR_RULE.min + (fnv1a(`stars:${seed}`) % STAR_RULE.spread);
}

/** The area (ax, az: area coordinates, the region's rx, rz) that alone may spawn star k. */
export function starHome(seed: string, k: number): { ax: number; az: number } {
  const span = 2 * STAR_RULE.homeRadius + 1;
  const h = fnv1a(`star:${seed}:${k}`);
  return { ax: (h % span) - STAR_RULE.homeRadius, az: (Math.floor(h / span) % span) - STAR_RULE.homeRadius };
}

/** The star numbers whose home is area (ax, az). */
export function starsHomedAt(seed: string, ax: number, az: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < starCap(seed); k++) {
    const h = starHome(seed, k);
    if (h.ax === ax && h.az === az) out.push(k);
  }
  return out;
}

export const starId = (k: number): string => `star-${k}`;
