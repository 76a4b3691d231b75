import { describe, expect, it } from 'vitest';
import { boxCollides } from './physics';
import { AIR, LEAVES, WATER, WOOD } from '../world/blocks';
import { findSpawn, generatedBlockAt } from '../world/world-block';
import { liftClear, openGroundSpawn } from './spawn-point';

const solidGen = (seed: string) => (x: number, y: number, z: number) => {
  const b = generatedBlockAt(seed, x, y, z);
  return b !== AIR && b !== WATER;
};

describe('spawn on open ground', () => {
  it('never starts a new player in a block or a tree, on 200 seeds (findSpawn put 1 in 20 in a crown)', () => {
    let oldInTrees = 0;
    for (let i = 0; i < 200; i++) {
      const seed = `spawn-${i}`;
      const s = openGroundSpawn(seed);
      const x = Math.floor(s.x), z = Math.floor(s.z);
      expect(boxCollides(s.x, s.y, s.z, solidGen(seed)), seed).toBe(false);
      expect([AIR, WATER]).not.toContain(generatedBlockAt(seed, x, s.y - 1, z)); // standing on ground
      for (let dx = -1; dx <= 1; dx++) for (let dz = -1; dz <= 1; dz++) for (let dy = -1; dy <= 3; dy++) {
        expect([WOOD, LEAVES], `${seed} ${dx},${dy},${dz}`).not.toContain(generatedBlockAt(seed, x + dx, s.y + dy, z + dz));
      }
      const old = findSpawn(seed);
      if ([WOOD, LEAVES].includes(generatedBlockAt(seed, Math.floor(old.x), old.y - 1, Math.floor(old.z)))) oldInTrees++;
      expect(Math.hypot(s.x, s.z)).toBeLessThan(300);
    }
    expect(oldInTrees).toBeGreaterThan(0); // the case this guards against does occur
  });

  it('lifts the feet out of whatever was built on the spot', () => {
    const built = new Set(['0,10,0', '0,11,0', '0,12,0']);
    const solid = (x: number, y: number, z: number) => y < 10 || built.has(`${x},${y},${z}`);
    expect(liftClear(solid, 0.5, 10, 0.5)).toBe(13);
    expect(liftClear(solid, 5.5, 10, 5.5)).toBe(10);
  });
});
