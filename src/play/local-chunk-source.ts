// The one-tab world's chunk source: terrain generated from the seed, with the edits kept
// in this browser's IndexedDB applied on top. Each chunk's whole edit log is rewritten
// on every edit; IndexedDB runs read-write transactions on one store in the order they
// were opened, so the last write always holds every edit.
import { Emitter } from '../core/emitter';
import type { WorldStore } from '../store/world-store';
import type { Chunk } from '../world/chunk';
import { decodeEdits, encodeEdits } from '../world/chunk-codec';
import { EditLog } from '../world/chunk-edits';
import { chunkKey, chunkOf, localOf } from '../world/coords';
import { generateChunk } from '../world/terrain';
import type { ChunkSource, ChunkSourceEvents } from './chunk-source';

export class LocalChunkSource implements ChunkSource {
  /** Never emits: in the one-tab world nobody else writes. */
  readonly events = new Emitter<ChunkSourceEvents>();
  private readonly logs = new Map<string, Promise<EditLog>>();

  /** `store` null: storage is unavailable; edits live only as long as the tab (the UI says so). */
  constructor(private readonly seed: string, private readonly store: WorldStore | null) {}

  private log(cx: number, cz: number): Promise<EditLog> {
    const key = chunkKey(cx, cz);
    let p = this.logs.get(key);
    if (!p) {
      p = (async () => {
        const bytes = await this.store?.loadChunkEdits(cx, cz);
        return bytes ? EditLog.from(decodeEdits(bytes)) : new EditLog();
      })();
      this.logs.set(key, p);
      p.catch(() => this.logs.delete(key)); // retry the read next time
    }
    return p;
  }

  async load(cx: number, cz: number): Promise<Chunk> {
    const log = await this.log(cx, cz);
    return log.applyTo(generateChunk(this.seed, cx, cz));
  }

  async commitEdit(x: number, y: number, z: number, id: number): Promise<void> {
    const cx = chunkOf(x), cz = chunkOf(z);
    const log = await this.log(cx, cz);
    log.set({ x: localOf(x), y, z: localOf(z), id });
    await this.store?.saveChunkEdits(cx, cz, encodeEdits(log));
  }

  release(cx: number, cz: number): void {
    this.logs.delete(chunkKey(cx, cz));
  }
}
