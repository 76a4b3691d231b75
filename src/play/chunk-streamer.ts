// Keeps the world model filled with the columns around the player: starts loads nearest
// first with a bounded number in flight, drops columns that fell out of range, and
// ignores a load that finishes after its column was no longer wanted.
import { parseChunkKey, chunkKey } from '../world/coords';
import type { ChunkSource } from './chunk-source';
import { isWithin, wantedColumns, type ColumnPos } from './chunk-ring';
import type { WorldModel } from './world-model';

export const DEFAULT_MAX_IN_FLIGHT = 6;

export class ChunkStreamer {
  private readonly inFlight = new Set<string>();
  private centre: ColumnPos = { cx: 0, cz: 0 };
  private distance = 8;
  /** A load ended (or none ran yet): the next update does its work even where nothing moved. */
  private dirty = true;
  /** Last load failure, for the HUD; loads are retried on the next update. */
  lastError: Error | undefined;

  constructor(
    private readonly world: WorldModel,
    private readonly source: ChunkSource,
    private readonly maxInFlight = DEFAULT_MAX_IN_FLIGHT,
  ) {}

  get pending(): number {
    return this.inFlight.size;
  }

  /**
   * Called every frame. The work (every loaded column's key parsed, every wanted column's key
   * built) is done only when something changed since: the centre column, the distance, a load
   * ended. Every frame it was a sizeable part of a walking tab's main thread.
   */
  update(centre: ColumnPos, distance: number): void {
    if (!this.dirty && centre.cx === this.centre.cx && centre.cz === this.centre.cz && distance === this.distance) return;
    this.dirty = false;
    this.centre = centre;
    this.distance = distance;
    for (const key of [...this.world.loadedKeys()]) {
      const [cx, cz] = parseChunkKey(key);
      if (!isWithin(centre, { cx, cz }, distance + 1)) {
        this.world.removeChunk(cx, cz);
        this.source.release?.(cx, cz);
      }
    }
    for (const c of wantedColumns(centre, distance)) {
      if (this.inFlight.size >= this.maxInFlight) break;
      const key = chunkKey(c.cx, c.cz);
      if (this.inFlight.has(key) || this.world.has(c.cx, c.cz)) continue;
      this.start(c, key);
    }
  }

  /** True when every column within `distance` of the centre is loaded. */
  complete(): boolean {
    return wantedColumns(this.centre, this.distance).every((c) => this.world.has(c.cx, c.cz));
  }

  private start(c: ColumnPos, key: string): void {
    this.inFlight.add(key);
    this.source.load(c.cx, c.cz).then(
      (chunk) => {
        this.inFlight.delete(key);
        if (isWithin(this.centre, c, this.distance + 1)) this.world.addChunk(chunk);
        else this.source.release?.(c.cx, c.cz);
        this.dirty = true;
        this.update(this.centre, this.distance);
      },
      (err: unknown) => {
        this.inFlight.delete(key);
        this.dirty = true; // retried on the next update
        this.lastError = err instanceof Error ? err : new Error(String(err));
      },
    );
  }
}
