// The player's tentative edits (docs/DESIGN.md "Total order across forks"): block changes no
// certified primary has confirmed yet (the tab is alone, or cut off), kept per world (its name
// and seed: store-scope.ts) until one does. One record per block (a newer tentative edit of a block replaces the older).
// Records belong to the player, not to a hosting node: any tab of the profile in the same
// world sees them. Every write resolves only once its transaction has committed.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { WRITE_DURABILITY } from './durability';
import { explainStorageFailure } from './storage-error';

export const TENTATIVE_DB_NAME = 'vp-tentative';
const DB_VERSION = 1;

export interface TentativeRecord {
  x: number;
  y: number;
  z: number;
  id: number;
  /** Where the player stood when it made the edit (a retry may claim it). */
  at: { x: number; y: number; z: number };
  /** When it was made (epoch ms): oldest first on load. */
  made: number;
  /**
   * The edit's request id (RegionClient.newRequest): its first send and every retry go under
   * it, so a primary that ordered it already (the answer lost, or too late) answers with its
   * stamp instead of ordering it again, perhaps over a newer edit of the block.
   */
  r?: number;
}

export interface TentativeStore {
  /** Every record of this store's world, oldest first. */
  loadAll(): Promise<TentativeRecord[]>;
  /** Stores the record, replacing the block's previous one; resolves once durable. */
  put(r: TentativeRecord): Promise<void>;
  /** Removes the block's record if it is still the one made at `made`. */
  remove(x: number, y: number, z: number, made: number): Promise<void>;
  close(): void;
}

interface TentativeSchema extends DBSchema {
  /** key: `${scope}|${x},${y},${z}` (scope: the world's, store-scope.ts) */
  edits: { key: string; value: TentativeRecord };
}

const byAge = (a: TentativeRecord, b: TentativeRecord) => a.made - b.made;
const copy = (r: TentativeRecord): TentativeRecord => ({ x: r.x, y: r.y, z: r.z, id: r.id, at: { x: r.at.x, y: r.at.y, z: r.at.z }, made: r.made, ...(r.r !== undefined ? { r: r.r } : {}) });

export class IdbTentativeStore implements TentativeStore {
  private constructor(private readonly db: IDBPDatabase<TentativeSchema>, readonly scope: string) {}

  /** The tentative edits of the world whose store scope (store-scope.ts) is `scope`. */
  static async open(scope: string, dbName = TENTATIVE_DB_NAME): Promise<IdbTentativeStore> {
    try {
      if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
      const db = await openDB<TentativeSchema>(dbName, DB_VERSION, {
        upgrade(d) {
          d.createObjectStore('edits');
        },
      });
      db.addEventListener('versionchange', () => db.close());
      return new IdbTentativeStore(db, scope);
    } catch (err) {
      throw explainStorageFailure('open the database of edits not yet shared', err);
    }
  }

  private get prefix(): string {
    return `${this.scope}|`;
  }

  private key(x: number, y: number, z: number): string {
    return `${this.prefix}${x},${y},${z}`;
  }

  async loadAll(): Promise<TentativeRecord[]> {
    const prefix = this.prefix;
    try {
      return (await this.db.getAll('edits', IDBKeyRange.bound(prefix, `${prefix}\uffff`))).sort(byAge);
    } catch (err) {
      throw explainStorageFailure('read your edits not yet shared', err);
    }
  }

  async put(r: TentativeRecord): Promise<void> {
    try {
      // Not db.put(): that resolves when the request succeeds, before the commit.
      const tx = this.db.transaction('edits', 'readwrite', { durability: WRITE_DURABILITY });
      await Promise.all([tx.store.put(copy(r), this.key(r.x, r.y, r.z)), tx.done]);
    } catch (err) {
      throw explainStorageFailure(`keep your edit at ${r.x},${r.y},${r.z}`, err);
    }
  }

  async remove(x: number, y: number, z: number, made: number): Promise<void> {
    const tx = this.db.transaction('edits', 'readwrite');
    const key = this.key(x, y, z);
    const held = await tx.store.get(key);
    if (held && held.made === made) await tx.store.delete(key);
    await tx.done;
  }

  close(): void {
    this.db.close();
  }
}

/** The same interface in memory: tests, and a browser whose IndexedDB cannot be opened (not durable). */
export class MemoryTentativeStore implements TentativeStore {
  private readonly records = new Map<string, TentativeRecord>();
  failWrites = false;

  loadAll(): Promise<TentativeRecord[]> {
    return Promise.resolve([...this.records.values()].map(copy).sort(byAge));
  }

  put(r: TentativeRecord): Promise<void> {
    if (this.failWrites) return Promise.reject(new Error('simulated storage failure'));
    this.records.set(`${r.x},${r.y},${r.z}`, copy(r));
    return Promise.resolve();
  }

  remove(x: number, y: number, z: number, made: number): Promise<void> {
    const key = `${x},${y},${z}`;
    if (this.records.get(key)?.made === made) this.records.delete(key);
    return Promise.resolve();
  }

  close(): void {}
}
