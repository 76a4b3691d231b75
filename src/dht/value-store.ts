// The values one node holds, per namespace, with absolute local expiry. Pure (the clock
// time is passed in). Conflicts are decided by the version the namespace's rule computed
// (record-rules.ts; the caller checks the rule first): a higher version replaces a lower
// one; the same bytes from the same publisher only extend the expiry; an equal version with
// other bytes replaces only where the policy says so (the default rule), else it is stale.
//
// Bounds (docs/BOUNDS.md): per namespace a record count (NAMESPACE_LIMITS), over all of
// them `maxBytes` of values, and per publisher (the STORE's `pub`) `maxPerPublisher` values,
// so no one publisher fills a holder. A value past a bound is refused ('full',
// 'publisherFull'); nothing held is evicted for it. (`pub` is a claim where the namespace
// has no owner rule: a liar rotating it still meets the byte and count caps.)
import { idToHex, type NodeId } from '../core/node-id';
import { NAMESPACE_LIMITS, NAMESPACES, type Namespace, type ValueRecord } from './messages';
import type { RecordPolicy } from './record-rules';

export interface HeldValue {
  readonly ns: Namespace;
  readonly key: NodeId;
  readonly keyHex: string;
  value: Uint8Array;
  publisher: NodeId;
  /** The wire seq it came with (sent on as is). */
  seq: number;
  /** The version its namespace rule gave it: what orders values. */
  version: number;
  expiresAt: number;
  /** Last time a STORE for it arrived or we replicated it (replication skips fresh ones). */
  refreshedAt: number;
  /** The peer (hex) whose STORE it came in (OWN_SOURCE: we published it): checks of our copy spend its derivation budget. */
  from?: string;
}

export type StoreOutcome = 'stored' | 'refreshed' | 'stale' | 'too-large' | 'full' | 'publisherFull' | 'expired';

export const VALUE_STORE_DEFAULTS = {
  /** Bytes of values held over all namespaces (the per-namespace caps alone allow ~390 MiB). */
  maxBytes: 64 * 1024 * 1024,
  /** Values one publisher may have held here (a player's record, a primary's regions' records). */
  maxPerPublisher: 512,
};

export class ValueStore {
  private readonly tables = new Map<Namespace, Map<string, HeldValue>>(NAMESPACES.map((ns) => [ns, new Map()]));
  private readonly byPublisher = new Map<string, number>();
  private held = 0;
  private readonly caps: typeof VALUE_STORE_DEFAULTS;

  constructor(
    private readonly limits = NAMESPACE_LIMITS,
    caps: Partial<typeof VALUE_STORE_DEFAULTS> = {},
  ) {
    this.caps = { ...VALUE_STORE_DEFAULTS, ...caps };
  }

  /** Bytes of values held. */
  get bytes(): number {
    return this.held;
  }

  /** Values held that `publisher` published. */
  countOf(publisher: NodeId): number {
    return this.byPublisher.get(idToHex(publisher)) ?? 0;
  }

  get size(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.size;
    return n;
  }

  /**
   * Keeps rec under (ns, key) at `version` (checked by the caller), lifetime capped by the
   * policy; `from`: the STORE's sender (hex). `replaces`: the namespace's rule found the held
   * value outranked (record-rules.ts `RecordCheck`), so rec takes its place at any version.
   */
  put(ns: Namespace, key: NodeId, keyHex: string, rec: ValueRecord, version: number, now: number, policy: RecordPolicy, from?: string, replaces = false): StoreOutcome {
    const lim = this.limits[ns];
    if (rec.v.length > lim.maxValueBytes) return 'too-large';
    if (rec.ttl <= 0) return 'expired';
    const table = this.tables.get(ns)!;
    const held = table.get(keyHex);
    const expiresAt = now + Math.min(rec.ttl, policy.maxTtlMs);
    if (held && held.expiresAt > now) {
      if (version < held.version && !replaces) return 'stale';
      if (version === held.version && !replaces) {
        if (sameBytes(rec.pub, held.publisher) && sameBytes(rec.v, held.value)) {
          held.expiresAt = Math.max(held.expiresAt, expiresAt);
          held.refreshedAt = now;
          return 'refreshed';
        }
        if (!policy.equalReplaces) return 'stale';
      }
    }
    const growth = rec.v.length - (held?.value.length ?? 0);
    const pubHex = idToHex(rec.pub);
    const newPublisher = !held || idToHex(held.publisher) !== pubHex;
    const over = () =>
      (!held && table.size >= lim.maxRecords) || this.held + growth > this.caps.maxBytes || (newPublisher && (this.byPublisher.get(pubHex) ?? 0) >= this.caps.maxPerPublisher);
    if (over()) {
      this.expire(now);
      if (!held && table.size >= lim.maxRecords) return 'full';
      if (this.held + growth > this.caps.maxBytes) return 'full';
      if (newPublisher && (this.byPublisher.get(pubHex) ?? 0) >= this.caps.maxPerPublisher) return 'publisherFull';
    }
    if (held) this.forget(table, held);
    table.set(keyHex, { ns, key, keyHex, value: rec.v, publisher: rec.pub, seq: rec.seq, version, expiresAt, refreshedAt: now, ...(from !== undefined ? { from } : {}) });
    this.held += rec.v.length;
    this.byPublisher.set(pubHex, (this.byPublisher.get(pubHex) ?? 0) + 1);
    return 'stored';
  }

  /** Takes a held value out of its table and the byte and publisher counts. */
  private forget(table: Map<string, HeldValue>, h: HeldValue): void {
    if (table.get(h.keyHex) !== h) return;
    table.delete(h.keyHex);
    this.held -= h.value.length;
    const pubHex = idToHex(h.publisher);
    const n = (this.byPublisher.get(pubHex) ?? 0) - 1;
    if (n > 0) this.byPublisher.set(pubHex, n);
    else this.byPublisher.delete(pubHex);
  }

  get(ns: Namespace, keyHex: string, now: number): HeldValue | undefined {
    const table = this.tables.get(ns)!;
    const held = table.get(keyHex);
    if (!held) return undefined;
    if (held.expiresAt <= now) {
      this.forget(table, held);
      return undefined;
    }
    return held;
  }

  /** Forgets a value (true if one was held). */
  delete(ns: Namespace, keyHex: string): boolean {
    const table = this.tables.get(ns)!;
    const held = table.get(keyHex);
    if (!held) return false;
    this.forget(table, held);
    return true;
  }

  /** The record as sent on the wire: remaining lifetime instead of absolute expiry. */
  static toRecord(h: HeldValue, now: number): ValueRecord {
    return { v: h.value, pub: h.publisher, seq: h.seq, ttl: Math.max(0, Math.floor(h.expiresAt - now)) };
  }

  /** Drops expired values; returns how many. */
  expire(now: number): number {
    let n = 0;
    for (const t of this.tables.values()) {
      for (const h of t.values()) {
        if (h.expiresAt > now) continue;
        this.forget(t, h);
        n++;
      }
    }
    return n;
  }

  *values(now: number): IterableIterator<HeldValue> {
    for (const t of this.tables.values()) for (const h of t.values()) if (h.expiresAt > now) yield h;
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
