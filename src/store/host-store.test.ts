import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IdbHostStore } from './host-store';
import { MemoryHostStore } from './host-store-memory';
import { LevelStore } from './level-store';

// The headless peer's store (Node, LevelDB) passes the same checks.
const levelDir = mkdtempSync(join(tmpdir(), 'vp-host-store-'));
let level: Promise<LevelStore> | undefined;
afterAll(async () => {
  await (await level)?.close();
  rmSync(levelDir, { recursive: true, force: true });
});

describe('host stores', () => {
  for (const [name, open] of [
    ['idb', (world: string) => IdbHostStore.open(world, 'node-a', 'test-hosting-1')],
    ['memory', (() => { const m = new Map<string, MemoryHostStore>(); return (world: string) => Promise.resolve(m.get(world) ?? m.set(world, new MemoryHostStore()).get(world)!); })()],
    ['level', async (world: string) => (await (level ??= LevelStore.open(levelDir))).hostStore(world, 'node-a')],
  ] as const) {
    it(`${name}: a region is its base + the log appended since, in order, until compaction folds it (one write)`, async () => {
      const a = await open('logs');
      await a.save({ rx: 3, rz: -4, entries: new Uint8Array([1]), promised: 2, promisedTo: 'aa' });
      await a.append(3, -4, { entries: new Uint8Array([2, 2]) });
      const cert = new Uint8Array([7, 7, 7]);
      await a.append(3, -4, { meta: { promised: 3, promisedTo: 'bb', cert, accepted: [{ e: 4, hosts: [new Uint8Array([5])] }], items: new Uint8Array([9]), learnt: { promised: 1, promisedTo: 'cc' } } });
      await a.append(3, -4, { entries: new Uint8Array([3]) });
      // A region seen only in the log (no base yet) loads too.
      await a.append(-1, 0, { entries: new Uint8Array([8]), meta: { promised: 1 } });
      // "Crash" between append and compaction: a store opened afresh reads the base and the whole log.
      const reopened = name === 'idb' ? await IdbHostStore.open('logs', 'node-a', 'test-hosting-1') : await open('logs');
      const sorted = async () => (await reopened.loadAll()).sort((x, y) => x.rx - y.rx);
      const meta = { promised: 3, promisedTo: 'bb', cert, accepted: [{ e: 4, hosts: [new Uint8Array([5])] }], items: new Uint8Array([9]), learnt: { promised: 1, promisedTo: 'cc' } };
      expect(await sorted()).toEqual([
        { rx: -1, rz: 0, entries: new Uint8Array([]), promised: 1, log: [new Uint8Array([8])] },
        { rx: 3, rz: -4, entries: new Uint8Array([1]), ...meta, log: [new Uint8Array([2, 2]), new Uint8Array([3])] },
      ]);
      // Compaction: a new base; the log is gone with it.
      await reopened.save({ rx: 3, rz: -4, entries: new Uint8Array([1, 2, 3]), ...meta });
      expect((await sorted())[1]).toEqual({ rx: 3, rz: -4, entries: new Uint8Array([1, 2, 3]), ...meta });
      // Appends after a compaction continue the log (the LevelStore's sequence goes on from its last key).
      await a.append(3, -4, { entries: new Uint8Array([4]) });
      await reopened.append(3, -4, { entries: new Uint8Array([5]) });
      expect((await sorted())[1]!.log).toEqual([new Uint8Array([4]), new Uint8Array([5])]);
      // One region read alone (an unloaded region read back) is what loadAll gives of it.
      expect(await reopened.load(3, -4)).toEqual((await sorted())[1]);
      expect(await reopened.load(-1, 0)).toEqual((await sorted())[0]);
      expect(await reopened.load(3, 4)).toBeUndefined();
      await reopened.remove(3, 4);
      await reopened.remove(3, -4);
      await reopened.remove(-1, 0);
      expect(await reopened.loadAll()).toEqual([]);
    });

    it(`${name}: keeps each region's entries and promise, per world`, async () => {
      const a = await open('alpha');
      await a.save({ rx: -1, rz: 2, entries: new Uint8Array([1, 2, 3]), promised: 4 });
      await a.save({ rx: -1, rz: 2, entries: new Uint8Array([9]), promised: 5 });
      await a.save({ rx: 0, rz: 0, entries: new Uint8Array([]), promised: 1 });
      const all = (await a.loadAll()).sort((x, y) => x.rx - y.rx);
      expect(all).toEqual([
        { rx: -1, rz: 2, entries: new Uint8Array([9]), promised: 5 },
        { rx: 0, rz: 0, entries: new Uint8Array([]), promised: 1 },
      ]);
      await a.remove(0, 0);
      expect(await a.loadAll()).toHaveLength(1);
      if (name !== 'memory') expect(await (await open('beta')).loadAll()).toEqual([]);
      if (name === 'idb') expect(await (await IdbHostStore.open('alpha', 'node-b', 'test-hosting-1')).loadAll()).toEqual([]);
      if (name === 'level') expect(await (await level!).hostStore('alpha', 'node-b').loadAll()).toEqual([]);
    });
  }
});
