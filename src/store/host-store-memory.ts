// The simulator's host store: the same interface as IdbHostStore, kept in memory. The
// object outlives a simulated node, so a node restarted with the same id and the same
// store comes back with its regions (a reloaded tab). `failWrites` simulates a full disk;
// `holdWrites` a slow one (writes resolve only on releaseWrites()).
import type { HostStore, StoredRegion } from './host-store';

export class MemoryHostStore implements HostStore {
  private readonly regions = new Map<string, StoredRegion>();
  failWrites = false;
  holdWrites = false;
  writes = 0;
  private held: (() => void)[] = [];

  loadAll(): Promise<StoredRegion[]> {
    return Promise.resolve([...this.regions.values()].map((r) => ({ ...r, entries: r.entries.slice() })));
  }

  save(r: StoredRegion): Promise<void> {
    if (this.failWrites) return Promise.reject(new Error('simulated storage failure'));
    this.writes++;
    const write = () => void this.regions.set(`${r.rx},${r.rz}`, { rx: r.rx, rz: r.rz, entries: r.entries.slice(), promised: r.promised, ...(r.promisedTo ? { promisedTo: r.promisedTo } : {}), ...(r.cert ? { cert: r.cert.slice() } : {}), ...(r.items ? { items: r.items.slice() } : {}), ...(r.accepted ? { accepted: r.accepted.map((q) => ({ ...q, hosts: q.hosts.map((h) => h.slice()), ...(q.p ? { p: q.p.slice() } : {}) })) } : {}) });
    if (!this.holdWrites) {
      write();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.held.push(() => (write(), resolve())));
  }

  /** Completes the held writes, in order. */
  releaseWrites(): void {
    this.holdWrites = false;
    const held = this.held;
    this.held = [];
    for (const w of held) w();
  }

  remove(rx: number, rz: number): Promise<void> {
    this.regions.delete(`${rx},${rz}`);
    return Promise.resolve();
  }

  close(): void {}
}
