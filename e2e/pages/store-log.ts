// Test-only page script: the real IdbHostStore in Chromium, written the way a host writes
// it (host/stored-copy.ts: a base, then per committed edit an append of what changed,
// compaction past the log limits). Edit i sets block key i % KEYS to a block id from i with
// stamp (2, BASE + i), so a test can tell from i alone what must be stored. Exposed as
// window.vpStoreLog: write() logs "stored i" on the console once edit i's write resolved
// (a test crashes the renderer mid-stream), load() reads the store back as a reloaded host
// does, bench() measures bytes and time per edit against rewriting the region each edit.
import { IdbHostStore } from '../../src/store/host-store';
import { decodeEntries, encodeEntries, RegionState, type Entry } from '../../src/region/region-state';
import { StoredCopy } from '../../src/host/stored-copy';
import { BLOCK_COUNT } from '../../src/world/blocks';

const DB = 'vp-store-log';
const KEYS = 4000;
const BASE = 1000;

export const editOf = (i: number): Entry => ({ key: i % KEYS, id: 1 + (i % (BLOCK_COUNT - 1)), e: 2, s: BASE + i });
const baseState = (n: number) => RegionState.from(Array.from({ length: n }, (_, k) => ({ key: k * 7 % KEYS, id: 3, e: 1, s: k + 1 })));

export interface StoreBenchRun {
  /** Payload bytes handed to IndexedDB per edit (the first base excluded). */
  bytesPerEdit: { log: number; rewrite: number };
  /** ms per edit's write, in order. */
  ms: { log: number[]; rewrite: number[] };
  /** Writes that were a new base (compactions) in the log run. */
  compactions: number;
  regionBytes: number;
}

declare global {
  interface Window {
    vpStoreLog: {
      write(world: string, from: number, to: number, baseEntries: number): Promise<string[]>;
      load(world: string): Promise<{ entries: [number, number, number][]; logRecords: number }>;
      bench(edits: number, baseEntries: number): Promise<StoreBenchRun>;
    };
  }
}

window.vpStoreLog = {
  async write(world, from, to, baseEntries) {
    const store = await IdbHostStore.open(world, 'node', DB);
    // What is stored already (a reloaded page goes on from it): a host restores, then its first write is a base.
    const [stored] = await store.loadAll();
    const state = stored ? RegionState.from(decodeEntries(stored.entries)) : baseState(baseEntries);
    for (const b of stored?.log ?? []) state.merge(decodeEntries(b));
    const copy = new StoredCopy(0, 0);
    const kinds: string[] = [(await copy.write(store, state.all(), { promised: 1 })).kind];
    for (let i = from; i <= to; i++) {
      state.merge([editOf(i)]);
      kinds.push((await copy.write(store, state.all(), { promised: 1 + Math.floor(i / 100) })).kind);
      console.log(`stored ${i}`);
    }
    store.close();
    return kinds;
  },

  async load(world) {
    const store = await IdbHostStore.open(world, 'node', DB);
    const [r] = await store.loadAll();
    store.close();
    if (!r) return { entries: [], logRecords: 0 };
    const state = RegionState.from(decodeEntries(r.entries));
    for (const b of r.log ?? []) state.merge(decodeEntries(b));
    return { entries: state.all().map((e) => [e.key, e.id, e.s]), logRecords: r.log?.length ?? 0 };
  },

  async bench(edits, baseEntries) {
    const stores = { log: await IdbHostStore.open('bench-log', 'node', `${DB}-bench`), rewrite: await IdbHostStore.open('bench-rewrite', 'node', `${DB}-bench`) };
    const state = baseState(baseEntries);
    const copy = new StoredCopy(0, 0);
    await copy.write(stores.log, state.all(), { promised: 1 });
    await stores.rewrite.save({ rx: 0, rz: 0, entries: new Uint8Array(0), promised: 1 });
    const start = { log: stores.log.bytesWritten, rewrite: stores.rewrite.bytesWritten };
    const out: StoreBenchRun = { bytesPerEdit: { log: 0, rewrite: 0 }, ms: { log: [], rewrite: [] }, compactions: 0, regionBytes: 0 };
    for (let i = 1; i <= edits; i++) {
      state.merge([editOf(i)]);
      const all = state.all();
      // Alternate which goes first, so both see the same disk and load.
      for (const mode of i % 2 ? (['log', 'rewrite'] as const) : (['rewrite', 'log'] as const)) {
        const t0 = performance.now();
        if (mode === 'log') {
          if ((await copy.write(stores.log, all, { promised: 1 })).kind === 'base') out.compactions++;
        } else {
          // The old persist: the whole region record each batch.
          await stores.rewrite.save({ rx: 0, rz: 0, entries: encodeEntries(all), promised: 1 });
        }
        out.ms[mode].push(performance.now() - t0);
      }
    }
    out.bytesPerEdit = { log: (stores.log.bytesWritten - start.log) / edits, rewrite: (stores.rewrite.bytesWritten - start.rewrite) / edits };
    out.regionBytes = state.size * 12;
    stores.log.close();
    stores.rewrite.close();
    return out;
  },
};
document.getElementById('log')!.textContent = 'ready';
