// Two worlds of one name and two seeds, in one browser profile and one headless data dir:
// each keeps its own hosted regions (blocks and items), tentative edits, chunks and place,
// and sees none of the other's. The default seed (the name) reads what was kept under the
// name before seeds were told apart.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IdbHostStore, type HostStore, type StoredRegion } from './host-store';
import { LevelStore } from './level-store';
import { storeScope } from './store-scope';
import { IdbTentativeStore, type TentativeRecord } from './tentative-store';
import { WorldStore } from './world-store';

const levelDir = mkdtempSync(join(tmpdir(), 'vp-store-scope-'));
let level: Promise<LevelStore> | undefined;
afterAll(async () => {
  await (await level)?.close();
  rmSync(levelDir, { recursive: true, force: true });
});

const WORLD = 'twin';
/** The world at its default seed (the name) and at another. */
const A = storeScope(WORLD, WORLD);
const B = storeScope(WORLD, 'other-seed');
const region = (block: number, item: number): StoredRegion => ({ rx: 0, rz: 0, entries: new Uint8Array([block]), promised: 1, items: new Uint8Array([item]) });
const tentative = (x: number): TentativeRecord => ({ x, y: 70, z: 0, id: 1, at: { x, y: 70, z: 1 }, made: x });

describe('a world is its name and its seed in the local stores', () => {
  it('the default seed keeps the name itself as its key; another seed another key, distinct per seed', () => {
    expect(A).toBe(WORLD);
    expect(B).not.toBe(WORLD);
    expect(storeScope(WORLD, 'third-seed')).not.toBe(B);
    expect(B.startsWith(`${WORLD}|`)).toBe(false);
  });

  for (const [name, open] of [
    ['idb', (scope: string) => IdbHostStore.open(scope, 'node-a', 'store-scope-hosting')],
    ['level', async (scope: string) => (await (level ??= LevelStore.open(levelDir))).hostStore(scope, 'node-a')],
  ] as const) {
    it(`${name} host store: the region (its blocks and items) hosted under one seed is not the other's`, async () => {
      const a: HostStore = await open(A);
      const b: HostStore = await open(B);
      await a.save(region(1, 11));
      expect(await b.loadAll()).toEqual([]);
      expect(await b.load(0, 0)).toBeUndefined();
      await b.save(region(2, 22));
      await b.append(0, 0, { entries: new Uint8Array([3]) });
      expect(await a.loadAll()).toEqual([region(1, 11)]);
      expect(await b.loadAll()).toEqual([{ ...region(2, 22), log: [new Uint8Array([3])] }]);
      a.close();
      b.close();
    });
  }

  it('tentative edits made under one seed are not the other\'s', async () => {
    const a = await IdbTentativeStore.open(A, 'store-scope-tentative');
    const b = await IdbTentativeStore.open(B, 'store-scope-tentative');
    await a.put(tentative(5));
    expect(await b.loadAll()).toEqual([]);
    await b.put(tentative(6));
    expect(await a.loadAll()).toEqual([tentative(5)]);
    expect(await b.loadAll()).toEqual([tentative(6)]);
    a.close();
    b.close();
  });

  it('the one-tab world\'s chunks and the player\'s place kept under one seed are not the other\'s', async () => {
    const a = await WorldStore.open(A, 'store-scope-world');
    const b = await WorldStore.open(B, 'store-scope-world');
    await a.saveChunkEdits(1, 2, new Uint8Array([7]));
    await a.savePlayer({ x: 1, y: 70, z: 2, yaw: 0, pitch: 0, flying: false, selected: 0 });
    expect(await b.loadChunkEdits(1, 2)).toBeUndefined();
    expect(await b.editedChunks()).toEqual([]);
    expect(await b.loadPlayer()).toBeUndefined();
    a.close();
    b.close();
  });

  it('records kept under the world\'s name before seeds were told apart are the default seed\'s only', async () => {
    // As a tab before kept them: keyed by the name alone.
    const before = await IdbTentativeStore.open(WORLD, 'store-scope-old');
    await before.put(tentative(9));
    before.close();
    expect(await (await IdbTentativeStore.open(A, 'store-scope-old')).loadAll()).toEqual([tentative(9)]);
    expect(await (await IdbTentativeStore.open(B, 'store-scope-old')).loadAll()).toEqual([]);
  });
});
