// The player's view of the world: the chunk columns currently loaded, addressed in world
// coordinates. It knows nothing about where chunks come from (terrain, disk, peers) nor
// how they are drawn; it only announces what changed.
import type { Stamp } from '../region/region-state';
import { Emitter } from '../core/emitter';
import { AIR } from '../world/blocks';
import { Chunk } from '../world/chunk';
import { CHUNK_HEIGHT, chunkKey, chunkOf, localOf } from '../world/coords';

/** Returned by blockAt for a column that is not loaded: neither air nor any real block. */
export const UNLOADED = -1;

export interface WorldModelEvents extends Record<string, unknown> {
  chunkLoaded: Chunk;
  chunkUnloaded: { cx: number; cz: number };
  /** `stamp`: the host's order of the edit, when the change came from a region host. */
  blockChanged: { x: number; y: number; z: number; id: number; previous: number; stamp?: Stamp };
}

export class WorldModel {
  readonly events = new Emitter<WorldModelEvents>();
  private readonly chunks = new Map<string, Chunk>();

  get size(): number {
    return this.chunks.size;
  }

  chunk(cx: number, cz: number): Chunk | undefined {
    return this.chunks.get(chunkKey(cx, cz));
  }

  has(cx: number, cz: number): boolean {
    return this.chunks.has(chunkKey(cx, cz));
  }

  loadedKeys(): IterableIterator<string> {
    return this.chunks.keys();
  }

  /** Block id at world coordinates; AIR above and below the column, UNLOADED where no chunk is. */
  blockAt(x: number, y: number, z: number): number {
    if (y < 0 || y >= CHUNK_HEIGHT) return AIR;
    const c = this.chunks.get(chunkKey(chunkOf(x), chunkOf(z)));
    return c ? c.get(localOf(x), Math.floor(y), localOf(z)) : UNLOADED;
  }

  addChunk(chunk: Chunk): void {
    this.chunks.set(chunkKey(chunk.cx, chunk.cz), chunk);
    this.events.emit('chunkLoaded', chunk);
  }

  removeChunk(cx: number, cz: number): void {
    if (this.chunks.delete(chunkKey(cx, cz))) this.events.emit('chunkUnloaded', { cx, cz });
  }

  /** Applies a block change to a loaded column; returns false when the column is not loaded. */
  applyBlock(x: number, y: number, z: number, id: number, stamp?: Stamp): boolean {
    const c = this.chunks.get(chunkKey(chunkOf(x), chunkOf(z)));
    if (!c || y < 0 || y >= CHUNK_HEIGHT) return false;
    const lx = localOf(x), lz = localOf(z);
    const previous = c.get(lx, y, lz);
    if (previous === id) return true;
    c.set(lx, y, lz, id);
    this.events.emit('blockChanged', { x, y, z, id, previous, ...(stamp ? { stamp } : {}) });
    return true;
  }
}
