import { describe, expect, it } from 'vitest';
import { BLOCK_COUNT, BRICK, GLASS } from './blocks';
import { EditLog, MAX_EDITS, editAt, type BlockEdit } from './chunk-edits';
import {
  ChunkCodecError,
  EDITS_VERSION,
  decodeEdits,
  encodeEdits,
  type ChunkCodecErrorCode,
} from './chunk-codec';

function codeOf(f: () => unknown): ChunkCodecErrorCode | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ChunkCodecError);
    expect((e as Error).name).toBe('ChunkCodecError');
    return (e as ChunkCodecError).code;
  }
  return undefined;
}

const SOME: BlockEdit[] = [
  { x: 0, y: 0, z: 0, id: 0 },
  { x: 15, y: 255, z: 15, id: BLOCK_COUNT - 1 },
  { x: 3, y: 64, z: 9, id: BRICK },
  { x: 9, y: 64, z: 3, id: GLASS },
];

describe('edit encoding', () => {
  it('round-trips no edits, a few, and one per block of the chunk', () => {
    expect(decodeEdits(encodeEdits([]))).toEqual([]);
    expect(encodeEdits([]).length).toBe(2);
    expect(decodeEdits(encodeEdits(SOME))).toEqual(EditLog.from(SOME).edits());
    const all = Array.from({ length: MAX_EDITS }, (_, i) => editAt(i, i % BLOCK_COUNT));
    const bytes = encodeEdits(all);
    expect(bytes.length).toBe(1 + 3 + 3 * MAX_EDITS);
    expect(decodeEdits(bytes)).toEqual(all);
  });

  it('costs 3 bytes per edit plus a small header', () => {
    expect(encodeEdits(SOME).length).toBe(2 + 3 * SOME.length);
  });

  it('encodes equal logs to equal bytes, keeping the last edit of a block', () => {
    const a = encodeEdits([...SOME, { x: 3, y: 64, z: 9, id: GLASS }]);
    const b = encodeEdits(EditLog.from([...SOME].reverse().concat({ x: 3, y: 64, z: 9, id: GLASS })));
    expect(a).toEqual(b);
    expect(decodeEdits(a).find((e) => e.x === 3 && e.z === 9)?.id).toBe(GLASS);
  });

  it('rejects malformed input with a typed error', () => {
    const good = encodeEdits(SOME);
    expect(codeOf(() => decodeEdits('nope' as unknown as Uint8Array))).toBe('not-bytes');
    expect(codeOf(() => decodeEdits(new Uint8Array()))).toBe('truncated');
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION)))).toBe('truncated');
    expect(codeOf(() => decodeEdits(good.subarray(0, good.length - 1)))).toBe('truncated');
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION, 0x80)))).toBe('truncated');
    expect(codeOf(() => decodeEdits(Uint8Array.of(2, 0)))).toBe('bad-version');
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION, 1, 0, 10, BLOCK_COUNT)))).toBe('bad-block-id');
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION, 1, 0, 10, 255)))).toBe('bad-block-id');
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION, 2, 0x12, 10, 1, 0x12, 10, 2)))).toBe('duplicate-edit');
    expect(codeOf(() => decodeEdits(Uint8Array.of(...good, 0)))).toBe('trailing-bytes');
    // 65537 edits: one more than there are blocks.
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION, 0x81, 0x80, 0x04)))).toBe('too-many-edits');
    // A 4-byte count can only be an attack or garbage.
    expect(codeOf(() => decodeEdits(Uint8Array.of(EDITS_VERSION, 0xff, 0xff, 0xff, 0x7f)))).toBe('too-many-edits');
  });

  it('never returns garbage for random input', () => {
    let seed = 1;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    for (let n = 0; n < 500; n++) {
      const bytes = Uint8Array.from({ length: 1 + (n % 20) }, rnd);
      try {
        for (const e of decodeEdits(bytes)) expect(e.id).toBeLessThan(BLOCK_COUNT);
      } catch (e) {
        expect(e).toBeInstanceOf(ChunkCodecError);
      }
    }
  });
});
