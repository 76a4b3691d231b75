// Keeping values alive on a network whose nodes come and go (Kademlia's republishing):
// - the publisher remembers what it put and puts it again every `republishMs` until its
//   lifetime ends;
// - a holder re-stores on the k closest the values it has not seen refreshed for
//   `replicateMs`, and hands a newcomer the values it is among the k closest of (only the
//   `handoverHolders` holders closest to the key do: all k learn of a newcomer);
// - every `valueSweepMs` held values past their lifetime are dropped.
import type { Clock } from '../core/clock';
import { every } from '../core/clock';
import { compareDistance, idToHex, type NodeId } from '../core/node-id';
import { RecordRejectedError, ValueTooLargeError, type PutOptions } from './dht';
import type { DhtOptions } from './dht-options';
import { NAMESPACE_LIMITS, type Namespace, type ValueRecord } from './messages';
import { checkRecord } from './record-rules';
import type { Contact, RoutingTable } from './routing-table';
import type { Call } from './rpc';
import type { DhtStats } from './stats';
import { ValueStore } from './value-store';

/** Highest wire seq. */
const MAX_SEQ = 0xffffffff;

interface Published {
  ns: Namespace;
  key: NodeId;
  value: Uint8Array;
  seq: number;
  expiresAt: number;
  republishAt: number;
}

export interface RepublishDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'k' | 'records' | 'handoverHolders' | 'valueTtlMs' | 'republishMs' | 'replicateMs' | 'valueSweepMs'>;
  stats: DhtStats;
  table: RoutingTable;
  store: ValueStore;
  call: Call;
  /** STORE on the k closest (values.ts `storeAt`). */
  storeAt(ns: Namespace, key: NodeId, rec: ValueRecord, via?: string): Promise<{ stored: number }>;
}

export class Republisher {
  private readonly published = new Map<string, Published>();
  private stopTimer: (() => void) | undefined;

  constructor(private readonly deps: RepublishDeps) {}

  /** Values we published and still republish. */
  get publishedCount(): number {
    return this.published.size;
  }

  start(): void {
    this.stopTimer ??= every(this.deps.clock, this.deps.opts.valueSweepMs, () => this.sweep());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /** Publishes value under (ns, key): checked by its rule, stored on the k closest, republished until its lifetime ends. */
  async put(ns: Namespace, key: NodeId, value: Uint8Array, opts: PutOptions = {}): Promise<{ stored: number }> {
    const { deps } = this;
    if (value.length > NAMESPACE_LIMITS[ns].maxValueBytes) {
      throw new ValueTooLargeError(`${ns} value of ${value.length} bytes exceeds ${NAMESPACE_LIMITS[ns].maxValueBytes}`);
    }
    const now = deps.clock.now();
    const pk = `${ns}:${idToHex(key)}`;
    const prev = this.published.get(pk)?.seq ?? deps.store.get(ns, idToHex(key), now)?.seq ?? 0;
    const seq = opts.seq ?? Math.min(MAX_SEQ, prev + 1);
    const ttl = opts.ttlMs ?? deps.opts.valueTtlMs;
    const chk = await checkRecord(deps.opts.records, ns, key, value, deps.selfId, seq);
    if (!chk.ok) throw new RecordRejectedError(ns, chk.reason);
    this.published.set(pk, { ns, key, value, seq, expiresAt: now + ttl, republishAt: now + deps.opts.republishMs });
    return deps.storeAt(ns, key, { v: value, pub: deps.selfId, seq, ttl });
  }

  /** Expires held values, republishes ours that are due, re-stores held ones not refreshed lately. */
  sweep(): void {
    const { deps } = this;
    const now = deps.clock.now();
    deps.store.expire(now);
    for (const [pk, p] of this.published) {
      if (p.expiresAt <= now) this.published.delete(pk);
      else if (p.republishAt <= now) {
        p.republishAt = now + deps.opts.republishMs;
        void deps.storeAt(p.ns, p.key, { v: p.value, pub: deps.selfId, seq: p.seq, ttl: p.expiresAt - now }).catch(() => {});
      }
    }
    for (const h of deps.store.values(now)) {
      if (now - h.refreshedAt < deps.opts.replicateMs) continue;
      h.refreshedAt = now;
      void deps.storeAt(h.ns, h.key, ValueStore.toRecord(h, now), h.from).catch(() => {}); // a peer's value: checks of our copy stay on its budget
    }
  }

  /** A new contact gets the values it is among the k closest of, if we are among their first holders. */
  handOver(c: Contact): void {
    const { deps } = this;
    const now = deps.clock.now();
    for (const h of deps.store.values(now)) {
      // The cheap test first: our rank needs only the first few closest.
      if (!this.amongFirstHolders(h.key, deps.table.closest(h.key, deps.opts.handoverHolders + 1), c)) continue;
      const closest = deps.table.closest(h.key, deps.opts.k);
      if (closest.length >= deps.opts.k && !closest.includes(c)) continue;
      deps.stats.replications++;
      deps.call(c.id, c.hex, { t: 'STORE', ns: h.ns, key: h.key, rec: ValueStore.toRecord(h, now) }).catch(() => {});
    }
  }

  /**
   * Whether we are one of the `handoverHolders` holders closest to key (by our table,
   * newcomer left out). All k holders learn of a newcomer, and each sending it the value
   * made one join cost k STOREs per value (the Kademlia paper's note: only the closest
   * holders need to); a dead holder still listed only adds one more sender.
   */
  private amongFirstHolders(key: NodeId, closest: readonly Contact[], newcomer: Contact): boolean {
    let closer = 0;
    for (const x of closest) {
      if (x !== newcomer && compareDistance(x.id, this.deps.selfId, key) < 0 && ++closer >= this.deps.opts.handoverHolders) return false;
    }
    return true;
  }
}
