// Edits no certified primary could confirm (docs/DESIGN.md "Total order across forks"): when a
// region has no certified primary to be had (this tab is alone, or cut off: the client
// fails with 'uncertified', a timeout or no attachment), the edit is kept *tentative*:
// still shown, stored locally (durable before the edit's promise resolves), applied over
// the region state whenever its column loads, and re-submitted until a primary confirms
// it. It is never reported as confirmed. A real refusal ('bad-block', 'outside-region')
// of a kept edit drops it and shows the block as the region has it.
//
// Retries: per region, a failed attempt backs off (RETRY_MS doubling to MAX_RETRY_MS); while
// a region is failing only one edit of it is in flight (a probe); a region that attaches
// is tried again at once. At most RETRIES_PER_PUMP attempts start per pump (the primary's
// rate limit is 20 edits/s per player) and MAX_IN_FLIGHT run at once; far regions (not
// around the player) one at a time. A retry claims the player's position when the block
// is within reach of it, else (the player stands in another region) where the player
// stood when it made the edit; while the player stands in the edit's region away from
// it, the edit waits (claiming a far position would move the primary's belief of us).
// 'out-of-reach', 'rate' and 'occupied' answers to a retry keep the edit for later. Every retry goes
// under the request id of the edit's first submit (kept in its record), so a primary that
// ordered it already answers with its stamp (host/request-log.ts) instead of ordering it again.
//
// Bounded: at most maxEdits kept edits per world; past that, a new edit that cannot be
// confirmed is refused (TentativeFullError: the editor takes it back), kept ones stay.
import { Emitter } from '../core/emitter';
import type { Clock, TimerHandle } from '../core/clock';
import { EditRejectedError } from './region-client';
import type { Stamp } from '../region/region-state';
import { regionAt, regionName, type RegionCoord } from '../region/region-key';
import type { TentativeRecord, TentativeStore } from '../store/tentative-store';
import { chunkOf } from '../world/coords';
import { EYE_HEIGHT, PLAYER_REACH } from '../world/player-body';
import type { EditOutcome } from './block-editor';
import { VoxelError } from '../core/errors';

export const TENTATIVE_DEFAULTS = {
  /** Kept edits per world at most. */
  maxEdits: 10_000,
};

/** First wait before retrying a failing region; doubles per failure up to MAX_RETRY_MS. */
const RETRY_MS = 2500;
const MAX_RETRY_MS = 30_000;
/** How often due retries are started. */
const PUMP_MS = 250;
/** Attempts started per pump at most (~12/s, under the primary's 20 edits/s per player). */
const RETRIES_PER_PUMP = 3;
/** Attempts in flight at most. */
const MAX_IN_FLIGHT = 8;
/** A retry claims the player's position when the block is this close to its eye: the crosshair's reach and a block of margin (the host allows two: edit-validator.ts). */
const RETRY_REACH = PLAYER_REACH + 1;

export type TentativeOptions = typeof TENTATIVE_DEFAULTS;

/**
 * Refusals that are final for a fresh edit: the editor takes it back and says why. 'occupied'
 * (a player stands in the block) is one: kept and retried instead, the block would show at
 * its editor alone until a retry RETRY_MS later found the spot free, at every other player
 * only then (in the 8-bot bench, samples ~2.7 s late: bench/edit-samples.ts), and nowhere
 * else while the other player stays; refused, the player is told at once that someone is
 * standing there.
 */
const FINAL = new Set<string>(['bad-block', 'outside-region', 'out-of-reach', 'rate', 'occupied']);
/** Of those, the ones that stay final for a retry (reach, rate and who stands where depend on when and where). */
const FINAL_ON_RETRY = new Set<string>(['bad-block', 'outside-region']);

/** True when `err` is a real refusal of a fresh edit (the editor takes it back). */
export function isRefusal(err: unknown): boolean {
  return err instanceof EditRejectedError && FINAL.has(err.reason);
}

export class TentativeFullError extends VoxelError {
  readonly code = 'tentative-full';
  override readonly name = 'TentativeFullError';
}

export interface TentativeEdit {
  x: number;
  y: number;
  z: number;
  id: number;
}

interface Point {
  x: number;
  y: number;
  z: number;
}

