// The chunk source of a page whose first frame waits for nothing of the network: until the
// terrain around the player is first drawn (`drawn`), a column is the terrain its world's
// seed generates, which every tab draws alike. Once the real source is there (the shared
// world's, when the node id is minted and the tab has joined; or the one-tab world's), each
// column answered from the seed is loaded again through it, and where the real column
// differs from the seed's terrain (the region's edits, pending ones, this tab's tentative
// edits) a block change is announced, as a host's are: the seed's terrain was shown, never an
// edit that no host ordered. Blocks changed since (another tab's edit reported meanwhile, the
// player's own) are not touched: only where the real column differs from the seed's is it
// written. After the first frame, with the real source there, loads go to it. Edits made
// before it is there wait for it (the editor shows them unsettled).
import { Emitter } from '../core/emitter';
import type { Chunk } from '../world/chunk';
import { CHUNK_SIZE, chunkKey, worldOf } from '../world/coords';
import { generateChunk } from '../world/terrain';
import type { EditOutcome, TentativeAware } from './block-editor';
import type { BlockChange, ChunkSource, ChunkSourceEvents } from './chunk-source';
import { DEFAULT_MAX_IN_FLIGHT } from './chunk-streamer';

type RealSource = ChunkSource & Partial<TentativeAware>;

/**
 * Merges under way at once, as many as the streamer loads: begun all at once, a view's far
 * regions' DHT reads (16 at render distance 8) held up the near regions' snapshots.
 */
const MERGES_AT_ONCE = DEFAULT_MAX_IN_FLIGHT;

export class SeedFirstSource implements ChunkSource, TentativeAware {
  readonly events = new Emitter<ChunkSourceEvents>();
  private real: RealSource | undefined;
  private attachReal!: (real: RealSource) => void;
  private readonly attached = new Promise<RealSource>((resolve) => (this.attachReal = resolve));
  /** Columns answered from the seed before the attach and not released: merged at the attach. Insertion order is the streamer's, nearest first. */
  private readonly fromSeed = new Set<string>();
  /** Each seed column's merge under way (ended: merged, or its real load failed). */
  private readonly merges = new Map<string, Promise<void>>();
  /** The terrain around the player was drawn: no more columns from the seed once the real source is there. */
  private firstDrawn = false;
  private mergesRunning = 0;
  /** Merges waiting for a slot, nearest first (the streamer's order). */
  private readonly mergeQueue: (() => void)[] = [];
  /** Columns whose real load failed at the merge: they stay as the seed drew them. */
  mergeFailures = 0;

  /**
   * `nextTask`: resolves in a later task. A seed column is generated one a task: the streamer
   * starts the next load as one ends, so generated at once every column of the view (289 at
   * render distance 8) was made in one task, seconds on a busy machine, before a frame could
   * draw the nearest.
   */
  constructor(private readonly seed: string, private readonly nextTask: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0))) {}

  /**
   * Takes the real source: edits go to it, its block changes are passed on, every column
   * answered from the seed is loaded through it again and merged (`whenMerged`), and once
   * the first frame is drawn loads go to it.
   */
  attach(real: RealSource): void {
    if (this.real) throw new Error('the real chunk source is attached already');
    this.real = real;
    real.events.on('blocks', (e) => this.events.emit('blocks', e));
    this.attachReal(real);
    for (const key of this.fromSeed) this.startMerge(real, key);
    this.fromSeed.clear();
  }

  /** The terrain around the player is drawn: once the real source is there, columns are loaded through it. */
  drawn(): void {
    this.firstDrawn = true;
  }

  /**
   * Resolves once column (cx, cz) shows what the real source says: at once for a column it
   * loaded itself (or never loaded), else once its merge has ended (after the attach).
   */
  async whenMerged(cx: number, cz: number): Promise<void> {
    await this.attached;
    await this.merges.get(chunkKey(cx, cz));
  }

  async load(cx: number, cz: number): Promise<Chunk> {
    if (this.real && this.firstDrawn) return this.real.load(cx, cz);
    await this.nextTask();
    if (this.real && this.firstDrawn) return this.real.load(cx, cz);
    const key = chunkKey(cx, cz);
    // Merged a task on, once the streamer has put the column in the world (its changes are
    // for a loaded column).
    if (this.real) this.startMerge(this.real, key);
    else this.fromSeed.add(key);
    return generateChunk(this.seed, cx, cz);
  }

  async commitEdit(x: number, y: number, z: number, id: number): Promise<void> {
    await (await this.attached).commitEdit(x, y, z, id);
  }

  async submitEdit(x: number, y: number, z: number, id: number): Promise<EditOutcome> {
    const real = await this.attached;
    if (real.submitEdit) return real.submitEdit(x, y, z, id);
    await real.commitEdit(x, y, z, id);
    return { confirmed: true };
  }

  isTentative(x: number, y: number, z: number): boolean {
    return this.real?.isTentative?.(x, y, z) ?? false;
  }

  release(cx: number, cz: number): void {
    if (this.fromSeed.delete(chunkKey(cx, cz))) return;
    this.real?.release?.(cx, cz);
  }

  private startMerge(real: RealSource, key: string): void {
    const merge: Promise<void> = this.slot().then(() => this.merge(real, key).finally(() => this.freeSlot())).finally(() => {
      if (this.merges.get(key) === merge) this.merges.delete(key);
    });
    this.merges.set(key, merge);
  }

  /** A merge's turn: a task on at least (the streamer puts the column in the world first), and one of MERGES_AT_ONCE. */
  private async slot(): Promise<void> {
    await this.nextTask();
    if (this.mergesRunning < MERGES_AT_ONCE) {
      this.mergesRunning++;
      return;
    }
    await new Promise<void>((resolve) => this.mergeQueue.push(resolve)); // handed its slot by freeSlot
  }

  private freeSlot(): void {
    const next = this.mergeQueue.shift();
    if (next) next();
    else this.mergesRunning--;
  }

  /** One seed column loaded through the real source: where it differs from the seed's terrain, a block change. */
  private async merge(real: RealSource, key: string): Promise<void> {
    const [cx, cz] = key.split(',').map(Number) as [number, number];
    let chunk: Chunk;
    try {
      chunk = await real.load(cx, cz);
    } catch {
      this.mergeFailures++;
      return;
    }
    const changes = seedDifferences(generateChunk(this.seed, cx, cz), chunk);
    if (changes.length > 0) this.events.emit('blocks', { changes });
  }
}

/** The blocks of `real` that differ from `seeded` (the same column), in world coordinates. */
export function seedDifferences(seeded: Chunk, real: Chunk): BlockChange[] {
  const changes: BlockChange[] = [];
  const a = seeded.blocks, b = real.blocks;
  const layer = CHUNK_SIZE * CHUNK_SIZE;
  for (let i = 0; i < b.length; i++) {
    if (a[i] === b[i]) continue;
    // blockIndex (world/coords.ts): (y * CHUNK_SIZE + z) * CHUNK_SIZE + x.
    const y = Math.floor(i / layer), z = Math.floor((i % layer) / CHUNK_SIZE), x = i % CHUNK_SIZE;
    changes.push({ x: worldOf(real.cx, x), y, z: worldOf(real.cz, z), id: b[i]! });
  }
  return changes;
}
