import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE, blockIndex, chunkKey, chunkOf, localOf, parseChunkKey, worldOf } from './coords';

describe('coordinates', () => {
  it.each([
    [-17, -2, 15],
    [-16, -1, 0],
    [-1, -1, 15],
    [0, 0, 0],
    [15, 0, 15],
    [16, 1, 0],
    [17, 1, 1],
  ])('world %i is chunk %i, local %i, and back', (w, c, l) => {
    expect(chunkOf(w)).toBe(c);
    expect(localOf(w)).toBe(l);
    expect(worldOf(chunkOf(w), localOf(w))).toBe(w);
  });

  it('fractional positions (a player at x = -0.5) fall in the block below', () => {
    expect(chunkOf(Math.floor(-0.5))).toBe(-1);
    expect(localOf(-0.5)).toBe(15);
    expect(localOf(16.9)).toBe(0);
  });

  it('round-trips every world coordinate in a span around zero', () => {
    for (let w = -100; w <= 100; w++) {
      const l = localOf(w);
      expect(l).toBeGreaterThanOrEqual(0);
      expect(l).toBeLessThan(CHUNK_SIZE);
      expect(worldOf(chunkOf(w), l)).toBe(w);
    }
  });

  it('block indices are unique and y-major', () => {
    expect(blockIndex(0, 0, 0)).toBe(0);
    expect(blockIndex(15, 0, 0)).toBe(15);
    expect(blockIndex(0, 0, 1)).toBe(16);
    expect(blockIndex(0, 1, 0)).toBe(256);
    expect(blockIndex(15, 255, 15)).toBe(65535);
  });

  it('chunk keys round-trip, negatives included', () => {
    expect(parseChunkKey(chunkKey(-3, 7))).toEqual([-3, 7]);
  });
});
