// Where a player's chunks come from. The one-tab world reads generated terrain plus the
// edits in IndexedDB; the peer-hosted world (later) subscribes to the chunk's hosts. The
// rest of play/ sees only this interface (docs/STYLE.md: noa-engine's worldDataNeeded).
import type { Chunk } from '../world/chunk';

export interface ChunkSource {
  /** The current blocks of a column: generated terrain with every stored edit applied. */
  load(cx: number, cz: number): Promise<Chunk>;
  /** Records a block change; resolves once it is durably stored (or confirmed by a host). */
  commitEdit(x: number, y: number, z: number, id: number): Promise<void>;
  /** The column is no longer needed (unsubscribe, free caches). */
  release?(cx: number, cz: number): void;
}
