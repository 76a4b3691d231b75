// Deterministic trees that agree across chunk borders.
// Each TREE_CELL x TREE_CELL cell of the world holds at most one tree, decided by a hash of
// (seed, cell) alone, so a tree exists or not whatever chunk asks. A chunk stamps every tree
// whose canopy can reach it: the trees of the cells under the chunk grown by CANOPY_RADIUS.
// Stamping is order-independent (all trunks first; leaves only into air), so the block at a
// world position is the same from every side of a border.
import { AIR, GRASS, LEAVES, WOOD } from './blocks';
import type { Chunk } from './chunk';
import { describeColumn } from './column-profile';
import { CHUNK_SIZE, blockIndex } from './coords';
import { smoothstep, type TerrainNoise } from './heightmap';
import { hash2 } from './terrain-hash';

export const TREE_CELL = 5;
/** Farthest a leaf is from its trunk, horizontally. */
export const CANOPY_RADIUS = 2;
const MIN_TRUNK = 4;
const MAX_TRUNK = 6;
/** Highest leaf above the ground block: trunk top + 1. */
export const TREE_MAX_RISE = MAX_TRUNK + 1;
const FOREST_SCALE = 1 / 260;
/** Chance of a tree per cell on open plains and in the thickest forest. */
const PLAINS_DENSITY = 0.04;
const FOREST_DENSITY = 0.7;

export interface Tree {
  /** World position of the trunk. */
  readonly x: number;
  readonly z: number;
  /** y of the grass block it grows on. */
  readonly ground: number;
  /** Number of wood blocks, from ground + 1 up. */
  readonly trunk: number;
  /** Bits choosing which canopy corners are cut, so trees are not all identical. */
  readonly corners: number;
}

/** The tree of cell (gx, gz), if it has one. */
export function treeInCell(t: TerrainNoise, gx: number, gz: number): Tree | undefined {
  const h = hash2(t.seedHash, gx, gz, 11);
  const x = gx * TREE_CELL + (h % TREE_CELL);
  const z = gz * TREE_CELL + ((h >>> 8) % TREE_CELL);
  const density = PLAINS_DENSITY + (FOREST_DENSITY - PLAINS_DENSITY) * smoothstep(-0.1, 0.6, t.forest(x * FOREST_SCALE, z * FOREST_SCALE));
  // The top 16 bits are independent of the jitter bits above.
  if ((h >>> 16) / 65536 >= density) return undefined;
  // Only on grass: never on beaches, under water, on bare rock or snow.
  const col = describeColumn(t, x, z);
  if (col.surface !== GRASS) return undefined;
  const h2 = hash2(t.seedHash, gx, gz, 12);
  return { x, z, ground: col.top, trunk: MIN_TRUNK + (h2 % (MAX_TRUNK - MIN_TRUNK + 1)), corners: h2 >>> 8 };
}

/** Trees whose trunk or canopy reaches the world rectangle [x0, x1] x [z0, z1] (inclusive). */
export function treesNear(t: TerrainNoise, x0: number, z0: number, x1: number, z1: number): Tree[] {
  const out: Tree[] = [];
  const gx0 = Math.floor((x0 - CANOPY_RADIUS) / TREE_CELL);
  const gx1 = Math.floor((x1 + CANOPY_RADIUS) / TREE_CELL);
  const gz0 = Math.floor((z0 - CANOPY_RADIUS) / TREE_CELL);
  const gz1 = Math.floor((z1 + CANOPY_RADIUS) / TREE_CELL);
  for (let gz = gz0; gz <= gz1; gz++) {
    for (let gx = gx0; gx <= gx1; gx++) {
      const tree = treeInCell(t, gx, gz);
      if (!tree) continue;
      if (tree.x + CANOPY_RADIUS < x0 || tree.x - CANOPY_RADIUS > x1) continue;
      if (tree.z + CANOPY_RADIUS < z0 || tree.z - CANOPY_RADIUS > z1) continue;
      out.push(tree);
    }
  }
  return out;
}

/** Is world y the tree's trunk at its (x, z)? */
export function isTrunk(tree: Tree, y: number): boolean {
  return y > tree.ground && y <= tree.ground + tree.trunk;
}

/**
 * Does the canopy cover offset (dx, dy, dz) from the trunk top? Shape of a small oak: two
 * 5x5 layers with some corners cut, a 3x3 layer at the trunk top, a plus on top.
 */
export function canopyCovers(tree: Tree, dx: number, dy: number, dz: number): boolean {
  const ax = Math.abs(dx);
  const az = Math.abs(dz);
  if (dy === -2 || dy === -1) {
    if (ax > 2 || az > 2) return false;
    if (ax === 2 && az === 2) {
      // Corner index 0..3 per layer; a set bit cuts that corner.
      const bit = (dy + 2) * 4 + (dx > 0 ? 1 : 0) + (dz > 0 ? 2 : 0);
      return ((tree.corners >>> bit) & 1) === 0;
    }
    return true;
  }
  if (dy === 0) return ax <= 1 && az <= 1;
  if (dy === 1) return ax + az <= 1;
  return false;
}

/** Is world (x, y, z) a leaf of this tree (ignoring what else is there)? */
export function isLeaf(tree: Tree, x: number, y: number, z: number): boolean {
  return canopyCovers(tree, x - tree.x, y - (tree.ground + tree.trunk), z - tree.z);
}

/** Stamps every tree that reaches the chunk into its blocks (terrain must be filled). */
export function plantTrees(t: TerrainNoise, chunk: Chunk): void {
  const ox = chunk.cx * CHUNK_SIZE;
  const oz = chunk.cz * CHUNK_SIZE;
  const trees = treesNear(t, ox, oz, ox + CHUNK_SIZE - 1, oz + CHUNK_SIZE - 1);
  const b = chunk.blocks;
  for (const tree of trees) {
    const lx = tree.x - ox;
    const lz = tree.z - oz;
    if (lx < 0 || lx >= CHUNK_SIZE || lz < 0 || lz >= CHUNK_SIZE) continue;
    for (let y = tree.ground + 1; y <= tree.ground + tree.trunk; y++) b[blockIndex(lx, y, lz)] = WOOD;
  }
  for (const tree of trees) {
    const topY = tree.ground + tree.trunk;
    for (let dz = -CANOPY_RADIUS; dz <= CANOPY_RADIUS; dz++) {
      const lz = tree.z - oz + dz;
      if (lz < 0 || lz >= CHUNK_SIZE) continue;
      for (let dx = -CANOPY_RADIUS; dx <= CANOPY_RADIUS; dx++) {
        const lx = tree.x - ox + dx;
        if (lx < 0 || lx >= CHUNK_SIZE) continue;
        for (let dy = -2; dy <= 1; dy++) {
          if (!canopyCovers(tree, dx, dy, dz)) continue;
          const i = blockIndex(lx, topY + dy, lz);
          // Leaves never replace terrain, water or wood: keeps the result order-independent.
          if (b[i] === AIR) b[i] = LEAVES;
        }
      }
    }
  }
}