interface Kept {
  rec: TentativeRecord;
  region: string;
  coord: RegionCoord;
  inFlight: boolean;
  /** Not retried before (per-edit backoff, e.g. after 'out-of-reach'). */
  nextAt: number;
  /**
   * Newer edits of the same block on their way (edit): not retried meanwhile. A retry sent
   * now would be ordered after the newer edit (which waits for the region's primary as the
   * retry does) and bring the old block back over an edit the player confirmed.
   */
  newer: number;
}

interface RegionRetry {
  coord: RegionCoord;
  edits: Set<Kept>;
  inFlight: number;
  failing: boolean;
  nextAt: number;
  delay: number;
}

export interface TentativeStats {
  kept: number;
  confirmed: number;
  dropped: number;
  retries: number;
  full: number;
}

export interface TentativeEvents extends Record<string, unknown> {
  /** The number of kept edits changed. */
  changed: { count: number };
}

export interface TentativeEditsArgs {
  store: TentativeStore;
  clock: Clock;
  /** Submits to the region's primary under request id `r` if given; resolves on CONFIRM (RegionClient.submit). */
  submit(x: number, y: number, z: number, id: number, at: Point, r?: number): Promise<Stamp | void>;
  /**
   * A new request id (RegionClient.newRequest): an edit keeps one from its first submit
   * through every retry. Under a new id each time, a retry of an edit a primary had ordered
   * (its CONFIRM lost or late past the timeout) was ordered again: twice under two stamps,
   * and over any newer edit of the block made in between.
   */
  request?(): number;
  /** The player's position now (undefined before it is known). */
  position(): Point | undefined;
  /** A kept edit was refused for good, or superseded by a confirmed one: show the block as the region has it. */
  revert(x: number, y: number, z: number): void;
  /** Regions around the player (retried first; the others one at a time). */
  isLive?(r: RegionCoord): boolean;
  /** No attempt of this region is in flight any more (the source may drop a far subscription). */
  idle?(r: RegionCoord): void;
  /** Wall-clock time for records (epoch ms). */
  wallNow?(): number;
  options?: Partial<TentativeOptions>;
}

const blockKey = (x: number, y: number, z: number) => `${x},${y},${z}`;
const columnKey = (x: number, z: number) => `${chunkOf(x)},${chunkOf(z)}`;

export class TentativeEdits {
  readonly events = new Emitter<TentativeEvents>();
  readonly opts: TentativeOptions;
  readonly stats: TentativeStats = { kept: 0, confirmed: 0, dropped: 0, retries: 0, full: 0 };
  /** Resolves once the stored edits are loaded (load() of a column waits for it). */
  readonly ready: Promise<void>;
  /** The last storage failure (loading, or removing a confirmed edit), for the HUD. */
  lastError: Error | undefined;
  private readonly edits = new Map<string, Kept>();
  private readonly columns = new Map<string, Set<Kept>>();
  private readonly regions = new Map<string, RegionRetry>();
  private inFlight = 0;
  private lastMade = 0;
  private timer: TimerHandle | undefined;
  private closed = false;

  constructor(private readonly args: TentativeEditsArgs) {
    this.opts = { ...TENTATIVE_DEFAULTS, ...args.options };
    this.ready = args.store.loadAll().then(
      (recs) => {
        for (const r of recs) if (!this.edits.has(blockKey(r.x, r.y, r.z))) this.add(r);
        if (recs.length > 0) this.changed();
      },
      (err: unknown) => {
        this.lastError = err instanceof Error ? err : new Error(String(err));
      },
    );
    this.schedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.args.clock.clearTimeout(this.timer);
  }

  get size(): number {
    return this.edits.size;
  }

  list(): TentativeEdit[] {
    return [...this.edits.values()].map(({ rec: r }) => ({ x: r.x, y: r.y, z: r.z, id: r.id }));
  }

  /** The kept id of a block, if it has a tentative edit. */
  idAt(x: number, y: number, z: number): number | undefined {
    return this.edits.get(blockKey(x, y, z))?.rec.id;
  }

  /** The kept edits of chunk column (cx, cz), in world coordinates. */
  column(cx: number, cz: number): TentativeEdit[] {
    const set = this.columns.get(`${cx},${cz}`);
    return set ? [...set].map(({ rec: r }) => ({ x: r.x, y: r.y, z: r.z, id: r.id })) : [];
  }

