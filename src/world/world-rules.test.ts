import { describe, expect, it } from 'vitest';
import { AIR, BEDROCK, BLOCK_COUNT, PLACEABLE, STONE, WATER } from './blocks';
import { blockIndex, CHUNK_HEIGHT, CHUNK_VOLUME, WORLD_FLOOR_Y } from './coords';
import { blockRuleFault, settableAtIndex } from './world-rules';

describe("the world's rules for a block write", () => {
  it('air and placeable blocks may be set; water, bedrock and unknown ids may not', () => {
    expect(blockRuleFault(5, AIR)).toBeUndefined();
    for (const id of PLACEABLE) expect(blockRuleFault(5, id)).toBeUndefined();
    expect([WATER, BEDROCK, BLOCK_COUNT, -1, 1.5].map((id) => blockRuleFault(5, id))).toEqual(['not-placeable', 'not-placeable', 'bad-block', 'bad-block', 'bad-block']);
  });

  it('says why a write breaks them: the id, then the height, then the floor', () => {
    expect(blockRuleFault(5, STONE)).toBeUndefined();
    expect(blockRuleFault(5, BLOCK_COUNT)).toBe('bad-block');
    expect(blockRuleFault(WORLD_FLOOR_Y, WATER)).toBe('not-placeable');
    expect([blockRuleFault(-1, AIR), blockRuleFault(CHUNK_HEIGHT, AIR), blockRuleFault(2.5, AIR)]).toEqual(['outside-world', 'outside-world', 'outside-world']);
    expect(blockRuleFault(WORLD_FLOOR_Y, AIR)).toBe('world-floor');
  });

  it('judges a block index of any column (an entry key) by its height', () => {
    expect(settableAtIndex(blockIndex(15, WORLD_FLOOR_Y, 15), STONE)).toBe(false);
    expect(settableAtIndex(3 * CHUNK_VOLUME + blockIndex(0, 1, 0), AIR)).toBe(true);
    expect(settableAtIndex(3 * CHUNK_VOLUME + blockIndex(0, 0, 0), AIR)).toBe(false);
    expect(settableAtIndex(blockIndex(0, 9, 0), WATER)).toBe(false);
  });
});
