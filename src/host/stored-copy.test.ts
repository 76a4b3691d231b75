import { describe, expect, it } from 'vitest';
import { MemoryHostStore } from '../store/host-store-memory';
import { decodeEntries, RegionState, type Entry } from '../region/region-state';
import { COMPACT_MIN_BYTES, COMPACT_RECORDS, StoredCopy } from './stored-copy';

const entry = (key: number, s: number, id = 1, e = 2): Entry => ({ key, id, e, s });

/** What a reloaded host rebuilds from the store (hosting-service.ts start): base + log merged. */
async function reload(store: MemoryHostStore): Promise<{ state: RegionState; promised: number; cert?: Uint8Array }> {
  const [r] = await store.loadAll();
  const state = RegionState.from(decodeEntries(r!.entries));
  for (const b of r!.log ?? []) state.merge(decodeEntries(b));
  return { state, promised: r!.promised, ...(r!.cert ? { cert: r!.cert } : {}) };
}

describe('StoredCopy (what a persist writes)', () => {
  it('writes a base first, then appends only the entries whose stamps moved; the election record only when it changed', async () => {
    const store = new MemoryHostStore(), copy = new StoredCopy(1, -2);
    const state = RegionState.from(Array.from({ length: 500 }, (_, i) => entry(i, i + 1)));
    expect(await copy.write(store, state.all(), { promised: 2 })).toEqual({ kind: 'base', bytes: 500 * 12 });
    state.merge([entry(7, 900, 3)]);
    expect(await copy.write(store, state.all(), { promised: 2 })).toEqual({ kind: 'append', bytes: 12 });
    expect(await copy.write(store, state.all(), { promised: 2 })).toEqual({ kind: 'none', bytes: 0 });
    const before = store.bytesWritten;
    const cert = new Uint8Array([4, 4]);
    expect(await copy.write(store, state.all(), { promised: 3, cert })).toEqual({ kind: 'append', bytes: 0 });
    expect(store.bytesWritten - before).toBe(8 + 2);
    state.merge([entry(600, 901, 5), entry(8, 902, 6)]);
    expect(await copy.write(store, state.all(), { promised: 3, cert: cert.slice() })).toEqual({ kind: 'append', bytes: 24 });
    expect(store.logLength(1, -2)).toBe(3);
    const back = await reload(store);
    expect(back.state.fingerprint()).toBe(state.fingerprint());
    expect(back.promised).toBe(3);
    expect(back.cert).toEqual(cert);
  });

  it('compacts after COMPACT_RECORDS appends: a new base, the log dropped with it, nothing lost', async () => {
    const store = new MemoryHostStore(), copy = new StoredCopy(0, 0);
    const state = new RegionState();
    await copy.write(store, state.all(), { promised: 1 });
    const kinds: string[] = [];
    for (let i = 1; i <= COMPACT_RECORDS + 1; i++) {
      state.merge([entry(i % 50, i)]);
      kinds.push((await copy.write(store, state.all(), { promised: 1 })).kind);
      // A "crash" after any write: what a reload rebuilds is the state.
      if (i % 101 === 0 || i >= COMPACT_RECORDS) expect((await reload(store)).state.fingerprint()).toBe(state.fingerprint());
    }
    expect(kinds.filter((k) => k === 'base')).toEqual(['base']);
    expect(kinds[COMPACT_RECORDS]).toBe('base');
    expect(store.logLength(0, 0)).toBe(0);
  });

  it('compacts once the log holds as many bytes as the base (at least COMPACT_MIN_BYTES)', async () => {
    const store = new MemoryHostStore(), copy = new StoredCopy(0, 0);
    const state = RegionState.from(Array.from({ length: 2000 }, (_, i) => entry(i, i + 1)));
    await copy.write(store, state.all(), { promised: 1 });
    const big = Math.ceil(Math.max(COMPACT_MIN_BYTES, 2000 * 12) / 12);
    state.merge(Array.from({ length: big - 1 }, (_, i) => entry(i, 5000 + i)));
    expect((await copy.write(store, state.all(), { promised: 1 })).kind).toBe('append');
    state.merge([entry(1, 9000)]);
    expect((await copy.write(store, state.all(), { promised: 1 })).kind).toBe('append');
    state.merge([entry(2, 9001)]);
    expect((await copy.write(store, state.all(), { promised: 1 })).kind).toBe('base');
    expect((await reload(store)).state.fingerprint()).toBe(state.fingerprint());
  });

  it('notices an election record changed in place by its owner (kept a copy)', async () => {
    const store = new MemoryHostStore(), copy = new StoredCopy(0, 0);
    const accepted = [{ e: 3, hosts: [new Uint8Array([1])] }];
    await copy.write(store, [], { promised: 3, accepted });
    accepted.push({ e: 4, hosts: [new Uint8Array([2])] });
    expect((await copy.write(store, [], { promised: 3, accepted })).kind).toBe('append');
    expect((await store.loadAll())[0]!.accepted).toHaveLength(2);
  });

  it('writes a base when an entry went backwards or vanished, and after a failed write', async () => {
    const store = new MemoryHostStore(), copy = new StoredCopy(0, 0);
    await copy.write(store, [entry(1, 5), entry(2, 6)], { promised: 1 });
    expect((await copy.write(store, [entry(1, 5)], { promised: 1 })).kind).toBe('base');
    expect((await copy.write(store, [entry(1, 4)], { promised: 1 })).kind).toBe('base');
    expect((await reload(store)).state.fingerprint()).toBe(RegionState.from([entry(1, 4)]).fingerprint());
    store.failWrites = true;
    await expect(copy.write(store, [entry(1, 9)], { promised: 1 })).rejects.toThrow();
    store.failWrites = false;
    expect((await copy.write(store, [entry(1, 9)], { promised: 1 })).kind).toBe('base');
  });
});
