import { describe, expect, it } from 'vitest';
import { AIR, LEAVES, SOLID, WATER, WOOD } from './blocks';
import { CHUNK_HEIGHT, chunkOf, localOf } from './coords';
import { WATER_LEVEL, terrainNoise } from './heightmap';
import { generateChunk } from './terrain';
import { treesNear } from './trees';
import { findSpawn, generatedBlockAt, surfaceHeight } from './world-block';

const SEED = 'spawn-test';

function topSolid(x: number, z: number): number {
  const c = generateChunk(SEED, chunkOf(x), chunkOf(z));
  for (let y = CHUNK_HEIGHT - 1; y >= 0; y--) if (SOLID[c.get(localOf(x), y, localOf(z))]) return y;
  return -1;
}

describe('point queries', () => {
  it('surfaceHeight is the top solid block + 1, without generating a chunk', () => {
    for (const [x, z] of [[0, 0], [-1, -1], [123, -456], [-1000, 77], [16, 15]] as const) {
      expect(surfaceHeight(SEED, x, z)).toBe(topSolid(x, z) + 1);
    }
  });

  it('surfaceHeight counts trees: a player lands on the canopy, not inside the trunk', () => {
    const tree = treesNear(terrainNoise(SEED), 0, 0, 300, 300)[0]!;
    expect(surfaceHeight(SEED, tree.x, tree.z)).toBe(topSolid(tree.x, tree.z) + 1);
    expect(surfaceHeight(SEED, tree.x, tree.z)).toBeGreaterThan(tree.ground + tree.trunk);
    expect([WOOD, LEAVES]).toContain(generatedBlockAt(SEED, tree.x, surfaceHeight(SEED, tree.x, tree.z) - 1, tree.z));
  });

  it('surfaceHeight floors fractional positions', () => {
    expect(surfaceHeight(SEED, -0.5, 3.7)).toBe(surfaceHeight(SEED, -1, 3));
  });

  it('findSpawn stands on dry land with air to breathe', () => {
    const s = findSpawn(SEED);
    expect(s.y).toBeGreaterThan(WATER_LEVEL);
    const [x, z] = [Math.floor(s.x), Math.floor(s.z)];
    expect(SOLID[generatedBlockAt(SEED, x, s.y - 1, z)]).toBe(1);
    expect(generatedBlockAt(SEED, x, s.y, z)).toBe(AIR);
    expect(generatedBlockAt(SEED, x, s.y + 1, z)).toBe(AIR);
    expect(findSpawn(SEED)).toEqual(s);
  });

  it('generatedBlockAt is air outside the world height and water in the sea', () => {
    expect(generatedBlockAt(SEED, 0, -1, 0)).toBe(AIR);
    expect(generatedBlockAt(SEED, 0, CHUNK_HEIGHT, 0)).toBe(AIR);
    for (let x = 0; x < 5000; x += 13) {
      if (surfaceHeight(SEED, x, 0) <= WATER_LEVEL - 2) {
        expect(generatedBlockAt(SEED, x, WATER_LEVEL, 0)).toBe(WATER);
        return;
      }
    }
    throw new Error('no sea found along z = 0');
  });
});
