// The one code path of an edit, shared by a mouse click and window.voxel.setBlock: check
// it, show it at once, store it, and take it back if storing fails.
import { AIR, PLACEABLE, SOLID, isValidBlockId, blockType } from '../world/blocks';
import { CHUNK_HEIGHT, chunkOf } from '../world/coords';
import type { ChunkSource } from './chunk-source';
import { boxCollides, type Body } from './physics';
import type { WorldModel } from './world-model';

export class EditRefused extends Error {
  override readonly name = 'EditRefused';
}

export class BlockEditor {
  /** Edits shown but not yet stored (a reload before they settle would lose them). */
  pending = 0;

  constructor(
    private readonly world: WorldModel,
    private readonly source: ChunkSource,
    private readonly player: () => Body,
  ) {}

  async setBlock(x: number, y: number, z: number, id: number): Promise<void> {
    if (![x, y, z].every(Number.isInteger)) throw new EditRefused(`block coordinates must be integers: ${x},${y},${z}`);
    if (!isValidBlockId(id)) throw new EditRefused(`unknown block id ${id}`);
    if (id !== AIR && !PLACEABLE.includes(id)) throw new EditRefused(`${blockType(id).name} cannot be placed`);
    if (y < 0 || y >= CHUNK_HEIGHT) throw new EditRefused(`y=${y} is outside the world (0..${CHUNK_HEIGHT - 1})`);
    if (!this.world.has(chunkOf(x), chunkOf(z))) throw new EditRefused(`chunk ${chunkOf(x)},${chunkOf(z)} is not loaded`);
    const previous = this.world.blockAt(x, y, z);
    if (previous === id) return;
    if (SOLID[id]) {
      const p = this.player();
      if (boxCollides(p.x, p.y, p.z, (bx, by, bz) => bx === x && by === y && bz === z)) {
        throw new EditRefused('cannot place a block inside the player');
      }
    }
    this.world.applyBlock(x, y, z, id);
    this.pending++;
    try {
      await this.source.commitEdit(x, y, z, id);
    } catch (err) {
      // Roll back only if nothing newer overwrote the block meanwhile.
      if (this.world.blockAt(x, y, z) === id) this.world.applyBlock(x, y, z, previous);
      throw err;
    } finally {
      this.pending--;
    }
  }
}
