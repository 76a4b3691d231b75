// The simulator's host store: the same interface and stored form as IdbHostStore (a base
// per region + an append-only log), kept in memory. The object outlives a simulated node,
// so a node restarted with the same id and the same store comes back with its regions (a
// reloaded tab). `failWrites` simulates a full disk; `holdWrites` a slow one (writes resolve
// only on releaseWrites()); `slowWrites` a busy tab's IndexedDB (each write lands `ms` after
// the one before it, as readwrite transactions on one store run one at a time).
import type { Clock } from '../core/clock';
import { baseOf, gather, metaOf, withLog, payloadBytes, type HostStore, type LogRecord, type RegionChange, type StoredRegion } from './host-store';

const copyMeta = <T extends { cert?: Uint8Array; items?: Uint8Array; accepted?: { e: number; hosts: Uint8Array[]; p?: Uint8Array }[] }>(r: T): T => ({
  ...r,
  ...(r.cert ? { cert: r.cert.slice() } : {}), ...(r.items ? { items: r.items.slice() } : {}),
  ...(r.accepted ? { accepted: r.accepted.map((q) => ({ ...q, hosts: q.hosts.map((h) => h.slice()), ...(q.p ? { p: q.p.slice() } : {}) })) } : {}),
});

export class MemoryHostStore implements HostStore {
  private readonly bases = new Map<string, StoredRegion>();
  private log: LogRecord[] = [];
  failWrites = false;
  holdWrites = false;
  /** Write transactions (saves and appends). */
  writes = 0;
  /** Payload bytes written (as IdbHostStore counts them). */
  bytesWritten = 0;
  private held: (() => void)[] = [];
  /** Writes take this long each, one after another, on this clock (unset: at once). */
  slowWrites: { clock: Clock; ms: number } | undefined;
  private slowDoneAt = -Infinity;

  loadAll(): Promise<StoredRegion[]> {
    return Promise.resolve(gather([...this.bases.values()], this.log, (b) => `${b.rx},${b.rz}`));
  }

  load(rx: number, rz: number): Promise<StoredRegion | undefined> {
    const k = `${rx},${rz}`;
    const base = this.bases.get(k), log = this.log.filter((r) => r.k === k);
    return Promise.resolve(base || log.length ? withLog(rx, rz, base, log) : undefined);
  }

  /** Log records held for a region (tests: compaction drops them). */
  logLength(rx: number, rz: number): number {
    return this.log.filter((r) => r.k === `${rx},${rz}`).length;
  }

  save(r: StoredRegion): Promise<void> {
    const base = copyMeta({ ...baseOf(r), entries: r.entries.slice() });
    const k = `${r.rx},${r.rz}`;
    return this.write(payloadBytes(base), () => {
      this.bases.set(k, base);
      this.log = this.log.filter((q) => q.k !== k);
    });
  }

  append(rx: number, rz: number, change: RegionChange): Promise<void> {
    const rec: LogRecord = { k: `${rx},${rz}`, ...(change.entries ? { entries: change.entries.slice() } : {}), ...(change.meta ? { meta: copyMeta(metaOf(change.meta)) } : {}) };
    return this.write(payloadBytes(rec), () => void this.log.push(rec));
  }

  private write(bytes: number, apply: () => void): Promise<void> {
    if (this.failWrites) return Promise.reject(new Error('simulated storage failure'));
    this.writes++;
    this.bytesWritten += bytes;
    const slow = this.slowWrites;
    if (slow && !this.holdWrites) {
      const now = slow.clock.now();
      this.slowDoneAt = Math.max(now, this.slowDoneAt) + slow.ms;
      return new Promise((resolve) => slow.clock.setTimeout(() => (apply(), resolve()), this.slowDoneAt - now));
    }
    if (!this.holdWrites) {
      apply();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.held.push(() => (apply(), resolve())));
  }

  /** Completes the held writes, in order. */
  releaseWrites(): void {
    this.holdWrites = false;
    const held = this.held;
    this.held = [];
    for (const w of held) w();
  }

  remove(rx: number, rz: number): Promise<void> {
    const k = `${rx},${rz}`;
    this.bases.delete(k);
    this.log = this.log.filter((q) => q.k !== k);
    return Promise.resolve();
  }

  close(): void {}
}
