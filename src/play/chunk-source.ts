// Where a player's chunks come from. The one-tab world reads generated terrain plus the
// edits in IndexedDB; the shared world subscribes to the regions' hosts. The rest of play/
// sees only this interface (docs/STYLE.md: noa-engine's worldDataNeeded), and the app
// applies `blocks` events the same way whichever source it has.
import type { Emitter } from '../core/emitter';
import type { Stamp } from '../region/region-state';
import type { Chunk } from '../world/chunk';

/** One block as it now is, in world coordinates. */
export interface BlockChange {
  x: number;
  y: number;
  z: number;
  id: number;
  /** The host's order of the edit that made it (shared world), which the editor's CONFIRM also names. */
  stamp?: Stamp;
  /** Ordered by the host but not committed yet (shared world): drawn now, and taken back if it never commits. */
  pending?: boolean;
}

export interface ChunkSourceEvents extends Record<string, unknown> {
  /** Blocks changed by someone else (and our own edits echoed back): apply to the WorldModel. */
  blocks: { changes: BlockChange[] };
}

export interface ChunkSource {
  /** Changes to loaded columns made elsewhere; a source nobody else writes never emits. */
  readonly events: Pick<Emitter<ChunkSourceEvents>, 'on' | 'once' | 'off'>;
  /** The current blocks of a column: generated terrain with every stored edit applied. */
  load(cx: number, cz: number): Promise<Chunk>;
  /** Records a block change; resolves once it is durably stored (or confirmed by a host). */
  commitEdit(x: number, y: number, z: number, id: number): Promise<void>;
  /** The column is no longer needed (unsubscribe, free caches). */
  release?(cx: number, cz: number): void;
}