  /**
   * A fresh edit: submitted at once; confirmed, or kept tentative when no certified primary
   * can be had (durable before this resolves). Rejects on a real refusal (the caller takes
   * the edit back), TentativeFullError past maxEdits, or a storage failure.
   */
  async edit(x: number, y: number, z: number, id: number, at: Point): Promise<EditOutcome> {
    await this.ready;
    let stamp: Stamp | void;
    // A kept edit of this block waits for this one's answer (Kept.newer).
    const older = this.edits.get(blockKey(x, y, z));
    if (older) older.newer++;
    const r = this.args.request?.();
    try {
      stamp = await this.args.submit(x, y, z, id, at, r).finally(() => {
        if (older) older.newer--;
      });
    } catch (err) {
      if (isRefusal(err)) throw err;
      await this.keep({ x, y, z, id, at: { x: at.x, y: at.y, z: at.z }, made: this.made(), ...(r !== undefined ? { r } : {}) });
      return { confirmed: false };
    }
    // Confirmed: an older kept edit of this block is superseded. It was shown over the
    // region's blocks until now, over this edit's own commit too if that came first: the
    // block is drawn again as the region has it.
    const held = this.edits.get(blockKey(x, y, z));
    if (held) {
      this.forget(held, true);
      this.args.revert(x, y, z);
    }
    return { confirmed: true, ...(stamp ? { stamp } : {}) };
  }

  /** The region has a certified primary again: retry its edits now. */
  wake(r: RegionCoord): void {
    const g = this.regions.get(regionName(r));
    if (!g) return;
    g.nextAt = -Infinity;
    g.delay = RETRY_MS;
    for (const k of g.edits) k.nextAt = -Infinity;
  }

  private made(): number {
    const now = this.args.wallNow?.() ?? Date.now();
    this.lastMade = Math.max(now, this.lastMade + 1);
    return this.lastMade;
  }

  private async keep(rec: TentativeRecord): Promise<void> {
    const key = blockKey(rec.x, rec.y, rec.z);
    const before = this.edits.get(key);
    if (!before && this.edits.size >= this.opts.maxEdits) {
      this.stats.full++;
      throw new TentativeFullError(`${this.opts.maxEdits} edits are already waiting to be shared: this one cannot be kept until others come`);
    }
    if (before) this.remove(before);
    const kept = this.add(rec);
    // This region failed just now: its next retry waits.
    this.failed(this.regions.get(kept.region)!);
    this.changed();
    try {
      await this.args.store.put(rec);
    } catch (err) {
      if (this.edits.get(key) === kept) {
        this.remove(kept);
        if (before) this.add(before.rec);
        this.changed();
      }
      throw err;
    }
  }

  private add(rec: TentativeRecord): Kept {
    const coord = regionAt(rec.x, rec.z);
    const k: Kept = { rec, region: regionName(coord), coord, inFlight: false, nextAt: -Infinity, newer: 0 };
    this.edits.set(blockKey(rec.x, rec.y, rec.z), k);
    const ck = columnKey(rec.x, rec.z);
    let col = this.columns.get(ck);
    if (!col) this.columns.set(ck, (col = new Set()));
    col.add(k);
    let g = this.regions.get(k.region);
    if (!g) this.regions.set(k.region, (g = { coord, edits: new Set(), inFlight: 0, failing: false, nextAt: -Infinity, delay: RETRY_MS }));
    g.edits.add(k);
    this.stats.kept = this.edits.size;
    return k;
  }

  private remove(k: Kept): void {
    const key = blockKey(k.rec.x, k.rec.y, k.rec.z);
    if (this.edits.get(key) !== k) return;
    this.edits.delete(key);
    const ck = columnKey(k.rec.x, k.rec.z);
    const col = this.columns.get(ck);
    col?.delete(k);
    if (col?.size === 0) this.columns.delete(ck);
    const g = this.regions.get(k.region);
    g?.edits.delete(k);
    if (g && g.edits.size === 0 && g.inFlight === 0) this.regions.delete(k.region);
    this.stats.kept = this.edits.size;
  }

