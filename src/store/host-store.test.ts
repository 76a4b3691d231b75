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
    ['memory', (() => { const m = new MemoryHostStore(); return () => Promise.resolve(m); })()],
    ['level', async (world: string) => (await (level ??= LevelStore.open(levelDir))).hostStore(world, 'node-a')],
  ] as const) {
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
