// The one code path of an edit, shared by a mouse click and window.voxel.setBlock: check
// it, show it at once, store it, and take it back if storing fails. In the shared world an
// edit no certified primary can confirm is kept tentative by the source (still shown,
// stored locally): setBlock then resolves with `confirmed: false`.
import type { Stamp } from '../region/region-state';
import { EditRefused } from '../world/edit-error';
import { SOLID, blockType } from '../world/blocks';
import { CHUNK_HEIGHT, chunkOf } from '../world/coords';
import { blockRuleFault, type BlockRuleFault } from '../world/world-rules';
import type { ChunkSource } from './chunk-source';
import { boxCollides, type Body } from './physics';
import type { WorldModel } from './world-model';

export { EditRefused };

export interface EditOutcome {
  /** False while the edit is only kept locally (tentative), not confirmed by a host. */
  confirmed: boolean;
  /** The stamp the region's primary gave it (confirmed in the shared world): every tab's change carries it too. */
  stamp?: Stamp;
}

/** A source that can keep an edit tentative instead of failing it. */
export interface TentativeAware {
  submitEdit(x: number, y: number, z: number, id: number): Promise<EditOutcome>;
  isTentative(x: number, y: number, z: number): boolean;
}

export class BlockEditor {
  /** Edits shown but not yet stored (a reload before they settle would lose them). */
  unsettled = 0;

  constructor(
    private readonly world: WorldModel,
    private readonly source: ChunkSource & Partial<TentativeAware>,
    private readonly player: () => Body,
  ) {}

  /** Resolves once stored: confirmed, or (shared world, no certified primary) kept tentative. */
  async setBlock(x: number, y: number, z: number, id: number): Promise<EditOutcome> {
    if (![x, y, z].every(Number.isInteger)) throw new EditRefused('bad-coords', `block coordinates must be integers: ${x},${y},${z}`);
    const fault = blockRuleFault(y, id);
    if (fault) throw new EditRefused(fault, faultMessage(fault, y, id));
    if (!this.world.has(chunkOf(x), chunkOf(z))) throw new EditRefused('not-loaded', `chunk ${chunkOf(x)},${chunkOf(z)} is not loaded`);
    const previous = this.world.blockAt(x, y, z);
    if (previous === id) return { confirmed: !this.source.isTentative?.(x, y, z) };
    if (SOLID[id]) {
      const p = this.player();
      if (boxCollides(p.x, p.y, p.z, (bx, by, bz) => bx === x && by === y && bz === z)) {
        throw new EditRefused('inside-player', 'cannot place a block inside the player');
      }
    }
    this.world.applyBlock(x, y, z, id);
    this.unsettled++;
    try {
      if (this.source.submitEdit) return await this.source.submitEdit(x, y, z, id);
      await this.source.commitEdit(x, y, z, id);
      return { confirmed: true };
    } catch (err) {
      // Roll back only if nothing newer overwrote the block meanwhile.
      if (this.world.blockAt(x, y, z) === id) this.world.applyBlock(x, y, z, previous);
      throw err;
    } finally {
      this.unsettled--;
    }
  }
}

function faultMessage(fault: BlockRuleFault, y: number, id: number): string {
  switch (fault) {
    case 'bad-block':
      return `unknown block id ${id}`;
    case 'not-placeable':
      return `${blockType(id).name} cannot be placed`;
    case 'outside-world':
      return `y=${y} is outside the world (0..${CHUNK_HEIGHT - 1})`;
    case 'world-floor':
      return 'the bedrock floor cannot be changed';
  }
}
