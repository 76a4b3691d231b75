// Block rules of one terrain column: which block sits on top and what lies beneath it.
// Kept apart from the chunk filler so the same rules answer "what block is at (x, y, z)"
// without generating a chunk (spawn points, tests, hosts checking an edit).
import { BEDROCK, DIRT, GRASS, GRAVEL, SAND, SNOW, STONE, WATER, AIR } from './blocks';
import { columnTop, WATER_LEVEL, type TerrainNoise } from './heightmap';
import { hash2 } from './terrain-hash';

/** Mean y above which tops are snow; the detail noise moves it by +-SNOW_JITTER. */
export const SNOW_LINE = 128;
const SNOW_JITTER = 6;
/** Bare rock begins this far below the snow line (too high and steep for grass). */
const ROCK_BAND = 14;
/** Beaches: sand on tops up to this far above the water (one more where the noise says). */
const BEACH_HEIGHT = 1;
/** Sea floor deeper than this below the water may be gravel instead of sand. */
const GRAVEL_DEPTH = 6;
const DETAIL_SCALE = 1 / 24;

export interface ColumnProfile {
  /** y of the top solid terrain block. */
  top: number;
  /** Block at y = top. */
  surface: number;
  /** Block for the `fillerDepth` blocks under the top; stone below them. */
  filler: number;
  fillerDepth: number;
}

export function emptyProfile(): ColumnProfile {
  return { top: 0, surface: STONE, filler: STONE, fillerDepth: 0 };
}

/**
 * Describes world column (x, z) into `out` (reused by hot loops so a chunk allocates
 * nothing per column) and returns it.
 */
export function describeColumn(t: TerrainNoise, x: number, z: number, out: ColumnProfile = emptyProfile()): ColumnProfile {
  const top = columnTop(t, x, z);
  const d = t.detail(x * DETAIL_SCALE, z * DETAIL_SCALE);
  out.top = top;
  const snowLine = SNOW_LINE + d * SNOW_JITTER;
  if (top >= snowLine) {
    out.surface = SNOW;
    out.filler = STONE;
    out.fillerDepth = 0;
  } else if (top >= snowLine - ROCK_BAND) {
    out.surface = STONE;
    out.filler = STONE;
    out.fillerDepth = 0;
  } else if (top <= WATER_LEVEL + BEACH_HEIGHT + (d > 0.25 ? 1 : 0)) {
    // Deep sea floor: patches of gravel among the sand.
    const mat = top < WATER_LEVEL - GRAVEL_DEPTH && d < -0.3 ? GRAVEL : SAND;
    out.surface = mat;
    out.filler = mat;
    out.fillerDepth = 3;
  } else {
    out.surface = GRASS;
    out.filler = DIRT;
    // 3 or 4 blocks of dirt, decided per column so the stone boundary is not a flat plane.
    out.fillerDepth = 3 + (hash2(t.seedHash, x, z, 7) & 1);
  }
  return out;
}

/** Terrain block at height y of a described column (trees not included). */
export function columnBlock(p: ColumnProfile, y: number): number {
  if (y <= 0) return y === 0 ? BEDROCK : AIR;
  if (y === p.top) return p.surface;
  if (y < p.top) return y >= p.top - p.fillerDepth ? p.filler : STONE;
  return y <= WATER_LEVEL ? WATER : AIR;
}
