// A chunk column: 16 x 16 x 256 block ids at (cx, cz).
import { AIR } from './blocks';
import { CHUNK_HEIGHT, CHUNK_SIZE, CHUNK_VOLUME, blockIndex } from './coords';

export class Chunk {
  readonly blocks: Uint8Array;

  constructor(
    readonly cx: number,
    readonly cz: number,
    blocks?: Uint8Array,
  ) {
    if (blocks && blocks.length !== CHUNK_VOLUME) throw new RangeError(`chunk needs ${CHUNK_VOLUME} bytes, got ${blocks.length}`);
    this.blocks = blocks ?? new Uint8Array(CHUNK_VOLUME);
  }

  get(x: number, y: number, z: number): number {
    if (y < 0 || y >= CHUNK_HEIGHT || x < 0 || x >= CHUNK_SIZE || z < 0 || z >= CHUNK_SIZE) return AIR;
    return this.blocks[blockIndex(x, y, z)]!;
  }

  set(x: number, y: number, z: number, id: number): void {
    if (y < 0 || y >= CHUNK_HEIGHT || x < 0 || x >= CHUNK_SIZE || z < 0 || z >= CHUNK_SIZE) {
      throw new RangeError(`local coordinate out of chunk: ${x},${y},${z}`);
    }
    this.blocks[blockIndex(x, y, z)] = id;
  }
}
