// The values one node holds, per namespace, with absolute local expiry. Pure (the clock
// time is passed in). Conflicts are decided by the version the namespace's rule computed
// (record-rules.ts; the caller checks the rule first): a higher version replaces a lower
// one; the same bytes from the same publisher only extend the expiry; an equal version with
// other bytes replaces only where the policy says so (the default rule), else it is stale.
import type { NodeId } from '../core/node-id';
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
}

export type StoreOutcome = 'stored' | 'refreshed' | 'stale' | 'too-large' | 'full' | 'expired';

export class ValueStore {
  private readonly tables = new Map<Namespace, Map<string, HeldValue>>(NAMESPACES.map((ns) => [ns, new Map()]));

  constructor(private readonly limits = NAMESPACE_LIMITS) {}

  get size(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.size;
    return n;
  }

  /** Keeps rec under (ns, key) at `version` (checked by the caller), lifetime capped by the policy. */
  put(ns: Namespace, key: NodeId, keyHex: string, rec: ValueRecord, version: number, now: number, policy: RecordPolicy): StoreOutcome {
    const lim = this.limits[ns];
    if (rec.v.length > lim.maxValueBytes) return 'too-large';
    if (rec.ttl <= 0) return 'expired';
    const table = this.tables.get(ns)!;
    const held = table.get(keyHex);
    const expiresAt = now + Math.min(rec.ttl, policy.maxTtlMs);
    if (held && held.expiresAt > now) {
      if (version < held.version) return 'stale';
      if (version === held.version) {
        if (sameBytes(rec.pub, held.publisher) && sameBytes(rec.v, held.value)) {
          held.expiresAt = Math.max(held.expiresAt, expiresAt);
          held.refreshedAt = now;
          return 'refreshed';
        }
        if (!policy.equalReplaces) return 'stale';
      }
    } else if (!held && table.size >= lim.maxRecords) {
      this.expire(now);
      if (table.size >= lim.maxRecords) return 'full';
    }
    table.set(keyHex, { ns, key, keyHex, value: rec.v, publisher: rec.pub, seq: rec.seq, version, expiresAt, refreshedAt: now });
    return 'stored';
  }

  get(ns: Namespace, keyHex: string, now: number): HeldValue | undefined {
    const held = this.tables.get(ns)!.get(keyHex);
    if (!held) return undefined;
    if (held.expiresAt <= now) {
      this.tables.get(ns)!.delete(keyHex);
      return undefined;
    }
    return held;
  }

  /** Forgets a value (true if one was held). */
  delete(ns: Namespace, keyHex: string): boolean {
    return this.tables.get(ns)!.delete(keyHex);
  }

  /** The record as sent on the wire: remaining lifetime instead of absolute expiry. */
  static toRecord(h: HeldValue, now: number): ValueRecord {
    return { v: h.value, pub: h.publisher, seq: h.seq, ttl: Math.max(0, Math.floor(h.expiresAt - now)) };
  }

  /** Drops expired values; returns how many. */
  expire(now: number): number {
    let n = 0;
    for (const t of this.tables.values()) {
      for (const [k, h] of t) {
        if (h.expiresAt > now) continue;
        t.delete(k);
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
