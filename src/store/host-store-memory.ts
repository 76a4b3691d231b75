// The simulator's host store: the same interface as IdbHostStore, kept in memory. The
// object outlives a simulated node, so a node restarted with the same id and the same
// store comes back with its regions (a reloaded tab). `failWrites` simulates a full disk.
import type { HostStore, StoredRegion } from './host-store';

export class MemoryHostStore implements HostStore {
  private readonly regions = new Map<string, StoredRegion>();
  failWrites = false;
  writes = 0;

  loadAll(): Promise<StoredRegion[]> {
    return Promise.resolve([...this.regions.values()].map((r) => ({ ...r, entries: r.entries.slice() })));
  }

  save(r: StoredRegion): Promise<void> {
    if (this.failWrites) return Promise.reject(new Error('simulated storage failure'));
    this.writes++;
    this.regions.set(`${r.rx},${r.rz}`, { rx: r.rx, rz: r.rz, entries: r.entries.slice(), promised: r.promised, ...(r.promisedTo ? { promisedTo: r.promisedTo } : {}) });
    return Promise.resolve();
  }

  remove(rx: number, rz: number): Promise<void> {
    this.regions.delete(`${rx},${rz}`);
    return Promise.resolve();
  }

  close(): void {}
}
