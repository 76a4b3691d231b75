// What this host last wrote of one region to its host store, so a persist writes only what
// changed: the common path (a committed batch, a replicated one at a backup) appends the
// entries whose stamps moved, plus the election record when it changed, to the region's
// log (store/host-store.ts); a few dozen bytes instead of the whole region. A full base is
// written (compaction: new base and log dropped in one transaction) when the log reached
// COMPACT_RECORDS records or as many bytes as the base (at least COMPACT_MIN_BYTES), so the
// bases written cost at most about as much again as the log (amortized), the first time in a
// session (the log left by the previous one is folded), after a failed write (what is
// stored is then unknown), and when an entry went backwards or vanished (a log replayed by
// stamp could not express it).
import type { HostStore, RegionMeta } from '../store/host-store';
import { compareStamp, encodeEntries, type Entry } from '../region/region-state';

/** Log records after which the next persist compacts (each is a row to read back on load). */
export const COMPACT_RECORDS = 1024;
/** Log bytes after which the next persist compacts when the base is smaller (entries are 12 bytes). */
export const COMPACT_MIN_BYTES = 16 * 1024;

export interface StoreWrite {
  kind: 'base' | 'append' | 'none';
  bytes: number;
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameMeta(a: RegionMeta, b: RegionMeta): boolean {
  const qa = a.accepted ?? [], qb = b.accepted ?? [];
  return a.promised === b.promised && (a.promisedTo ?? '') === (b.promisedTo ?? '') && sameBytes(a.cert, b.cert) && sameBytes(a.items, b.items)
    && a.learnt?.promised === b.learnt?.promised && a.learnt?.promisedTo === b.learnt?.promisedTo
    && qa.length === qb.length
    && qa.every((q, i) => q.e === qb[i]!.e && sameBytes(q.p, qb[i]!.p) && q.hosts.length === qb[i]!.hosts.length && q.hosts.every((h, j) => sameBytes(h, qb[i]!.hosts[j])));
}

/** Ours to keep: the caller's `accepted` array may change after the write. */
const copied = (m: RegionMeta): RegionMeta => (m.accepted ? { ...m, accepted: m.accepted.map((q) => ({ ...q, hosts: [...q.hosts] })) } : { ...m });

export class StoredCopy {
  /** Per block key, the entry as stored; undefined until a base was written this session. */
  private stored: Map<number, Entry> | undefined;
  private meta: RegionMeta | undefined;
  private logRecords = 0;
  private logBytes = 0;
  private baseBytes = 0;

  constructor(private readonly rx: number, private readonly rz: number) {}

  /**
   * Writes `entries` (every entry the region holds) and `meta` to `store`: an append of the
   * difference from what it holds, or a new base. Call one at a time (hosted-region.ts chains them).
   */
  async write(store: HostStore, entries: readonly Entry[], meta: RegionMeta): Promise<StoreWrite> {
    const changed = this.stored ? this.changes(this.stored, entries) : undefined;
    try {
      if (!changed || this.logRecords >= COMPACT_RECORDS || this.logBytes >= Math.max(COMPACT_MIN_BYTES, this.baseBytes)) {
        const bytes = encodeEntries(entries);
        await store.save({ rx: this.rx, rz: this.rz, entries: bytes, ...meta });
        this.stored = new Map(entries.map((e) => [e.key, e]));
        this.meta = copied(meta);
        this.logRecords = this.logBytes = 0;
        this.baseBytes = bytes.length;
        return { kind: 'base', bytes: bytes.length };
      }
      const metaChanged = !this.meta || !sameMeta(this.meta, meta);
      if (changed.length === 0 && !metaChanged) return { kind: 'none', bytes: 0 };
      const bytes = changed.length ? encodeEntries(changed) : undefined;
      await store.append(this.rx, this.rz, { ...(bytes ? { entries: bytes } : {}), ...(metaChanged ? { meta } : {}) });
      for (const e of changed) this.stored!.set(e.key, e);
      if (metaChanged) this.meta = copied(meta);
      this.logRecords++;
      this.logBytes += bytes?.length ?? 0;
      return { kind: 'append', bytes: bytes?.length ?? 0 };
    } catch (err) {
      // Unknown what reached the disk: the next write is a full base.
      this.stored = undefined;
      throw err;
    }
  }

  /** Entries newer than stored, or undefined when one is older or missing (only a new base can say that). */
  private changes(stored: Map<number, Entry>, entries: readonly Entry[]): Entry[] | undefined {
    const out: Entry[] = [];
    let kept = 0;
    for (const e of entries) {
      const s = stored.get(e.key);
      if (!s) {
        out.push(e);
        continue;
      }
      kept++;
      const c = compareStamp(e, s);
      if (c < 0 || (c === 0 && e.id !== s.id)) return undefined;
      if (c > 0) out.push(e);
    }
    return kept === stored.size ? out : undefined;
  }
}

/** What one write of a region takes: every entry it holds and its election record. */
export interface StoredRecord {
  entries: readonly Entry[];
  meta: RegionMeta;
}

/**
 * One region's writes to the store, one at a time: a write asked for while one runs waits
 * for it and then takes whatever the region holds when it starts (so writes asked for
 * meanwhile share it). `writing`: writes asked for and not finished (an unload waits for
 * none: idle-unload.ts).
 */
export class RegionWriter {
  writing = 0;
  private saving: Promise<void> = Promise.resolve();
  private next: Promise<void> | undefined;
  private readonly copy: StoredCopy;

  constructor(rx: number, rz: number, private readonly store: HostStore, private readonly record: () => StoredRecord, private readonly failed: () => void) {
    this.copy = new StoredCopy(rx, rz);
  }

  /** Resolves once what the region holds now is durable. */
  persist(): Promise<void> {
    if (this.next) return this.next;
    this.writing++;
    const p = this.saving.then(async () => {
      this.next = undefined;
      try {
        const r = this.record();
        await this.copy.write(this.store, r.entries, r.meta);
      } finally {
        this.writing--;
      }
    });
    this.next = p;
    this.saving = p.catch(() => this.failed());
    return p;
  }
}
