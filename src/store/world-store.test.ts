import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { WorldStore } from './world-store';
import { explainStorageFailure, StorageError } from './storage-error';

describe('WorldStore', () => {
  it('keeps edits per world and chunk, player and settings, across reopen', async () => {
    const a = await WorldStore.open('alpha', 'test-db-1');
    await a.saveChunkEdits(-1, 2, new Uint8Array([1, 2, 3]));
    await a.savePlayer({ x: 1.5, y: 70, z: -3, yaw: 1, pitch: -0.2, flying: false, selected: 2 });
    await a.saveSetting('renderDistance', 6);
    a.close();
    const again = await WorldStore.open('alpha', 'test-db-1');
    expect(await again.loadChunkEdits(-1, 2)).toEqual(new Uint8Array([1, 2, 3]));
    expect(await again.loadChunkEdits(2, -1)).toBeUndefined();
    expect((await again.loadPlayer())?.z).toBe(-3);
    expect(await again.loadSetting('renderDistance')).toBe(6);
    expect(await again.editedChunks()).toEqual([[-1, 2]]);
    const other = await WorldStore.open('beta', 'test-db-1');
    expect(await other.loadChunkEdits(-1, 2)).toBeUndefined();
    expect(await other.loadPlayer()).toBeUndefined();
    again.close();
    other.close();
  });

  it('explains quota and private-mode failures in words a player can act on', () => {
    const quota = explainStorageFailure('save your edit', Object.assign(new Error('x'), { name: 'QuotaExceededError' }));
    expect(quota).toBeInstanceOf(StorageError);
    expect(quota.message).toMatch(/quota is full/);
    expect(explainStorageFailure('open', Object.assign(new Error('x'), { name: 'InvalidStateError' })).message).toMatch(/private mode/);
  });
});
