// A chunk's encoding for the wire and the disk: its edits, since a chunk's state is its edits
// over generated terrain (a whole chunk is never sent: every peer generates the terrain).
//     [version u8 = 1][count varint][count x (xz u8 = x << 4 | z, y u8, id u8)]
//     in block-index order; 3 bytes per edit.
// The decoder trusts nothing: its bytes come from other peers. Bad input throws ChunkCodecError.
import { BLOCK_COUNT } from './blocks';
import { ChunkCodecError } from './chunk-codec-error';
import { EditLog, MAX_EDITS, editAt, type BlockEdit } from './chunk-edits';
import { CHUNK_VOLUME, blockIndex } from './coords';

export { ChunkCodecError, type ChunkCodecErrorCode } from './chunk-codec-error';

export const EDITS_VERSION = 1;
const EDIT_BYTES = 3;
/** A count up to MAX_EDITS (2^16) needs at most 3 varint bytes. */
const MAX_VARINT_BYTES = 3;

function assertBytes(bytes: unknown): asserts bytes is Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw new ChunkCodecError('not-bytes', 'input is not a Uint8Array');
}

export function encodeEdits(edits: EditLog | Iterable<BlockEdit>): Uint8Array {
  const list = (edits instanceof EditLog ? edits : EditLog.from(edits)).edits();
  let count = list.length;
  const head: number[] = [EDITS_VERSION];
  do {
    head.push((count & 0x7f) | (count > 0x7f ? 0x80 : 0));
    count >>>= 7;
  } while (count > 0);
  const out = new Uint8Array(head.length + list.length * EDIT_BYTES);
  out.set(head);
  let p = head.length;
  for (const e of list) {
    out[p++] = (e.x << 4) | e.z;
    out[p++] = e.y;
    out[p++] = e.id;
  }
  return out;
}

export function decodeEdits(bytes: Uint8Array): BlockEdit[] {
  assertBytes(bytes);
  if (bytes.length < 2) throw new ChunkCodecError('truncated', `edits need at least 2 bytes, got ${bytes.length}`);
  if (bytes[0] !== EDITS_VERSION) throw new ChunkCodecError('bad-version', `unknown edits version ${bytes[0]}`);
  let count = 0;
  let p = 1;
  for (let shift = 0; ; shift += 7) {
    if (p - 1 >= MAX_VARINT_BYTES) throw new ChunkCodecError('too-many-edits', 'edit count varint is too long');
    const b = bytes[p++];
    if (b === undefined) throw new ChunkCodecError('truncated', 'edit count is cut off');
    count += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) break;
  }
  if (count > MAX_EDITS) throw new ChunkCodecError('too-many-edits', `${count} edits, at most ${MAX_EDITS} allowed`);
  const need = p + count * EDIT_BYTES;
  if (bytes.length < need) throw new ChunkCodecError('truncated', `${count} edits need ${need} bytes, got ${bytes.length}`);
  if (bytes.length > need) throw new ChunkCodecError('trailing-bytes', `${bytes.length - need} bytes after the last edit`);

  // One bit per block to catch duplicates: an encoder never writes a block twice.
  const seen = new Uint8Array(CHUNK_VOLUME >> 3);
  const out: BlockEdit[] = new Array<BlockEdit>(count);
  for (let k = 0; k < count; k++, p += EDIT_BYTES) {
    const xz = bytes[p]!;
    const y = bytes[p + 1]!;
    const id = bytes[p + 2]!;
    if (id >= BLOCK_COUNT) throw new ChunkCodecError('bad-block-id', `edit ${k} has unknown block id ${id}`);
    const i = blockIndex(xz >> 4, y, xz & 15);
    if (seen[i >> 3]! & (1 << (i & 7))) throw new ChunkCodecError('duplicate-edit', `edit ${k} repeats block ${xz >> 4},${y},${xz & 15}`);
    seen[i >> 3]! |= 1 << (i & 7);
    out[k] = editAt(i, id);
  }
  return out;
}
