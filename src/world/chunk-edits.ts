// A chunk's state is its edit log over the generated terrain: generateChunk(seed, cx, cz)
// with the log applied gives the current chunk. Only the last edit of each block matters,
// so the log is a map from block to id, and it never grows past one entry per block.
import { isValidBlockId } from './blocks';
import { Chunk } from './chunk';
import { CHUNK_HEIGHT, CHUNK_SIZE, CHUNK_VOLUME, blockIndex } from './coords';

/** One block set to `id`, at local coordinates (x, z in 0..15, y in 0..255). */
export interface BlockEdit {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly id: number;
}

/** Most edits a chunk can have: one per block. */
export const MAX_EDITS = CHUNK_VOLUME;

export function isLocalPosition(x: number, y: number, z: number): boolean {
  return (
    Number.isInteger(x) && Number.isInteger(y) && Number.isInteger(z) &&
    x >= 0 && x < CHUNK_SIZE && z >= 0 && z < CHUNK_SIZE && y >= 0 && y < CHUNK_HEIGHT
  );
}

/** Inverse of blockIndex. */
export function editAt(index: number, id: number): BlockEdit {
  return { x: index % CHUNK_SIZE, z: (index >> 4) % CHUNK_SIZE, y: index >> 8, id };
}

export class EditLog {
  // Keyed by blockIndex: a number key is cheap and sorts edits in storage order.
  private readonly ids = new Map<number, number>();

  static from(edits: Iterable<BlockEdit>): EditLog {
    const log = new EditLog();
    for (const e of edits) log.set(e);
    return log;
  }

  get size(): number {
    return this.ids.size;
  }

  /** Records an edit, replacing any earlier edit of the same block. */
  set(e: BlockEdit): void {
    if (!isLocalPosition(e.x, e.y, e.z)) throw new RangeError(`edit outside the chunk: ${e.x},${e.y},${e.z}`);
    if (!isValidBlockId(e.id)) throw new RangeError(`edit with unknown block id ${e.id}`);
    this.ids.set(blockIndex(e.x, e.y, e.z), e.id);
  }

  /** The edited id of a block, or undefined if the block is as generated. */
  get(x: number, y: number, z: number): number | undefined {
    return this.ids.get(blockIndex(x, y, z));
  }

  /** Edits in block-index order, so equal logs encode to equal bytes. */
  edits(): BlockEdit[] {
    return [...this.ids.keys()].sort((a, b) => a - b).map((i) => editAt(i, this.ids.get(i)!));
  }

  /** Writes the edits into `chunk` (normally a freshly generated one) and returns it. */
  applyTo(chunk: Chunk): Chunk {
    for (const [i, id] of this.ids) chunk.blocks[i] = id;
    return chunk;
  }

  /** Drops edits that set a block back to its generated id: they carry no information. */
  prune(generated: Chunk): void {
    for (const [i, id] of this.ids) if (generated.blocks[i] === id) this.ids.delete(i);
  }
}
