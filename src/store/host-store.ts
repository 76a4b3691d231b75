// What a hosting node keeps of each region it hosted: the encoded per-block entries (the
// host layer's format; opaque here) and its election record (promise, certificate, ...).
// A host that reloads (same node id) reads them back and rejoins its regions.
//
// Stored form: a base record (entries at some point + the election record; the shape the
// store always had, so records written before the log existed load as a base with an empty
// log) and an append-only log of what changed since: entry batches and, when it changed,
// the election record. A committed batch appends only its own entries (a few dozen bytes)
// instead of rewriting the region. save() is compaction: a new base and the deletion of the
// log in ONE transaction, so a crash at any point leaves the old base + log or the new base.
// Writes resolve once the transaction committed (not merely once a put succeeded): a
// primary confirms an edit only after its own write resolved (src/host/primary-duty.ts).
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { WRITE_DURABILITY } from './durability';
import { explainStorageFailure } from './storage-error';

export const HOST_DB_NAME = 'vp-hosting';
const DB_VERSION = 2;

/** A region's election record and items: small, saved with the batch it must not be separated from. */
export interface RegionMeta {
  /** Highest epoch this host granted or claimed: it never grants one at or below it again. */
  promised: number;
  /** Who `promised` went to (node id hex; absent in records written before it was kept). */
  promisedTo?: string;
  /** The newest epoch certificate this host holds for the region (encoded; src/region/epoch-cert.ts). */
  cert?: Uint8Array;
  /** The epochs this host granted above `cert` that may be certified unseen (src/host/hosted-region.ts `accepted`). */
  accepted?: { e: number; hosts: Uint8Array[]; p?: Uint8Array }[];
  /** The region's items (encoded and decoded by agree/region-items.ts; opaque here). */
  items?: Uint8Array;
  /** `cert` is held as learnt (src/host/election.ts `learnt`): the promise before its chain raised it. */
  learnt?: { promised: number; promisedTo?: string };
}

export interface StoredRegion extends RegionMeta {
  rx: number;
  rz: number;
  /** Encoded region entries of the base (src/region/region-state.ts). */
  entries: Uint8Array;
  /**
   * Entry batches appended since the base, oldest first (absent or empty: none). The reader
   * merges them into `entries` by stamp (the store cannot: entries are opaque here).
   */
  log?: Uint8Array[];
}

/** One append: changed entries and/or the new election record, written in one transaction. */
export interface RegionChange {
  entries?: Uint8Array;
  meta?: RegionMeta;
}

export interface HostStore {
  /** Every region of this store's world (its store scope, store-scope.ts): base with the election record of the newest append that had one, and the log. */
  loadAll(): Promise<StoredRegion[]>;
  /** One region (base folded with its log, as loadAll gives it), or undefined when nothing is stored of it (an unloaded region read back: hosting-service.ts). */
  load(rx: number, rz: number): Promise<StoredRegion | undefined>;
  /** Replaces the region's record with a new base and drops its log, in one transaction (compaction); resolves once durable. */
  save(r: StoredRegion): Promise<void>;
  /** Appends to the region's log (needs no base: a region first seen in the log loads with empty base entries); resolves once durable. */
  append(rx: number, rz: number, change: RegionChange): Promise<void>;
  remove(rx: number, rz: number): Promise<void>;
  close(): void;
}

/** A log record (also the LevelStore's). `k` = the region's key. */
export interface LogRecord extends RegionChange {
  k: string;
}

/** The meta fields only (no undefined keys: IndexedDB and msgpack would store them). */
export function metaOf(r: RegionMeta): RegionMeta {
  return {
    promised: r.promised,
    ...(r.promisedTo ? { promisedTo: r.promisedTo } : {}), ...(r.cert ? { cert: r.cert } : {}),
    ...(r.accepted ? { accepted: r.accepted } : {}), ...(r.items ? { items: r.items } : {}), ...(r.learnt ? { learnt: r.learnt } : {}),
  };
}

/** The base record as stored. */
export function baseOf(r: StoredRegion): StoredRegion {
  return { rx: r.rx, rz: r.rz, entries: r.entries, ...metaOf(r) };
}

/**
 * Folds a region's log records (oldest first) into its base (undefined: none, the region
 * was only ever appended to). A record's meta replaces the election record wholesale.
 */
export function withLog(rx: number, rz: number, base: StoredRegion | undefined, log: readonly RegionChange[]): StoredRegion {
  let meta: RegionMeta = base ? metaOf(base) : { promised: 0 };
  const batches: Uint8Array[] = [];
  for (const c of log) {
    if (c.entries && c.entries.length) batches.push(c.entries);
    if (c.meta) meta = metaOf(c.meta);
  }
  return { rx, rz, entries: base?.entries ?? new Uint8Array(0), ...meta, ...(batches.length ? { log: batches } : {}) };
}

/** Payload bytes of a change or record (what the store is handed to write; for the bench). */
export function payloadBytes(c: RegionChange & { entries?: Uint8Array }): number {
  const m = c.meta;
  let n = c.entries?.length ?? 0;
  if (m) n += 8 + (m.learnt ? 8 + (m.learnt.promisedTo?.length ?? 0) : 0) + (m.promisedTo?.length ?? 0) + (m.cert?.length ?? 0) + (m.items?.length ?? 0) + (m.accepted ?? []).reduce((s, a) => s + 8 + (a.p?.length ?? 0) + a.hosts.reduce((t, h) => t + h.length, 0), 0);
  return n;
}

