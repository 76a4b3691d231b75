// The terrain's shape: the height of every world column, from layered simplex noise.
// Three terms make recognisable landscapes instead of uniform bumps:
// - a very low-frequency "continent" term decides sea vs land (oceans, coasts, inland),
// - an fbm term adds hills whose amplitude grows inland (flat beaches, rolling hills),
// - a ridged "mountain" term, gated by its own low-frequency mask, raises mountain ranges
//   only in some regions, so plains stay plains.
import { createNoise2D, type NoiseFunction2D } from 'simplex-noise';
import { CHUNK_HEIGHT } from './coords';
import { hashString, mix32, mulberry32 } from './terrain-hash';

/** Water fills every non-solid block at y <= WATER_LEVEL. */
export const WATER_LEVEL = 62;
/** Lowest top block: keeps at least one block between bedrock (y = 0) and the sea. */
export const MIN_TOP = 2;
/** Highest top block: leaves headroom for the tallest tree below the world ceiling. */
export const MAX_TOP = CHUNK_HEIGHT - 24;

const CONTINENT_SCALE = 1 / 900;
const HILL_SCALE = 1 / 170;
const HILL_OCTAVES = 5;
const MOUNTAIN_MASK_SCALE = 1 / 640;
const RIDGE_SCALE = 1 / 240;
const MOUNTAIN_HEIGHT = 95;

/** The noise functions of one world seed; built once per seed, then only read. */
export interface TerrainNoise {
  readonly seed: string;
  /** Numeric hash of the seed, for per-position hashes (trees, dirt depth). */
  readonly seedHash: number;
  readonly continent: NoiseFunction2D;
  readonly hills: NoiseFunction2D;
  readonly mountainMask: NoiseFunction2D;
  readonly ridge: NoiseFunction2D;
  /** Small-scale jitter for snow line, beaches and gravel patches. */
  readonly detail: NoiseFunction2D;
  /** Forest density: where trees grow thick and where plains stay open. */
  readonly forest: NoiseFunction2D;
}

function noiseFor(seedHash: number, salt: number): NoiseFunction2D {
  return createNoise2D(mulberry32(mix32(seedHash ^ Math.imul(salt, 0x9e3779b9))));
}

export function createTerrainNoise(seed: string): TerrainNoise {
  const seedHash = hashString(seed);
  return {
    seed,
    seedHash,
    continent: noiseFor(seedHash, 1),
    hills: noiseFor(seedHash, 2),
    mountainMask: noiseFor(seedHash, 3),
    ridge: noiseFor(seedHash, 4),
    detail: noiseFor(seedHash, 5),
    forest: noiseFor(seedHash, 6),
  };
}

// Building the permutation tables costs far more than one column, and callers pass the seed
// string each time (generateChunk(seed, cx, cz)), so keep the last few. The cache is a pure
// memo: its contents are a function of the key, so sharing it cannot make results differ.
const CACHE_SIZE = 4;
const cache = new Map<string, TerrainNoise>();

export function terrainNoise(seed: string): TerrainNoise {
  let t = cache.get(seed);
  if (t) return t;
  t = createTerrainNoise(seed);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(seed, t);
  return t;
}

export function smoothstep(edge0: number, edge1: number, v: number): number {
  const t = Math.min(1, Math.max(0, (v - edge0) / (edge1 - edge0)));
  return t * t * (3 - 2 * t);
}

/** y of the top solid terrain block of world column (x, z), trees not included. */
export function columnTop(t: TerrainNoise, x: number, z: number): number {
  // Two octaves for the continent so coasts are not perfect ellipses.
  const c = t.continent(x * CONTINENT_SCALE, z * CONTINENT_SCALE) * 0.75 + t.continent(x * CONTINENT_SCALE * 3, z * CONTINENT_SCALE * 3) * 0.25;
  const inland = smoothstep(-0.15, 0.5, c);
  const base = WATER_LEVEL - 16 + 28 * smoothstep(-0.6, 0.35, c);

  let hills = 0;
  let amp = 1;
  let freq = HILL_SCALE;
  for (let o = 0; o < HILL_OCTAVES; o++) {
    hills += t.hills(x * freq, z * freq) * amp;
    amp *= 0.5;
    freq *= 2;
  }
  // Sum of amplitudes is < 2: normalise to about [-1, 1].
  hills *= 0.5;
  const hillHeight = hills * (5 + 15 * inland);

  let mountains = 0;
  const mask = smoothstep(0.2, 0.7, t.mountainMask(x * MOUNTAIN_MASK_SCALE, z * MOUNTAIN_MASK_SCALE)) * inland;
  if (mask > 0) {
    // Ridged noise (1 - |n|) gives sharp crests; squaring it keeps valleys wide.
    const r1 = 1 - Math.abs(t.ridge(x * RIDGE_SCALE, z * RIDGE_SCALE));
    const r2 = 1 - Math.abs(t.ridge(x * RIDGE_SCALE * 2.3 + 71.3, z * RIDGE_SCALE * 2.3 - 13.7));
    mountains = mask * (r1 * r1 * 0.75 + r2 * r2 * 0.25) * MOUNTAIN_HEIGHT;
  }

  const top = Math.floor(base + hillHeight + mountains);
  return top < MIN_TOP ? MIN_TOP : top > MAX_TOP ? MAX_TOP : top;
}
