import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { IdbTentativeStore, type TentativeRecord } from './tentative-store';

const rec = (x: number, id: number, made: number): TentativeRecord => ({ x, y: 70, z: -3, id, at: { x: x + 0.5, y: 69, z: -2.5 }, made });

describe('IdbTentativeStore', () => {
  it('keeps one record per block and world, oldest first, across reopen; removes only the record it was asked for', async () => {
    const a = await IdbTentativeStore.open('alpha', 'tentative-db-1');
    await a.put(rec(5, 11, 2000));
    await a.put(rec(1, 9, 1000));
    await a.put(rec(5, 12, 3000)); // a newer edit of the same block replaces the older
    a.close();
    const again = await IdbTentativeStore.open('alpha', 'tentative-db-1');
    expect(await again.loadAll()).toEqual([rec(1, 9, 1000), rec(5, 12, 3000)]);
    await again.remove(5, 70, -3, 2000); // the replaced record: nothing happens
    expect((await again.loadAll()).length).toBe(2);
    await again.remove(5, 70, -3, 3000);
    expect(await again.loadAll()).toEqual([rec(1, 9, 1000)]);
    const other = await IdbTentativeStore.open('beta', 'tentative-db-1');
    expect(await other.loadAll()).toEqual([]);
    again.close();
    other.close();
  });
});
