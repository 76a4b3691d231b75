import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { WorldStore } from '../store/world-store';
import { BRICK, AIR } from '../world/blocks';
import { generateChunk } from '../world/terrain';
import { LocalChunkSource } from './local-chunk-source';

describe('LocalChunkSource', () => {
  it('serves generated terrain and brings stored edits back after a restart', async () => {
    const store = await WorldStore.open('w', 'lcs-test');
    const a = new LocalChunkSource('seed-1', store);
    const fresh = await a.load(-1, 0);
    expect(fresh.blocks).toEqual(generateChunk('seed-1', -1, 0).blocks);
    await a.commitEdit(-3, 100, 5, BRICK);
    await a.commitEdit(-3, 101, 5, BRICK);
    await a.commitEdit(-3, 101, 5, AIR);
    store.close();

    const b = new LocalChunkSource('seed-1', await WorldStore.open('w', 'lcs-test'));
    const c = await b.load(-1, 0);
    expect(c.get(13, 100, 5)).toBe(BRICK);
    expect(c.get(13, 101, 5)).toBe(AIR);
    // Another world of the same database is untouched.
    const other = new LocalChunkSource('seed-1', await WorldStore.open('v', 'lcs-test'));
    expect((await other.load(-1, 0)).get(13, 100, 5)).not.toBe(BRICK);
  });

  it('works without storage (edits kept in memory for the tab)', async () => {
    const s = new LocalChunkSource('seed-2', null);
    await s.commitEdit(0, 200, 0, BRICK);
    expect((await s.load(0, 0)).get(0, 200, 0)).toBe(BRICK);
  });
});
