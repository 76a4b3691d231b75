import { describe, expect, it } from 'vitest';
import { GRASS, LEAVES, WOOD } from './blocks';
import type { Chunk } from './chunk';
import { CHUNK_HEIGHT, CHUNK_SIZE, chunkOf, localOf } from './coords';
import { terrainNoise } from './heightmap';
import { generateChunk } from './terrain';
import { CANOPY_RADIUS, isLeaf, isTrunk, treesNear, type Tree } from './trees';
import { generatedBlockAt } from './world-block';

const SEED = 'tree-test';

/** The first tree whose canopy crosses the x border between chunk cx and cx + 1. */
function treeOnBorder(): Tree {
  const t = terrainNoise(SEED);
  for (let cx = 0; cx < 64; cx++) {
    const border = (cx + 1) * CHUNK_SIZE;
    for (const tree of treesNear(t, border - 1, 0, border, 16 * CHUNK_SIZE)) {
      if (tree.x >= border - CANOPY_RADIUS && tree.x < border + CANOPY_RADIUS) return tree;
    }
  }
  throw new Error('no tree on a chunk border: the search area is too small');
}

function blockAt(chunks: Map<string, Chunk>, x: number, y: number, z: number): number {
  const key = `${chunkOf(x)},${chunkOf(z)}`;
  let c = chunks.get(key);
  if (!c) chunks.set(key, (c = generateChunk(SEED, chunkOf(x), chunkOf(z))));
  return c.get(localOf(x), y, localOf(z));
}

describe('trees', () => {
  it('grow only on grass', () => {
    const t = terrainNoise(SEED);
    const trees = treesNear(t, -200, -200, 200, 200);
    expect(trees.length).toBeGreaterThan(20);
    const chunks = new Map<string, Chunk>();
    for (const tree of trees) {
      expect(blockAt(chunks, tree.x, tree.ground, tree.z)).toBe(GRASS);
      expect(blockAt(chunks, tree.x, tree.ground + 1, tree.z)).toBe(WOOD);
    }
  });

  it('a tree on a chunk border has its leaves in both chunks', () => {
    const tree = treeOnBorder();
    const top = tree.ground + tree.trunk;
    const chunks = new Map<string, Chunk>();
    const seenIn = new Set<string>();
    for (let dx = -CANOPY_RADIUS; dx <= CANOPY_RADIUS; dx++) {
      for (let dz = -CANOPY_RADIUS; dz <= CANOPY_RADIUS; dz++) {
        for (let y = top - 2; y <= top + 1; y++) {
          const [x, z] = [tree.x + dx, tree.z + dz];
          if (!isLeaf(tree, x, y, z) || (dx === 0 && dz === 0 && isTrunk(tree, y))) continue;
          const id = blockAt(chunks, x, y, z);
          // A leaf gives way only to terrain or another tree's wood, never to air.
          expect(id).not.toBe(0);
          if (id === LEAVES) seenIn.add(`${chunkOf(x)},${chunkOf(z)}`);
        }
      }
    }
    expect(seenIn.size).toBeGreaterThanOrEqual(2);
  });

  it('chunk borders in a 3x3 area agree with the world-position reference', () => {
    // Centre the area on a border tree so the check is not vacuous.
    const tree = treeOnBorder();
    const [ccx, ccz] = [chunkOf(tree.x), chunkOf(tree.z)];
    let treeBlocks = 0;
    for (let cz = ccz - 1; cz <= ccz + 1; cz++) {
      for (let cx = ccx - 1; cx <= ccx + 1; cx++) {
        const c = generateChunk(SEED, cx, cz);
        for (let a = 0; a < CHUNK_SIZE; a++) {
          for (const [x, z] of [[a, 0], [a, CHUNK_SIZE - 1], [0, a], [CHUNK_SIZE - 1, a]] as const) {
            // Trees and surface live well above y = 40; below it is plain stone.
            for (let y = 40; y < CHUNK_HEIGHT; y++) {
              const id = c.get(x, y, z);
              if (id === LEAVES || id === WOOD) treeBlocks++;
              if (id !== generatedBlockAt(SEED, cx * CHUNK_SIZE + x, y, cz * CHUNK_SIZE + z)) {
                throw new Error(`chunk ${cx},${cz} local ${x},${y},${z}: ${id} vs reference`);
              }
            }
          }
        }
      }
    }
    expect(treeBlocks).toBeGreaterThan(0);
  });

  it('neighbouring chunks see the same trees near their shared border', () => {
    const t = terrainNoise(SEED);
    // Trees reaching column x = 15 / 16 asked from the left chunk and the right chunk.
    const left = treesNear(t, 0, 0, 15, 15).filter((tr) => tr.x + CANOPY_RADIUS >= 16);
    const right = treesNear(t, 16, 0, 31, 15).filter((tr) => tr.x - CANOPY_RADIUS <= 15);
    const key = (tr: Tree) => `${tr.x},${tr.z},${tr.ground},${tr.trunk}`;
    expect(new Set(left.map(key))).toEqual(new Set(right.map(key)));
  });
});
