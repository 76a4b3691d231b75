import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BLOCK_COUNT, BRICK, GLASS } from './blocks';
import { Chunk } from './chunk';
import { EditLog, MAX_EDITS, editAt, type BlockEdit } from './chunk-edits';
import {
  ChunkCodecError,
  EDITS_VERSION,
  FULL_MAGIC,
  FULL_VERSION,
  decodeChunkFull,
  decodeEdits,
  encodeChunkFull,
  encodeEdits,
  type ChunkCodecErrorCode,
} from './chunk-codec';
import { CHUNK_VOLUME } from './coords';
import { generateChunk } from './terrain';

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

async function asyncCodeOf(p: Promise<unknown>): Promise<ChunkCodecErrorCode | undefined> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ChunkCodecError);
    return (e as ChunkCodecError).code;
  }
  return undefined;
}

function full(body: Uint8Array): Uint8Array {
  return Uint8Array.from([FULL_MAGIC, FULL_VERSION, ...body]);
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

describe('full chunk encoding', () => {
  it('round-trips a generated chunk and compresses it well', async () => {
    const c = generateChunk('codec', 5, -9);
    c.set(4, 200, 4, BRICK);
    const bytes = await encodeChunkFull(c);
    expect(bytes.length).toBeLessThan(CHUNK_VOLUME / 20);
    const back = await decodeChunkFull(bytes, 5, -9);
    expect(back.cx).toBe(5);
    expect(back.cz).toBe(-9);
    expect(back.blocks.every((v, i) => v === c.blocks[i])).toBe(true);
  });

  it('round-trips an incompressible chunk', async () => {
    const c = new Chunk(0, 0, Uint8Array.from({ length: CHUNK_VOLUME }, (_, i) => (i * 7919 + (i >> 3) * 31) % BLOCK_COUNT));
    const back = await decodeChunkFull(await encodeChunkFull(c), 0, 0);
    expect(back.blocks.every((v, i) => v === c.blocks[i])).toBe(true);
  });

  it('rejects bad headers, truncation, corruption and bad ids', async () => {
    const good = await encodeChunkFull(generateChunk('codec', 0, 0));
    expect(await asyncCodeOf(decodeChunkFull(good.subarray(0, 2), 0, 0))).toBe('truncated');
    expect(await asyncCodeOf(decodeChunkFull(Uint8Array.of(0, FULL_VERSION, 1, 2), 0, 0))).toBe('bad-version');
    expect(await asyncCodeOf(decodeChunkFull(Uint8Array.of(FULL_MAGIC, 9, 1, 2), 0, 0))).toBe('bad-version');
    const cut = await asyncCodeOf(decodeChunkFull(good.subarray(0, good.length - 10), 0, 0));
    expect(['truncated', 'corrupt']).toContain(cut);
    // BTYPE = 3 is reserved in deflate: corrupt from the first byte.
    expect(await asyncCodeOf(decodeChunkFull(full(Uint8Array.of(0xff, 0xff, 0xff, 0xff)), 0, 0))).toBe('corrupt');
    // Valid deflate, but too short to be a chunk.
    expect(await asyncCodeOf(decodeChunkFull(full(deflateRawSync(new Uint8Array(100))), 0, 0))).toBe('truncated');
    expect(await asyncCodeOf(decodeChunkFull(full(deflateRawSync(new Uint8Array(CHUNK_VOLUME).fill(200))), 0, 0))).toBe('bad-block-id');
  });

  it('stops inflating a decompression bomb at the chunk size', async () => {
    // 64 MiB of zeros deflate to ~64 KiB: small enough to pass the payload size check.
    const bomb = full(deflateRawSync(new Uint8Array(64 * 1024 * 1024)));
    expect(bomb.length).toBeLessThan(CHUNK_VOLUME + 1024);
    const t0 = performance.now();
    expect(await asyncCodeOf(decodeChunkFull(bomb, 0, 0))).toBe('oversize');
    expect(performance.now() - t0).toBeLessThan(2000);
    // One byte too many is already too many.
    expect(await asyncCodeOf(decodeChunkFull(full(deflateRawSync(new Uint8Array(CHUNK_VOLUME + 1))), 0, 0))).toBe('oversize');
  });

  it('rejects a payload larger than any chunk can compress to', async () => {
    expect(await asyncCodeOf(decodeChunkFull(new Uint8Array(CHUNK_VOLUME + 4096).fill(FULL_MAGIC, 0, 1).fill(FULL_VERSION, 1, 2), 0, 0))).toBe('oversize');
  });
});
