// Point queries on the generated world, without generating a chunk: the spawn height, and
// a reference "block at (x, y, z)" that tests compare whole chunks against.
import { AIR, LEAVES, WOOD } from './blocks';
import { columnBlock, describeColumn } from './column-profile';
import { CHUNK_HEIGHT } from './coords';
import { terrainNoise, WATER_LEVEL } from './heightmap';
import { isLeaf, isTrunk, treesNear, TREE_MAX_RISE } from './trees';

/** Generated block at world (x, y, z): terrain, then trunks, then leaves into air. */
export function generatedBlockAt(seed: string, x: number, y: number, z: number): number {
  if (y < 0 || y >= CHUNK_HEIGHT) return AIR;
  const t = terrainNoise(seed);
  const base = columnBlock(describeColumn(t, x, z), y);
  if (base !== AIR) return base;
  const trees = treesNear(t, x, z, x, z);
  for (const tree of trees) if (tree.x === x && tree.z === z && isTrunk(tree, y)) return WOOD;
  for (const tree of trees) if (isLeaf(tree, x, y, z)) return LEAVES;
  return AIR;
}

/**
 * y just above the highest solid generated block of column (x, z), trees included: where a
 * player's feet go. Under a lake this is the lake floor + 1; see findSpawn for dry land.
 */
export function surfaceHeight(seed: string, x: number, z: number): number {
  x = Math.floor(x);
  z = Math.floor(z);
  const top = describeColumn(terrainNoise(seed), x, z).top;
  for (let y = Math.min(CHUNK_HEIGHT - 1, top + TREE_MAX_RISE + 1); y > top; y--) {
    const id = generatedBlockAt(seed, x, y, z);
    if (id === WOOD || id === LEAVES) return y + 1;
  }
  return top + 1;
}

export interface SpawnPoint {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/** Farthest the spawn search walks from the origin before giving up on dry land. */
const SPAWN_SEARCH_RADIUS = 2048;
const SPAWN_SEARCH_STEP = 8;

/**
 * A spawn point on dry land near (0, 0): the centre of the first column above water along a
 * square spiral. Falls back to the origin (on the sea floor) on an all-ocean seed.
 */
export function findSpawn(seed: string): SpawnPoint {
  const t = terrainNoise(seed);
  for (let r = 0; r <= SPAWN_SEARCH_RADIUS; r += SPAWN_SEARCH_STEP) {
    for (let i = -r; i <= r; i += SPAWN_SEARCH_STEP) {
      for (const [x, z] of [[i, -r], [i, r], [-r, i], [r, i]] as const) {
        if (describeColumn(t, x, z).top > WATER_LEVEL) return { x: x + 0.5, y: surfaceHeight(seed, x, z), z: z + 0.5 };
      }
    }
  }
  return { x: 0.5, y: surfaceHeight(seed, 0, 0), z: 0.5 };
}
