// A node's own view of which nodes are closest to a key: the contacts of its table, the
// nodes that answered its recent lookups toward that key, and itself. Records and frames
// that name a key's hosts (a region's epoch certificate) are believed only when those
// hosts are among the nodes the reader finds closest by itself (src/region/cert-anchor.ts),
// never because the record says so. A reader far from the key knows few nodes near it, so
// the answers of its lookups are kept a while (a table's far bucket holds 20 of half the
// network), and a check that finds none of a record's hosts may ask for a fresh lookup.
//
// Eclipses. Hostile nodes on a lookup's way toward a key can answer with only each other:
// a path that meets them first learns no honest node nearer, and its answers would fill the
// view with them (enough of them among the nearest 8 anchor a certificate they granted). So
// the fresh lookup runs `paths` (default 2) disjoint paths (lookup.ts, S/Kademlia): one
// liar can hold one path, and the honest nodes another path finds sort nearer. And answers
// are merged, not replaced: a later lookup's answers (any lookup of ours, one path or more)
// add to what earlier ones found, each node kept `keepMs` from the last time one named it,
// the 20 nearest the key kept, so an eclipsed lookup cannot push out the nearer nodes a
// disjoint one found.
import type { Clock } from '../core/clock';
import { idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { TokenBucket } from '../core/token-bucket';

/** What a reader knows of the nodes near a key (src/region/cert-anchor.ts reads it). */
export interface NearView {
  /** The `n` nodes closest to `key` that we know of, nearest first (ourselves included when we host). */
  near(key: NodeId, n: number): NodeId[];
  /**
   * Looks the key's closest nodes up afresh, so that `near` shows them; false when nothing
   * new was learnt (looked up lately, or over the rate limit). Never rejects.
   */
  refresh(key: NodeId): Promise<boolean>;
  /**
   * The `n` nodes nearest `key` that answered our last lookup of it by disjoint paths, if it
   * ran within `liveMs` (else one is run first, or the one running joined), ourselves
   * included when we host, those that said they host nothing left out; nearest first. Nodes
   * our table or older lookups name may be dead or the lookup of one path's liars: a reader
   * with no certificate of a region counts only these (src/region/cert-checker.ts). `again`: look up anew if the last one is older than
   * the fewest ms between two refreshes (rate limited as `refresh`), for a check it refused.
   * Never rejects (a failed lookup: none).
   */
  live(key: NodeId, n: number, again?: boolean): Promise<NodeId[]>;
  /**
   * Counts a lookup of `key` run to its end by `paths` disjoint paths (a value read's, that
   * went on past its values: values.ts `get` with `live`) as `live`'s lookup: `closest`, the
   * nodes that answered it, nearest first. Taken only with at least the paths `live` runs.
   */
  adopt?(key: NodeId, closest: readonly NodeId[], paths: number): void;
  /** Whether `live` would answer `key` now, from a lookup within LIVE_MS, without one of its own. */
  hasLive?(key: NodeId): boolean;
}

/** A view that knows nobody: every check against it fails (a reader with no network). */
export const NOBODY_NEAR: NearView = { near: () => [], refresh: () => Promise.resolve(false), live: () => Promise.resolve([]) };

/** Keys whose lookup answers are kept (least recently recorded dropped first). */
const KEYS_KEPT = 512;
/** How long a lookup's answers count (ms): nodes leave; the table keeps the live ones. */
const KEEP_MS = 120_000;
/** Fewest ms between two refresh lookups of one key. */
const REFRESH_EVERY_MS = 5_000;
/** Refresh lookups a node starts per second, and in a burst: forged records must not make it look up without end. */
const REFRESH_PER_SEC = 2;
const REFRESH_BURST = 8;
/**
 * Disjoint paths of a refresh lookup, run before a certificate naming hosts this node does not
 * see near is refused: an eclipse of one path must not fill the view (docs/TRUST.md).
 */
const REFRESH_PATHS = 2;
/** How long the answers of a lookup by disjoint paths count as live (`live`). */
const LIVE_MS = 30_000;
/**
 * Lookups by disjoint paths `live` runs at once; the rest wait their turn, in the order asked.
 * A player's first checks (its region and the 8 around it) may each want one, and they all
 * ask the nodes nearest those keys: the regions' hosts.
 */
const SWEEPS_AT_ONCE = 2;

/** Lookup answers kept per key (a FIND_NODE's k). */
const KEPT_PER_KEY = 20;

export interface NearNodesDeps {
  selfId: NodeId;
  /** A read-only node hosts nothing, so it is nobody's near node, not even its own. */
  readOnly: boolean;
  clock: Clock;
  /** The table's closest contacts. */
  closest(key: NodeId, n: number): NodeId[];
  /** Whether a peer's frames said it hosts no regions (dht.ts `hostsNothing`): no host set holds it, so `live` leaves it out. */
  hostsNothing?(hex: string): boolean;
  /** A FIND_NODE lookup by `paths` disjoint paths: its answers reach `record` (dht-node.ts wires every lookup there); `closest`: the nodes that answered, nearest first. */
  findNode(key: NodeId, paths: number): Promise<{ closest: readonly { id: NodeId }[] }>;
}

export class NearNodes implements NearView {
  /** By key: the nodes lookups toward it answered with, each with when it was last named, nearest first. */
  private readonly answered = new Map<string, { id: NodeId; hex: string; at: number }[]>();
  private readonly refreshedAt = new Map<string, number>();
  /** By key: the nodes that answered our last lookup of it by disjoint paths, nearest first, and when (`live`). */
  private readonly swept = new Map<string, { ids: NodeId[]; at: number }>();
  /** By key: the lookup by disjoint paths under way (`live` joins it). */
  private readonly sweeping = new Map<string, Promise<void>>();
  /** Sweeps running, and those waiting for a turn (`SWEEPS_AT_ONCE`), first asked first. */
  private sweepsRunning = 0;
  private readonly sweepQueue: (() => void)[] = [];
  private readonly bucket: TokenBucket;
  /** Refresh lookups run, and refused by the rate limit; lookups `live` ran; value reads counted as its lookup (`adopt`). */
  readonly stats = { refreshes: 0, refreshesLimited: 0, sweeps: 0, adopted: 0 };

  constructor(private readonly deps: NearNodesDeps) {
    this.bucket = new TokenBucket(REFRESH_PER_SEC, REFRESH_BURST, deps.clock.now());
  }

  /** The nodes that answered a lookup toward `target`: merged into what earlier lookups found (the 20 nearest kept). */
  record(target: NodeId, ids: readonly NodeId[]): void {
    const key = idToHex(target), now = this.deps.clock.now();
    const byHex = new Map<string, { id: NodeId; hex: string; at: number }>();
    for (const x of this.fresh(key)) byHex.set(x.hex, x);
    for (const id of ids.slice(0, KEPT_PER_KEY)) {
      const hex = idToHex(id);
      byHex.set(hex, { id, hex, at: now });
    }
    const kept = sortByDistance([...byHex.values()], (x) => x.id, target).slice(0, KEPT_PER_KEY);
    this.answered.delete(key);
    this.answered.set(key, kept);
    if (this.answered.size > KEYS_KEPT) this.answered.delete(this.answered.keys().next().value!);
  }

  near(key: NodeId, n: number): NodeId[] {
    const fresh = this.fresh(idToHex(key)).map((x) => x.id);
    const all = [...this.deps.closest(key, n), ...fresh, ...(this.deps.readOnly ? [] : [this.deps.selfId])];
    const out: NodeId[] = [];
    for (const id of sortByDistance(all, (x) => x, key)) if (!out.some((x) => idEquals(x, id))) out.push(id);
    return out.slice(0, n);
  }

  /** The answers toward `key` named within KEEP_MS. */
  private fresh(key: string): { id: NodeId; hex: string; at: number }[] {
    const now = this.deps.clock.now();
    return (this.answered.get(key) ?? []).filter((x) => now - x.at < KEEP_MS);
  }

  async refresh(key: NodeId): Promise<boolean> {
    const hex = idToHex(key), now = this.deps.clock.now();
    if (now - (this.refreshedAt.get(hex) ?? -Infinity) < REFRESH_EVERY_MS) return false;
    if (!this.bucket.take(1, now)) {
      this.stats.refreshesLimited++;
      return false;
    }
    this.refreshedAt.set(hex, now);
    if (this.refreshedAt.size > KEYS_KEPT) this.refreshedAt.delete(this.refreshedAt.keys().next().value!);
    this.stats.refreshes++;
    try {
      this.noteSwept(key, await this.deps.findNode(key, REFRESH_PATHS));
      return true;
    } catch {
      return false;
    }
  }

  async live(key: NodeId, n: number, again = false): Promise<NodeId[]> {
    const hex = idToHex(key), now = this.deps.clock.now();
    const last = this.swept.get(hex);
    const redo = again && !!last && now - last.at >= REFRESH_EVERY_MS && this.bucket.take(1, now);
    if (!this.sweptLately(hex) || redo) await this.sweep(key, hex);
    const ids = (this.sweptLately(hex)?.ids ?? []).filter((id) => !this.deps.hostsNothing?.(idToHex(id)));
    const all = sortByDistance([...ids, ...(this.deps.readOnly ? [] : [this.deps.selfId])], (x) => x, key);
    return all.filter((id, i) => !all.slice(0, i).some((x) => idEquals(x, id))).slice(0, n);
  }

  adopt(key: NodeId, closest: readonly NodeId[], paths: number): void {
    if (paths < REFRESH_PATHS) return;
    this.stats.adopted++;
    this.noteSwept(key, { closest: closest.map((id) => ({ id })) });
  }

  hasLive(key: NodeId): boolean {
    return !!this.sweptLately(idToHex(key));
  }

  /** Our last sweep of `hex` (`live`), if it ran within LIVE_MS: what `live` answers with. */
  private sweptLately(hex: string): { ids: NodeId[]; at: number } | undefined {
    const last = this.swept.get(hex);
    return last && this.deps.clock.now() - last.at < LIVE_MS ? last : undefined;
  }

  /**
   * One lookup of `key` by disjoint paths at a time, shared by every caller. Not rate limited
   * as `refresh` is: only keys of the reader's own subscriptions are asked for (`live`), each
   * at most once per liveMs whatever frames or records arrive.
   */
  private sweep(key: NodeId, hex: string): Promise<void> {
    let running = this.sweeping.get(hex);
    if (!running) {
      this.stats.sweeps++;
      running = this.turn()
        .then(() => this.deps.findNode(key, REFRESH_PATHS))
        .then((res) => this.noteSwept(key, res), () => {})
        .finally(() => {
          this.sweeping.delete(hex);
          this.sweepsRunning--;
          this.next();
        });
      this.sweeping.set(hex, running);
    }
    return running;
  }

  /** Resolves when a sweep may start (at most SWEEPS_AT_ONCE run), counting it as running. */
  private turn(): Promise<void> {
    if (this.sweepsRunning < SWEEPS_AT_ONCE) {
      this.sweepsRunning++;
      return Promise.resolve();
    }
    return new Promise((go) => this.sweepQueue.push(() => {
      this.sweepsRunning++;
      go();
    }));
  }

  /** Starts the sweep that has waited longest. */
  private next(): void {
    this.sweepQueue.shift()?.();
  }

  private noteSwept(key: NodeId, res: { closest: readonly { id: NodeId }[] }): void {
    const hex = idToHex(key);
    this.swept.delete(hex);
    this.swept.set(hex, { ids: res.closest.map((c) => c.id), at: this.deps.clock.now() });
    if (this.swept.size > KEYS_KEPT) this.swept.delete(this.swept.keys().next().value!);
  }
}
