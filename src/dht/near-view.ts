// A node's own view of which nodes are closest to a key: the contacts of its table, the
// nodes that answered its recent lookups toward that key, and itself. Records and frames
// that name a key's hosts (a region's epoch certificate) are believed only when those
// hosts are among the nodes the reader finds closest by itself (src/region/cert-anchor.ts),
// never because the record says so. A reader far from the key knows few nodes near it, so
// the answers of its lookups are kept a while (a table's far bucket holds 20 of half the
// network), and a check that finds none of a record's hosts may ask for a fresh lookup.
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
}

/** A view that knows nobody: every check against it fails (a reader with no network). */
export const NOBODY_NEAR: NearView = { near: () => [], refresh: () => Promise.resolve(false) };

export const NEAR_VIEW_DEFAULTS = {
  /** Keys whose lookup answers are kept (least recently recorded dropped first). */
  keys: 512,
  /** How long a lookup's answers count (ms): nodes leave; the table keeps the live ones. */
  keepMs: 120_000,
  /** Fewest ms between two refresh lookups of one key. */
  refreshEveryMs: 5_000,
  /** Refresh lookups a node starts per second, and in a burst: forged records must not make it look up without end. */
  refreshPerSec: 2,
  refreshBurst: 8,
};

export interface NearNodesDeps {
  selfId: NodeId;
  /** A read-only node hosts nothing, so it is nobody's near node, not even its own. */
  readOnly: boolean;
  clock: Clock;
  /** The table's closest contacts. */
  closest(key: NodeId, n: number): NodeId[];
  /** A FIND_NODE lookup: its answers reach `record` (dht-node.ts wires every lookup there). */
  findNode(key: NodeId): Promise<unknown>;
}

export class NearNodes implements NearView {
  private readonly answered = new Map<string, { at: number; ids: NodeId[] }>();
  private readonly refreshedAt = new Map<string, number>();
  private readonly bucket: TokenBucket;
  private readonly o: typeof NEAR_VIEW_DEFAULTS;
  /** Refresh lookups run, and refused by the rate limit. */
  readonly stats = { refreshes: 0, refreshesLimited: 0 };

  constructor(private readonly deps: NearNodesDeps, options: Partial<typeof NEAR_VIEW_DEFAULTS> = {}) {
    this.o = { ...NEAR_VIEW_DEFAULTS, ...options };
    this.bucket = new TokenBucket(this.o.refreshPerSec, this.o.refreshBurst, deps.clock.now());
  }

  /** The nodes that answered a lookup toward `target`, closest first. */
  record(target: NodeId, ids: readonly NodeId[]): void {
    const hex = idToHex(target);
    this.answered.delete(hex);
    this.answered.set(hex, { at: this.deps.clock.now(), ids: ids.slice(0, 20) });
    if (this.answered.size > this.o.keys) this.answered.delete(this.answered.keys().next().value!);
  }

  near(key: NodeId, n: number): NodeId[] {
    const got = this.answered.get(idToHex(key));
    const fresh = got && this.deps.clock.now() - got.at < this.o.keepMs ? got.ids : [];
    const all = [...this.deps.closest(key, n), ...fresh, ...(this.deps.readOnly ? [] : [this.deps.selfId])];
    const out: NodeId[] = [];
    for (const id of sortByDistance(all, (x) => x, key)) if (!out.some((x) => idEquals(x, id))) out.push(id);
    return out.slice(0, n);
  }

  async refresh(key: NodeId): Promise<boolean> {
    const hex = idToHex(key), now = this.deps.clock.now();
    if (now - (this.refreshedAt.get(hex) ?? -Infinity) < this.o.refreshEveryMs) return false;
    if (!this.bucket.take(1, now)) {
      this.stats.refreshesLimited++;
      return false;
    }
    this.refreshedAt.set(hex, now);
    if (this.refreshedAt.size > this.o.keys) this.refreshedAt.delete(this.refreshedAt.keys().next().value!);
    this.stats.refreshes++;
    try {
      await this.deps.findNode(key);
      return true;
    } catch {
      return false;
    }
  }
}
