import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { checkWork } from '../core/key-work';
import { generateIdentity } from '../core/identity';
import { importPlayerIdentity, loadPlayerIdentity, loadPlayerWork } from '../store/identity-store';
import { playerWork } from './key-work-minter';

describe('the player key\'s work', () => {
  it('is minted for a profile without one (from before passes), stored, then read back without minting', async () => {
    const db = `work-${Math.random()}`;
    const player = await loadPlayerIdentity(db);
    expect(await loadPlayerWork(player.publicKey, db)).toBeUndefined();
    const first = await playerWork(player.publicKey, 12, db);
    expect(first.minted).toBe(true);
    expect(checkWork(player.publicKey, first.nonce, 12)).toBe(true);
    const again = await playerWork(player.publicKey, 12, db);
    expect(again).toMatchObject({ minted: false, nonce: first.nonce });
    // Asked for more work than stored (the difficulty rose): minted again.
    const harder = await playerWork(player.publicKey, 16, db);
    expect(checkWork(player.publicKey, harder.nonce, 16)).toBe(true);
    expect(harder.minted).toBe(!checkWork(player.publicKey, first.nonce, 16));
  });

  it('an imported player key gets its own work (the stored nonce was for the old key)', async () => {
    const db = `work-${Math.random()}`;
    const old = await loadPlayerIdentity(db);
    await playerWork(old.publicKey, 10, db);
    const other = await generateIdentity();
    await importPlayerIdentity(await other.toJson(), db);
    expect(await loadPlayerWork(other.publicKey, db)).toBeUndefined();
    const w = await playerWork(other.publicKey, 10, db);
    expect(w.minted).toBe(true);
    expect(checkWork(other.publicKey, w.nonce, 10)).toBe(true);
  });
});