  /** Removes a kept edit here and in the store (`confirmed`: counted as such). */
  private forget(k: Kept, confirmed: boolean): void {
    this.remove(k);
    if (confirmed) this.stats.confirmed++;
    else this.stats.dropped++;
    this.changed();
    this.args.store.remove(k.rec.x, k.rec.y, k.rec.z, k.rec.made).catch((err: unknown) => {
      this.lastError = err instanceof Error ? err : new Error(String(err));
    });
  }

  private changed(): void {
    this.events.emit('changed', { count: this.edits.size });
  }

  private failed(g: RegionRetry): void {
    g.failing = true;
    g.nextAt = this.args.clock.now() + g.delay;
    g.delay = Math.min(g.delay * 2, MAX_RETRY_MS);
  }

  // ---- retries -------------------------------------------------------------------------

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.args.clock.setTimeout(() => {
      this.pump();
      this.schedule();
    }, PUMP_MS);
  }

  /** Starts the retries that are due (see the header for the limits). */
  pump(): void {
    if (this.edits.size === 0) return;
    const now = this.args.clock.now();
    const live = (g: RegionRetry) => this.args.isLive?.(g.coord) ?? true;
    const groups = [...this.regions.values()].filter((g) => g.edits.size > 0 && now >= g.nextAt);
    groups.sort((a, b) => Number(live(b)) - Number(live(a)));
    let farBusy = [...this.regions.values()].some((g) => g.inFlight > 0 && !live(g));
    let started = 0;
    for (const g of groups) {
      const far = !live(g);
      if (far && farBusy && g.inFlight === 0) continue;
      for (const k of g.edits) {
        if (started >= RETRIES_PER_PUMP || this.inFlight >= MAX_IN_FLIGHT) return;
        if (g.failing && g.inFlight > 0) break;
        if (k.inFlight || k.newer > 0 || now < k.nextAt) continue;
        const at = this.claim(k);
        if (!at) continue;
        this.attempt(k, g, at);
        started++;
        if (far) farBusy = true;
      }
    }
  }

  /** The position a retry of `k` claims, or undefined to wait. */
  private claim(k: Kept): Point | undefined {
    const p = this.args.position();
    const r = k.rec;
    if (p) {
      const dx = r.x + 0.5 - p.x, dy = r.y + 0.5 - (p.y + EYE_HEIGHT), dz = r.z + 0.5 - p.z;
      if (dx * dx + dy * dy + dz * dz <= RETRY_REACH * RETRY_REACH) return p;
      if (regionName(regionAt(p.x, p.z)) === k.region) return undefined;
    }
    return r.at;
  }

  private attempt(k: Kept, g: RegionRetry, at: Point): void {
    k.inFlight = true;
    g.inFlight++;
    this.inFlight++;
    this.stats.retries++;
    const r = k.rec;
    // A record stored without a request id (by older code): one from now on, for this tab's retries.
    if (r.r === undefined && this.args.request) r.r = this.args.request();
    const done = () => {
      k.inFlight = false;
      g.inFlight--;
      this.inFlight--;
      if (g.edits.size === 0 && g.inFlight === 0 && this.regions.get(k.region) === g) this.regions.delete(k.region);
      if (g.inFlight === 0) this.args.idle?.(g.coord);
    };
    this.args.submit(r.x, r.y, r.z, r.id, at, r.r).then(
      () => {
        done();
        g.failing = false;
        g.delay = RETRY_MS;
        if (this.edits.get(blockKey(r.x, r.y, r.z)) !== k) return;
        this.forget(k, true);
        // Confirmed with the stamp of its first ordering, the region may hold a newer edit of
        // the block (host/commit-machine.ts: a re-send is not ordered again): drawn as the
        // region has it, no longer under our kept edit (mostly this edit itself).
        this.args.revert(r.x, r.y, r.z);
      },
      (err: unknown) => {
        done();
        const reason = err instanceof EditRejectedError ? err.reason : '';
        if (FINAL_ON_RETRY.has(reason)) {
          if (this.edits.get(blockKey(r.x, r.y, r.z)) !== k) return;
          this.forget(k, false);
          this.args.revert(r.x, r.y, r.z);
        } else if (reason === 'out-of-reach') {
          // The region answered: only this edit waits (the player may come closer).
          k.nextAt = this.args.clock.now() + MAX_RETRY_MS;
        } else if (reason === 'rate') {
          g.nextAt = this.args.clock.now() + RETRY_MS;
        } else {
          this.failed(g);
        }
      },
    );
  }
}
