// The local world database (IndexedDB through idb): each chunk's edit log, the player's
// last position and the settings, per world (its name and seed: store-scope.ts). Every write resolves only once its
// transaction has committed, so "stored" means it survives a reload or a crash.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { WRITE_DURABILITY } from './durability';
import type { Pose } from '../world/pose';
import { explainStorageFailure } from './storage-error';

export const WORLD_DB_NAME = 'voxel-populi-world';
const DB_VERSION = 1;

export interface SavedPlayer extends Pose {
  flying: boolean;
  selected: number;
  /** When this copy was written (epoch ms): the newer of two copies wins on load. */
  savedAt?: number;
}

interface WorldSchema extends DBSchema {
  /** key: `${scope}|${cx},${cz}` -> encoded edit log of the chunk (scope: the world's, store-scope.ts) */
  edits: { key: string; value: Uint8Array };
  /** key: the world's scope */
  player: { key: string; value: SavedPlayer };
  /** key: setting name */
  settings: { key: string; value: unknown };
}

export class WorldStore {
  private constructor(private readonly db: IDBPDatabase<WorldSchema>, readonly scope: string) {}

  /** The records of the world whose store scope (store-scope.ts) is `scope`. */
  static async open(scope: string, dbName = WORLD_DB_NAME): Promise<WorldStore> {
    try {
      if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available');
      const db = await openDB<WorldSchema>(dbName, DB_VERSION, {
        upgrade(d) {
          d.createObjectStore('edits');
          d.createObjectStore('player');
          d.createObjectStore('settings');
        },
        blocked() { /* another tab holds an old version; it will close on versionchange */ },
      });
      // Let a newer tab upgrade the schema instead of hanging on us.
      db.addEventListener('versionchange', () => db.close());
      return new WorldStore(db, scope);
    } catch (err) {
      throw explainStorageFailure('open the world database', err);
    }
  }

  private chunkKey(cx: number, cz: number): string {
    return `${this.scope}|${cx},${cz}`;
  }

  async loadChunkEdits(cx: number, cz: number): Promise<Uint8Array | undefined> {
    try {
      return await this.db.get('edits', this.chunkKey(cx, cz));
    } catch (err) {
      throw explainStorageFailure(`read chunk ${cx},${cz}`, err);
    }
  }

  async saveChunkEdits(cx: number, cz: number, encoded: Uint8Array): Promise<void> {
    try {
      // Not db.put(): that resolves when the request succeeds, before the commit.
      const tx = this.db.transaction('edits', 'readwrite', { durability: WRITE_DURABILITY });
      await Promise.all([tx.store.put(encoded, this.chunkKey(cx, cz)), tx.done]);
    } catch (err) {
      throw explainStorageFailure(`save your edit in chunk ${cx},${cz}`, err);
    }
  }

  /** Chunk columns of this world that have stored edits. */
  async editedChunks(): Promise<[number, number][]> {
    const prefix = `${this.scope}|`;
    const keys = await this.db.getAllKeys('edits', IDBKeyRange.bound(prefix, `${prefix}\uffff`));
    return keys.map((k) => k.slice(prefix.length).split(',').map(Number) as [number, number]);
  }

  async loadPlayer(): Promise<SavedPlayer | undefined> {
    try {
      return await this.db.get('player', this.scope);
    } catch (err) {
      throw explainStorageFailure('read your saved position', err);
    }
  }

  async savePlayer(p: SavedPlayer): Promise<void> {
    try {
      await this.db.put('player', p, this.scope);
    } catch (err) {
      throw explainStorageFailure('save your position', err);
    }
  }

  async loadSetting<T>(name: string): Promise<T | undefined> {
    return (await this.db.get('settings', name)) as T | undefined;
  }

  async saveSetting(name: string, value: unknown): Promise<void> {
    try {
      await this.db.put('settings', value, name);
    } catch (err) {
      throw explainStorageFailure(`save setting ${name}`, err);
    }
  }

  close(): void {
    this.db.close();
  }
}
