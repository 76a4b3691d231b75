// The headless peer's store (Node): one LevelDB database (classic-level) in its data
// directory keeps what a tab keeps in IndexedDB: the node identity (the same node id after
// a restart) and the regions it hosts (the HostStore interface of host-store.ts: a base
// record per region under `region|`, its append-only log under `rlog|`, the region's key
// then a 12-hex-digit sequence number, so a range read returns it in append order). Every
// write is synchronous on disk (`sync: true`, an fsync of LevelDB's log) and resolves only
// after it, so a region reported stored survives the process being killed, or the machine
// losing power, right after. LevelDB holds a lock on the directory: a second peer started
// on the same data dir is refused instead of sharing (and corrupting) its records.
import { mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { decode, encode } from '@msgpack/msgpack';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import { generateNodeIdentity, identityFromJson, type Identity, type IdentityJson } from '../core/identity';
import { nativeNodeId } from './native-node-id';
import { baseOf, gather, metaOf, withLog, type HostStore, type LogRecord, type RegionChange, type RegionMeta, type StoredRegion } from './host-store';
import { StorageError } from './storage-error';

type Db = ClassicLevel<string, Uint8Array>;

const NODE_IDENTITY_KEY = 'identity|node';
const SYNC = { sync: true } as const;

const regionPrefix = (scope: string, owner: string) => `region|${scope}|${owner}|`;
const logPrefix = (scope: string, owner: string) => `rlog|${scope}|${owner}|`;
const SEQ_DIGITS = 12;

/** The meta fields of a decoded record, or undefined when they are not (a record to skip). */
function toMeta(o: Partial<RegionMeta> | null): RegionMeta | undefined {
  if (!o || typeof o.promised !== 'number') return undefined;
  return {
    promised: o.promised,
    ...(typeof o.promisedTo === 'string' ? { promisedTo: o.promisedTo } : {}),
    ...(o.cert instanceof Uint8Array ? { cert: o.cert } : {}),
    ...(Array.isArray(o.accepted) ? { accepted: o.accepted } : {}),
    ...(o.items instanceof Uint8Array ? { items: o.items } : {}),
    ...(o.learnt && typeof o.learnt === 'object' && typeof o.learnt.promised === 'number' ? { learnt: o.learnt } : {}),
  };
}

/** A log record as written by append(), or undefined for one that is not (skipped on load). */
function toLogRecord(k: string, raw: Uint8Array): LogRecord | undefined {
  let o: Partial<RegionChange> | null;
  try {
    o = decode(new Uint8Array(raw)) as Partial<RegionChange> | null;
  } catch {
    return undefined;
  }
  if (!o || typeof o !== 'object') return undefined;
  const meta = o.meta === undefined ? undefined : toMeta(o.meta);
  if (o.meta !== undefined && !meta) return undefined;
  if (o.entries !== undefined && !(o.entries instanceof Uint8Array)) return undefined;
  return { k, ...(o.entries ? { entries: o.entries } : {}), ...(meta ? { meta } : {}) };
}

/** A stored region as written by save(), or undefined for a record that is not one (skipped on load). */
function toRegion(raw: Uint8Array): StoredRegion | undefined {
  let r: unknown;
  try {
    // A copy as a plain Uint8Array (LevelDB hands out Buffers): the byte fields are views of it.
    r = decode(new Uint8Array(raw));
  } catch {
    return undefined;
  }
  const o = r as Partial<StoredRegion> | null;
  const meta = toMeta(o);
  if (!o || !meta || typeof o.rx !== 'number' || typeof o.rz !== 'number' || !(o.entries instanceof Uint8Array)) return undefined;
  return { rx: o.rx, rz: o.rz, entries: o.entries, ...meta };
}

/** One world's hosted regions for one node, in the data dir's database. */
export class LevelHostStore implements HostStore {
  /** Per region key: the last sequence number used in its log (read from the database the first time). */
  private readonly seqs = new Map<string, Promise<number>>();

  constructor(private readonly db: Db, readonly scope: string, readonly owner: string) {}

  private key(rx: number, rz: number): string {
    return `${regionPrefix(this.scope, this.owner)}${rx},${rz}`;
  }

  private logKeyPrefix(rx: number, rz: number): string {
    return `${logPrefix(this.scope, this.owner)}${rx},${rz}|`;
  }

  async loadAll(): Promise<StoredRegion[]> {
    const prefix = regionPrefix(this.scope, this.owner), lp = logPrefix(this.scope, this.owner);
    try {
      const bases: StoredRegion[] = [];
      for await (const raw of this.db.values({ gte: prefix, lt: `${prefix}\uffff` })) {
        const r = toRegion(raw);
        if (r) bases.push(r);
      }
      const log: LogRecord[] = [];
      for await (const [key, raw] of this.db.iterator({ gte: lp, lt: `${lp}\uffff` })) {
        // The region's key as the base's (`...|rx,rz`): gather() matches them.
        const k = `${prefix}${key.slice(lp.length, key.lastIndexOf('|'))}`;
        const rec = toLogRecord(k, raw);
        if (rec) log.push(rec);
      }
      return gather(bases, log, (b) => this.key(b.rx, b.rz));
    } catch (err) {
      throw new StorageError(`Could not read hosted regions: ${(err as Error).message}`, err);
    }
  }

  async load(rx: number, rz: number): Promise<StoredRegion | undefined> {
    const k = this.key(rx, rz), lp = this.logKeyPrefix(rx, rz);
    try {
      const raw = await this.db.get(k);
      const base = raw ? toRegion(raw) : undefined;
      const log: LogRecord[] = [];
      for await (const [, v] of this.db.iterator({ gte: lp, lt: `${lp}\uffff` })) {
        const rec = toLogRecord(k, v);
        if (rec) log.push(rec);
      }
      return base || log.length ? withLog(rx, rz, base, log) : undefined;
    } catch (err) {
      throw new StorageError(`Could not read hosted region ${rx},${rz}: ${(err as Error).message}`, err);
    }
  }

  /** The region's log keys, in order. */
  private async logKeys(rx: number, rz: number): Promise<string[]> {
    const p = this.logKeyPrefix(rx, rz);
    return this.db.keys({ gte: p, lt: `${p}\uffff` }).all();
  }

  async save(r: StoredRegion): Promise<void> {
    try {
      // One LevelDB batch: the new base and the log's deletion are written together or not at all.
      const dels = (await this.logKeys(r.rx, r.rz)).map((key) => ({ type: 'del' as const, key }));
      await this.db.batch([{ type: 'put', key: this.key(r.rx, r.rz), value: encode(baseOf(r)) }, ...dels], SYNC);
    } catch (err) {
      throw new StorageError(`Could not store hosted region ${r.rx},${r.rz}: ${(err as Error).message}`, err);
    }
  }

  async append(rx: number, rz: number, change: RegionChange): Promise<void> {
    const p = this.logKeyPrefix(rx, rz);
    const last = this.seqs.get(p) ?? this.logKeys(rx, rz).then((keys) => (keys.length ? parseInt(keys[keys.length - 1]!.slice(p.length), 16) : 0));
    const seq = last.then((n) => n + 1);
    this.seqs.set(p, seq.catch(() => last));
    const rec = { ...(change.entries ? { entries: change.entries } : {}), ...(change.meta ? { meta: metaOf(change.meta) } : {}) };
    try {
      await this.db.put(`${p}${(await seq).toString(16).padStart(SEQ_DIGITS, '0')}`, encode(rec), SYNC);
    } catch (err) {
      throw new StorageError(`Could not append to hosted region ${rx},${rz}: ${(err as Error).message}`, err);
    }
  }

  async remove(rx: number, rz: number): Promise<void> {
    const dels = (await this.logKeys(rx, rz)).map((key) => ({ type: 'del' as const, key }));
    await this.db.batch([{ type: 'del', key: this.key(rx, rz) }, ...dels], SYNC);
  }

  /** The database belongs to the LevelStore that made this (closed with it). */
  close(): void {}
}

/** The data directory of a headless peer. */
export class LevelStore {
  private constructor(private readonly db: Db, readonly dir: string) {}

  static async open(dir: string): Promise<LevelStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const db: Db = new ClassicLevel<string, Uint8Array>(dir, { keyEncoding: 'utf8', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (err) {
      const code = (err as { cause?: { code?: string }; code?: string }).cause?.code ?? (err as { code?: string }).code;
      throw new StorageError(code === 'LEVEL_LOCKED'
        ? `Could not open ${dir}: another peer is using this data directory`
        : `Could not open the database in ${dir}: ${(err as Error).message}`, err);
    }
    return new LevelStore(db, dir);
  }

  /**
   * This node's identity keypair, minted (its id shows `bits` of work, core/id-work.ts) and
   * stored the first time (its id derived through node:crypto's scrypt, as a tab's through
   * plain JS). One kept from before ids cost work, or from when a node id was SHA-256 of
   * the key (loaded now, its id is the scrypt of the key, which shows the work only by
   * chance), is replaced, since peers refuse it: the peer comes back under a new id (and,
   * headless, as a new player).
   */
  async nodeIdentity(bits = ID_WORK_BITS): Promise<Identity> {
    const raw = await this.db.get(NODE_IDENTITY_KEY);
    if (raw) {
      const kept = await identityFromJson(JSON.parse(new TextDecoder().decode(raw)) as IdentityJson, 'node');
      if (idWorkOk(kept.id, bits)) return kept;
    }
    const id = await generateNodeIdentity({ bits, derive: nativeNodeId });
    await this.keepNodeIdentity(id);
    return id;
  }

  /** Stores `id` as this node's identity (what `nodeIdentity` loads next). */
  async keepNodeIdentity(id: Identity): Promise<void> {
    await this.db.put(NODE_IDENTITY_KEY, new TextEncoder().encode(JSON.stringify(await id.toJson())), SYNC);
  }

  /** The regions `owner` (a node id in hex) hosts in the world whose store scope (store-scope.ts) is `scope`. */
  hostStore(scope: string, owner: string): LevelHostStore {
    return new LevelHostStore(this.db, scope, owner);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