interface HostSchema extends DBSchema {
  /** The base records; key: `${scope}|${owner}|${rx},${rz}` (scope: the world's, store-scope.ts) */
  regions: { key: string; value: StoredRegion };
  /** The logs, in append order (autoIncrement); `k` = the region's key. */
  log: { key: number; value: LogRecord; indexes: { region: string } };
}

export class IdbHostStore implements HostStore {
  /** Payload bytes handed to IndexedDB by this store object (bench). */
  bytesWritten = 0;

  private constructor(
    private readonly db: IDBPDatabase<HostSchema>,
    /** The world's store scope (store-scope.ts): its name and seed. */
    readonly scope: string,
    readonly owner: string,
    /** 'strict' (WRITE_DURABILITY) but for the durability bench's side-by-side 'relaxed'. */
    private readonly durability: IDBTransactionDurability,
  ) {}

  /**
   * One database per browser profile; records are per world (`scope`, store-scope.ts: name
   * and seed) and per `owner` (the hosting node's id in hex: two tabs of one profile are two
   * nodes and must not share records).
   */
  static async open(scope: string, owner = '', dbName = HOST_DB_NAME, durability = WRITE_DURABILITY): Promise<IdbHostStore> {
    try {
      if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
      const db = await openDB<HostSchema>(dbName, DB_VERSION, {
        upgrade(d, oldVersion) {
          if (oldVersion < 1) d.createObjectStore('regions');
          if (oldVersion < 2) d.createObjectStore('log', { autoIncrement: true }).createIndex('region', 'k');
        },
      });
      db.addEventListener('versionchange', () => db.close());
      return new IdbHostStore(db, scope, owner, durability);
    } catch (err) {
      throw explainStorageFailure('open the hosting database', err);
    }
  }

  private get prefix(): string {
    return `${this.scope}|${this.owner}|`;
  }

  private key(rx: number, rz: number): string {
    return `${this.prefix}${rx},${rz}`;
  }

  async loadAll(): Promise<StoredRegion[]> {
    const range = IDBKeyRange.bound(this.prefix, `${this.prefix}\uffff`);
    try {
      const tx = this.db.transaction(['regions', 'log'], 'readonly');
      const [bases, log] = await Promise.all([tx.objectStore('regions').getAll(range), tx.objectStore('log').index('region').getAll(range), tx.done]);
      return gather(bases, log, (b) => this.key(b.rx, b.rz));
    } catch (err) {
      throw explainStorageFailure('read hosted regions', err);
    }
  }

  async load(rx: number, rz: number): Promise<StoredRegion | undefined> {
    const k = this.key(rx, rz);
    try {
      const tx = this.db.transaction(['regions', 'log'], 'readonly');
      const [base, log] = await Promise.all([tx.objectStore('regions').get(k), tx.objectStore('log').index('region').getAll(k), tx.done]);
      return base || log.length ? withLog(rx, rz, base, log) : undefined;
    } catch (err) {
      throw explainStorageFailure(`read hosted region ${rx},${rz}`, err);
    }
  }

  async save(r: StoredRegion): Promise<void> {
    const k = this.key(r.rx, r.rz);
    try {
      // Not db.put(): that resolves when the request succeeds, before the commit.
      const tx = this.db.transaction(['regions', 'log'], 'readwrite', { durability: this.durability });
      const log = tx.objectStore('log');
      const base = baseOf(r);
      this.bytesWritten += payloadBytes(base);
      await Promise.all([
        tx.objectStore('regions').put(base, k),
        log.index('region').getAllKeys(k).then((keys) => Promise.all(keys.map((q) => log.delete(q)))),
        tx.done,
      ]);
    } catch (err) {
      throw explainStorageFailure(`store hosted region ${r.rx},${r.rz}`, err);
    }
  }

  async append(rx: number, rz: number, change: RegionChange): Promise<void> {
    const rec: LogRecord = { k: this.key(rx, rz), ...(change.entries ? { entries: change.entries } : {}), ...(change.meta ? { meta: metaOf(change.meta) } : {}) };
    try {
      const tx = this.db.transaction('log', 'readwrite', { durability: this.durability });
      this.bytesWritten += payloadBytes(rec);
      await Promise.all([tx.store.add(rec), tx.done]);
    } catch (err) {
      throw explainStorageFailure(`append to hosted region ${rx},${rz}`, err);
    }
  }

  async remove(rx: number, rz: number): Promise<void> {
    const k = this.key(rx, rz);
    const tx = this.db.transaction(['regions', 'log'], 'readwrite', { durability: this.durability });
    const log = tx.objectStore('log');
    await Promise.all([
      tx.objectStore('regions').delete(k),
      log.index('region').getAllKeys(k).then((keys) => Promise.all(keys.map((q) => log.delete(q)))),
      tx.done,
    ]);
  }

  close(): void {
    this.db.close();
  }
}

/** Bases and log records (in append order) of one store, as regions (shared with the LevelStore). */
export function gather(bases: readonly StoredRegion[], log: readonly LogRecord[], keyOf: (b: StoredRegion) => string): StoredRegion[] {
  const logs = new Map<string, LogRecord[]>();
  for (const rec of log) {
    const l = logs.get(rec.k);
    if (l) l.push(rec);
    else logs.set(rec.k, [rec]);
  }
  const out: StoredRegion[] = [];
  for (const b of bases) {
    const k = keyOf(b);
    out.push(withLog(b.rx, b.rz, b, logs.get(k) ?? []));
    logs.delete(k);
  }
  // Regions with a log and no base yet.
  for (const [k, l] of logs) {
    const m = /(?:^|\|)(-?\d+),(-?\d+)$/.exec(k);
    if (m) out.push(withLog(Number(m[1]), Number(m[2]), undefined, l));
  }
  return out;
}
