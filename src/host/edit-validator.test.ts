// The host's edit rules on their own: block ids, the region, the bedrock floor, reach from
// where the editor stands, and the per-editor rate.
import { describe, expect, it } from 'vitest';
import { AIR, BEDROCK, STONE } from '../world/blocks';
import { EDIT_RULES, EditValidator } from './edit-validator';

const at = (x: number, y: number, z: number, id: number) => ({ x, y, z, id, px: x + 0.5, py: y, pz: z + 2.5 });

describe('edit validator', () => {
  it('refuses unplaceable ids, blocks outside its region or the world, and the bedrock floor', () => {
    const v = new EditValidator({ rx: 0, rz: 0 });
    expect(v.check('a', at(5, 10, 5, BEDROCK), 0)).toBe('bad-block');
    expect(v.check('a', at(5, 10, 5, 9999), 0)).toBe('bad-block');
    expect(v.check('a', at(70, 10, 5, STONE), 0)).toBe('outside-region');
    expect(v.check('a', at(5, 256, 5, STONE), 0)).toBe('outside-region');
    expect(v.check('a', at(5, 0, 5, AIR), 0)).toBe('world-floor');
    expect(v.check('a', at(5, 0, 5, STONE), 0)).toBe('world-floor');
    expect(v.check('a', at(5, 1, 5, AIR), 0)).toBeUndefined();
  });

  it('checks reach from where the editor stands', () => {
    const v = new EditValidator({ rx: 0, rz: 0 });
    expect(v.check('a', { x: 5, y: 10, z: 5, id: STONE, px: 5.5, py: 10, pz: 5.5 + EDIT_RULES.reach + 1 }, 0)).toBe('out-of-reach');
  });

  it('allows a burst, then the sustained rate, per editor', () => {
    const v = new EditValidator({ rx: 0, rz: 0 });
    for (let i = 0; i < EDIT_RULES.burst; i++) expect(v.check('a', at(5, 10 + i, 5, STONE), 0)).toBeUndefined();
    expect(v.check('a', at(5, 40, 5, STONE), 0)).toBe('rate');
    expect(v.check('b', at(5, 40, 5, STONE), 0)).toBeUndefined();
    expect(v.check('a', at(5, 40, 5, STONE), 1000 / EDIT_RULES.ratePerSec)).toBeUndefined();
  });

  it('refuses a solid block inside another player\'s body, not air or a block beside it', () => {
    const v = new EditValidator({ rx: 0, rz: 0 });
    const bodies = [{ x: 5.5, y: 10, z: 5.5 }];
    expect(v.check('a', at(5, 10, 5, STONE), 0, bodies)).toBe('occupied');
    expect(v.check('a', at(5, 11, 5, STONE), 0, bodies)).toBe('occupied');
    expect(v.check('a', at(5, 12, 5, STONE), 0, bodies)).toBeUndefined();
    expect(v.check('a', at(6, 10, 5, STONE), 0, bodies)).toBeUndefined();
    expect(v.check('a', at(5, 10, 5, AIR), 0, bodies)).toBeUndefined();
    // A body straddling two columns occupies both.
    expect(v.check('a', at(6, 10, 5, STONE), 0, [{ x: 6.1, y: 10, z: 5.5 }])).toBe('occupied');
    expect(v.check('a', at(5, 10, 5, STONE), 0, [{ x: 6.1, y: 10, z: 5.5 }])).toBe('occupied');
  });
});
