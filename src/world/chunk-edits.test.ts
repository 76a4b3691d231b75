import { describe, expect, it } from 'vitest';
import { AIR, BRICK, GLASS, STONE } from './blocks';
import { Chunk } from './chunk';
import { EditLog } from './chunk-edits';
import { blockIndex } from './coords';
import { generateChunk } from './terrain';

describe('edit log', () => {
  it('keeps only the last edit per block', () => {
    const log = EditLog.from([
      { x: 1, y: 70, z: 2, id: BRICK },
      { x: 1, y: 70, z: 2, id: GLASS },
      { x: 0, y: 0, z: 0, id: AIR },
    ]);
    expect(log.size).toBe(2);
    expect(log.get(1, 70, 2)).toBe(GLASS);
    expect(log.get(5, 5, 5)).toBeUndefined();
  });

  it('lists edits in block-index order whatever the order they were made', () => {
    const a = EditLog.from([{ x: 3, y: 9, z: 0, id: 1 }, { x: 0, y: 1, z: 0, id: 2 }, { x: 15, y: 1, z: 15, id: 3 }]);
    expect(a.edits()).toEqual([
      { x: 0, y: 1, z: 0, id: 2 },
      { x: 15, y: 1, z: 15, id: 3 },
      { x: 3, y: 9, z: 0, id: 1 },
    ]);
  });

  it('rejects positions outside the chunk and unknown ids', () => {
    const log = new EditLog();
    expect(() => log.set({ x: 16, y: 0, z: 0, id: 1 })).toThrow(RangeError);
    expect(() => log.set({ x: 0, y: 256, z: 0, id: 1 })).toThrow(RangeError);
    expect(() => log.set({ x: -1, y: 0, z: 0, id: 1 })).toThrow(RangeError);
    expect(() => log.set({ x: 0.5, y: 0, z: 0, id: 1 })).toThrow(RangeError);
    expect(() => log.set({ x: 0, y: 0, z: 0, id: 200 })).toThrow(RangeError);
  });

  it('generated terrain + log = current chunk: the log\'s blocks set, every other block as generated', () => {
    const generated = generateChunk('edits', -2, 3);
    const log = EditLog.from([
      { x: 0, y: 100, z: 0, id: BRICK },
      { x: 15, y: 1, z: 15, id: AIR },
      { x: 7, y: 255, z: 8, id: STONE },
    ]);
    const current = log.applyTo(new Chunk(-2, 3, generated.blocks.slice()));
    expect(current.get(0, 100, 0)).toBe(BRICK);
    const want = generated.blocks.slice();
    for (const e of log.edits()) want[blockIndex(e.x, e.y, e.z)] = e.id;
    expect(current.blocks).toEqual(want);
  });

  it('prunes edits that restore the generated block', () => {
    const generated = generateChunk('edits', 0, 0);
    const log = EditLog.from([
      { x: 1, y: 0, z: 1, id: generated.get(1, 0, 1) },
      { x: 1, y: 200, z: 1, id: BRICK },
    ]);
    log.prune(generated);
    expect(log.edits()).toEqual([{ x: 1, y: 200, z: 1, id: BRICK }]);
  });
});
