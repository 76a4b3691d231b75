import { describe, expect, it } from 'vitest';
import { AIR, BEDROCK, GRASS, SAND, SNOW, STONE, WATER, isValidBlockId } from './blocks';
import { describeColumn } from './column-profile';
import { CHUNK_HEIGHT, CHUNK_SIZE, blockIndex } from './coords';
import { MAX_TOP, MIN_TOP, WATER_LEVEL, terrainNoise } from './heightmap';
import { generateChunk } from './terrain';
import { generatedBlockAt } from './world-block';

const SEED = 'terrain-test';

// toEqual on 64 KiB arrays is slow and prints unreadable diffs; compare bytes directly.
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

describe('terrain generation', () => {
  it('is deterministic: same seed and chunk, same bytes', () => {
    for (const [cx, cz] of [[0, 0], [-3, 5], [120, -77]] as const) {
      expect(sameBytes(generateChunk(SEED, cx, cz).blocks, generateChunk(SEED, cx, cz).blocks)).toBe(true);
    }
  });

  it('does not depend on what was generated before (noise cache eviction)', () => {
    const first = generateChunk(SEED, 4, -4).blocks;
    for (let i = 0; i < 6; i++) generateChunk(`other-${i}`, 4, -4);
    expect(sameBytes(generateChunk(SEED, 4, -4).blocks, first)).toBe(true);
  });

  it('differs with another seed and in another chunk', () => {
    const a = generateChunk(SEED, 2, 2).blocks;
    expect(sameBytes(generateChunk(SEED + '!', 2, 2).blocks, a)).toBe(false);
    expect(sameBytes(generateChunk(SEED, 3, 2).blocks, a)).toBe(false);
  });

  it('puts bedrock at y = 0 and only known block ids everywhere', () => {
    const c = generateChunk(SEED, -1, -1);
    for (let z = 0; z < CHUNK_SIZE; z++) for (let x = 0; x < CHUNK_SIZE; x++) expect(c.get(x, 0, z)).toBe(BEDROCK);
    expect(c.blocks.every(isValidBlockId)).toBe(true);
  });

  it('fills low columns with water up to the water level, and air above', () => {
    let wet = 0;
    for (let cx = -6; cx <= 6; cx += 3) {
      for (let cz = -6; cz <= 6; cz += 3) {
        const c = generateChunk(SEED, cx, cz);
        for (let z = 0; z < CHUNK_SIZE; z++) {
          for (let x = 0; x < CHUNK_SIZE; x++) {
            const top = describeColumn(terrainNoise(SEED), cx * CHUNK_SIZE + x, cz * CHUNK_SIZE + z).top;
            if (top >= WATER_LEVEL) continue;
            wet++;
            expect(c.get(x, top + 1, z)).toBe(WATER);
            expect(c.get(x, WATER_LEVEL, z)).toBe(WATER);
            expect(c.get(x, WATER_LEVEL + 1, z)).toBe(AIR);
            // Under water the floor is sand or gravel, never grass.
            expect(c.get(x, top, z)).not.toBe(GRASS);
          }
        }
      }
    }
    expect(wet).toBeGreaterThan(0);
  });

  it('keeps heights in range and makes seas, beaches, hills, mountains and snow', () => {
    const t = terrainNoise(SEED);
    const seen = new Set<number>();
    let min = Infinity;
    let max = -Infinity;
    let underwater = 0;
    let n = 0;
    for (let z = -4000; z <= 4000; z += 37) {
      for (let x = -4000; x <= 4000; x += 37) {
        const col = describeColumn(t, x, z);
        min = Math.min(min, col.top);
        max = Math.max(max, col.top);
        if (col.top < WATER_LEVEL) underwater++;
        seen.add(col.surface);
        n++;
      }
    }
    expect(min).toBeGreaterThanOrEqual(MIN_TOP);
    expect(max).toBeLessThanOrEqual(MAX_TOP);
    expect(min).toBeLessThan(WATER_LEVEL - 5);
    expect(max).toBeGreaterThan(WATER_LEVEL + 60);
    // Neither a water world nor a desert of land.
    expect(underwater / n).toBeGreaterThan(0.15);
    expect(underwater / n).toBeLessThan(0.7);
    for (const id of [GRASS, SAND, STONE, SNOW]) expect(seen.has(id)).toBe(true);
  });

  it('layers grass over 3-4 dirt over stone', () => {
    const c = generateChunk(SEED, 0, 0);
    let grass = 0;
    for (let z = 0; z < CHUNK_SIZE; z++) {
      for (let x = 0; x < CHUNK_SIZE; x++) {
        const col = describeColumn(terrainNoise(SEED), x, z);
        if (col.surface !== GRASS) continue;
        grass++;
        expect(c.get(x, col.top, z)).toBe(GRASS);
        expect(col.fillerDepth === 3 || col.fillerDepth === 4).toBe(true);
        for (let d = 1; d <= col.fillerDepth; d++) expect(c.get(x, col.top - d, z)).not.toBe(STONE);
        expect(c.get(x, col.top - col.fillerDepth - 1, z)).toBe(STONE);
      }
    }
    expect(grass).toBeGreaterThan(0);
  });

  it('agrees block for block with the point query generatedBlockAt', () => {
    const [cx, cz] = [1, -2];
    const c = generateChunk(SEED, cx, cz);
    // Every 5th column keeps the test fast while covering all x and z residues.
    for (let k = 0; k < CHUNK_SIZE * CHUNK_SIZE; k += 5) {
      const x = k % CHUNK_SIZE;
      const z = k >> 4;
      for (let y = 0; y < CHUNK_HEIGHT; y++) {
        expect(c.blocks[blockIndex(x, y, z)]).toBe(generatedBlockAt(SEED, cx * CHUNK_SIZE + x, y, cz * CHUNK_SIZE + z));
      }
    }
  });
});
