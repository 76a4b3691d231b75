// What a hosting node keeps of each region it hosted: the encoded per-block entries (the
// host layer's format; opaque here) and the highest epoch it promised. A host that reloads
// (same node id) reads them back and rejoins its regions. save() resolves once the
// transaction committed (not merely once its put succeeded): a primary confirms an edit
// only after its own save() resolved (src/host/primary-duty.ts).
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { WRITE_DURABILITY } from './durability';
import { explainStorageFailure } from './storage-error';

export const HOST_DB_NAME = 'vp-hosting';
const DB_VERSION = 1;

export interface StoredRegion {
  rx: number;
  rz: number;
  /** Encoded region entries (src/region/region-state.ts). */
  entries: Uint8Array;
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
}

export interface HostStore {
  /** Every region of this store's world. */
  loadAll(): Promise<StoredRegion[]>;
  /** Replaces the region's record; resolves once durable. */
  save(r: StoredRegion): Promise<void>;
  remove(rx: number, rz: number): Promise<void>;
  close(): void;
}

interface HostSchema extends DBSchema {
  /** key: `${world}|${owner}|${rx},${rz}` */
  regions: { key: string; value: StoredRegion };
}

export class IdbHostStore implements HostStore {
  private constructor(
    private readonly db: IDBPDatabase<HostSchema>,
    readonly world: string,
    readonly owner: string,
    /** 'strict' (WRITE_DURABILITY) but for the durability bench's side-by-side 'relaxed'. */
    private readonly durability: IDBTransactionDurability,
  ) {}

  /**
   * One database per browser profile; records are per world and per `owner` (the hosting
   * node's id in hex: two tabs of one profile are two nodes and must not share records).
   */
  static async open(world: string, owner = '', dbName = HOST_DB_NAME, durability = WRITE_DURABILITY): Promise<IdbHostStore> {
    try {
      if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
      const db = await openDB<HostSchema>(dbName, DB_VERSION, {
        upgrade(d) {
          d.createObjectStore('regions');
        },
      });
      db.addEventListener('versionchange', () => db.close());
      return new IdbHostStore(db, world, owner, durability);
    } catch (err) {
      throw explainStorageFailure('open the hosting database', err);
    }
  }

  private get prefix(): string {
    return `${this.world}|${this.owner}|`;
  }

  private key(rx: number, rz: number): string {
    return `${this.prefix}${rx},${rz}`;
  }

  async loadAll(): Promise<StoredRegion[]> {
    const prefix = this.prefix;
    try {
      return await this.db.getAll('regions', IDBKeyRange.bound(prefix, `${prefix}\uffff`));
    } catch (err) {
      throw explainStorageFailure('read hosted regions', err);
    }
  }

  async save(r: StoredRegion): Promise<void> {
    try {
      // Not db.put(): that resolves when the request succeeds, before the commit.
      const tx = this.db.transaction('regions', 'readwrite', { durability: this.durability });
      await Promise.all([
        tx.store.put({ rx: r.rx, rz: r.rz, entries: r.entries, promised: r.promised, ...(r.promisedTo ? { promisedTo: r.promisedTo } : {}), ...(r.cert ? { cert: r.cert } : {}), ...(r.accepted ? { accepted: r.accepted } : {}) }, this.key(r.rx, r.rz)),
        tx.done,
      ]);
    } catch (err) {
      throw explainStorageFailure(`store hosted region ${r.rx},${r.rz}`, err);
    }
  }

  async remove(rx: number, rz: number): Promise<void> {
    await this.db.delete('regions', this.key(rx, rz));
  }

  close(): void {
    this.db.close();
  }
}
