// The headless peer's store (Node): one LevelDB database (classic-level) in its data
// directory keeps what a tab keeps in IndexedDB: the node identity (the same node id after
// a restart) and the regions it hosts (the HostStore interface of host-store.ts). Every
// write is synchronous on disk (`sync: true`, an fsync of LevelDB's log) and resolves only
// after it, so a region reported stored survives the process being killed, or the machine
// losing power, right after. LevelDB holds a lock on the directory: a second peer started
// on the same data dir is refused instead of sharing (and corrupting) its records.
import { mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { decode, encode } from '@msgpack/msgpack';
import { generateIdentity, identityFromJson, type Identity, type IdentityJson } from '../core/identity';
import type { HostStore, StoredRegion } from './host-store';
import { StorageError } from './storage-error';

type Db = ClassicLevel<string, Uint8Array>;

const NODE_IDENTITY_KEY = 'identity|node';
const SYNC = { sync: true } as const;

const regionPrefix = (world: string, owner: string) => `region|${world}|${owner}|`;

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
  if (!o || typeof o.rx !== 'number' || typeof o.rz !== 'number' || !(o.entries instanceof Uint8Array) || typeof o.promised !== 'number') return undefined;
  return {
    rx: o.rx, rz: o.rz, entries: o.entries, promised: o.promised,
    ...(typeof o.promisedTo === 'string' ? { promisedTo: o.promisedTo } : {}),
    ...(o.cert instanceof Uint8Array ? { cert: o.cert } : {}),
    ...(Array.isArray(o.accepted) ? { accepted: o.accepted } : {}),
  };
}

/** One world's hosted regions for one node, in the data dir's database. */
export class LevelHostStore implements HostStore {
  constructor(private readonly db: Db, readonly world: string, readonly owner: string) {}

  private key(rx: number, rz: number): string {
    return `${regionPrefix(this.world, this.owner)}${rx},${rz}`;
  }

  async loadAll(): Promise<StoredRegion[]> {
    const prefix = regionPrefix(this.world, this.owner);
    try {
      const out: StoredRegion[] = [];
      for await (const raw of this.db.values({ gte: prefix, lt: `${prefix}\uffff` })) {
        const r = toRegion(raw);
        if (r) out.push(r);
      }
      return out;
    } catch (err) {
      throw new StorageError(`Could not read hosted regions: ${(err as Error).message}`, err);
    }
  }

  async save(r: StoredRegion): Promise<void> {
    const rec: StoredRegion = {
      rx: r.rx, rz: r.rz, entries: r.entries, promised: r.promised,
      ...(r.promisedTo ? { promisedTo: r.promisedTo } : {}), ...(r.cert ? { cert: r.cert } : {}), ...(r.accepted ? { accepted: r.accepted } : {}),
    };
    try {
      await this.db.put(this.key(r.rx, r.rz), encode(rec), SYNC);
    } catch (err) {
      throw new StorageError(`Could not store hosted region ${r.rx},${r.rz}: ${(err as Error).message}`, err);
    }
  }

  async remove(rx: number, rz: number): Promise<void> {
    await this.db.del(this.key(rx, rz), SYNC);
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

  /** This node's identity keypair, created and stored the first time. */
  async nodeIdentity(): Promise<Identity> {
    const raw = await this.db.get(NODE_IDENTITY_KEY);
    if (raw) return identityFromJson(JSON.parse(new TextDecoder().decode(raw)) as IdentityJson);
    const id = await generateIdentity();
    await this.db.put(NODE_IDENTITY_KEY, new TextEncoder().encode(JSON.stringify(await id.toJson())), SYNC);
    return id;
  }

  /** The regions `owner` (a node id in hex) hosts in `world`. */
  hostStore(world: string, owner: string): LevelHostStore {
    return new LevelHostStore(this.db, world, owner);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
