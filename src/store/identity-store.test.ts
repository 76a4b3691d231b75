import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { idEquals, idToHex } from '../core/node-id';
import { ID_WORK_BITS, idWorkOk } from '../core/id-work';
import { generateIdentity, identityFromJson } from '../core/identity';
import { testNodeIdentity } from '../testing/node-identities';
import { OLD_NODE_IDENTITY } from '../testing/old-node-identity';
import {
  claimNodeIdentity, exportPlayerIdentity, importPlayerIdentity, loadPlayerIdentity, openIdentityDb, playerIdentityMadeHere, type LockManagerLike,
} from './identity-store';

/** An in-process Web Locks stand-in: exclusive locks, ifAvailable only. */
function fakeLocks(): LockManagerLike & { held: Set<string> } {
  const held = new Set<string>();
  return {
    held,
    async request(name, _opts, cb) {
      if (held.has(name)) return cb(null);
      held.add(name);
      try {
        return await cb({ name });
      } finally {
        held.delete(name);
      }
    },
  };
}

let n = 0;
const dbName = () => `vp-identity-test-${n++}`;
/** Node identities minted ahead (src/testing/node-identities.ts): minting takes ~1 s each. */
const mint = () => testNodeIdentity();

describe('identity store (Web Locks)', () => {
  it('two tabs get different node ids; a reload gets the same one back', async () => {
    const db = dbName();
    const locks = fakeLocks();
    const a = await claimNodeIdentity({ mint, dbName: db, locks });
    const b = await claimNodeIdentity({ mint, dbName: db, locks });
    expect(a.lockKind).toBe('web-locks');
    expect([a.slot, b.slot]).toEqual([0, 1]);
    expect(idEquals(a.identity.id, b.identity.id)).toBe(false);
    const idA = idToHex(a.identity.id);
    await a.release();
    await a.release(); // idempotent
    const again = await claimNodeIdentity({ mint, dbName: db, locks });
    expect(again.slot).toBe(0);
    expect(idToHex(again.identity.id)).toBe(idA);
    await Promise.all([again.release(), b.release()]);
    expect(locks.held.size).toBe(0);
  });

  it('a minted key is stored behind the claim, and release waits for the write', async () => {
    const db = dbName();
    const locks = fakeLocks();
    let minted = 0;
    const a = await claimNodeIdentity({ mint: () => (minted++, mint()), dbName: db, locks });
    const released = a.release(); // at once: the write is not lost
    await released;
    const again = await claimNodeIdentity({ mint: () => (minted++, mint()), dbName: db, locks });
    expect(idToHex(again.identity.id)).toBe(idToHex(a.identity.id));
    expect(minted).toBe(1);
    await again.stored;
    await again.release();
  });

  it('past the pool size a tab gets an ephemeral identity', async () => {
    const db = dbName();
    const locks = fakeLocks();
    const claims = [await claimNodeIdentity({ mint, dbName: db, locks, poolSize: 2 }), await claimNodeIdentity({ mint, dbName: db, locks, poolSize: 2 })];
    const extra = await claimNodeIdentity({ mint, dbName: db, locks, poolSize: 2 });
    expect(extra.ephemeral).toBe(true);
    expect(extra.slot).toBe(-1);
    const ids = new Set([...claims, extra].map((c) => idToHex(c.identity.id)));
    expect(ids.size).toBe(3);
    await Promise.all(claims.map((c) => c.release()));
  });
});

describe('identity store (lease fallback without navigator.locks)', () => {
  it('distinct slots while leases are live, same id after release', async () => {
    const db = dbName();
    const a = await claimNodeIdentity({ mint, dbName: db, locks: null });
    const b = await claimNodeIdentity({ mint, dbName: db, locks: null });
    expect(a.lockKind).toBe('lease');
    expect(a.slot).not.toBe(b.slot);
    const idA = idToHex(a.identity.id);
    await a.release();
    const c = await claimNodeIdentity({ mint, dbName: db, locks: null });
    expect(c.slot).toBe(a.slot);
    expect(idToHex(c.identity.id)).toBe(idA);
    await Promise.all([b.release(), c.release()]);
  });

  it('an expired lease (crashed tab) frees its slot', async () => {
    const db = dbName();
    const noTimers = { now: () => 0, setTimeout: () => 0, clearTimeout: () => undefined };
    const a = await claimNodeIdentity({ mint, dbName: db, locks: null, leaseMs: 1, clock: noTimers });
    await new Promise((r) => setTimeout(r, 10));
    const b = await claimNodeIdentity({ mint, dbName: db, locks: null, leaseMs: 1, clock: noTimers });
    expect(b.slot).toBe(a.slot);
    await Promise.all([a.release(), b.release()]);
  });
});

describe('player identity', () => {
  it('says whether this page made the player key: not when it was read or imported', async () => {
    const db = dbName(), other = dbName();
    expect(playerIdentityMadeHere(db)).toBe(false);
    await loadPlayerIdentity(db);
    expect(playerIdentityMadeHere(db)).toBe(true);
    expect(playerIdentityMadeHere(other)).toBe(false);
    // Another page of the profile made it: read here, so a record of it may be in the DHT.
    await importPlayerIdentity(await (await generateIdentity()).toJson(), other);
    await loadPlayerIdentity(other);
    expect(playerIdentityMadeHere(other)).toBe(false);
    await importPlayerIdentity(await (await generateIdentity()).toJson(), db);
    expect(playerIdentityMadeHere(db)).toBe(false);
  });

  it('is shared, exported and imported', async () => {
    const db = dbName();
    const p1 = await loadPlayerIdentity(db);
    const p2 = await loadPlayerIdentity(db);
    expect(idEquals(p1.id, p2.id)).toBe(true);
    const json = await exportPlayerIdentity(db);
    const other = dbName();
    const imported = await importPlayerIdentity(JSON.parse(JSON.stringify(json)), other);
    expect(idEquals(imported.id, p1.id)).toBe(true);
    expect(idEquals((await loadPlayerIdentity(other)).id, p1.id)).toBe(true);
    const fresh = await generateIdentity();
    await importPlayerIdentity(await fresh.toJson(), db);
    expect(idEquals((await loadPlayerIdentity(db)).id, fresh.id)).toBe(true);
    await expect(importPlayerIdentity({ bogus: 1 }, db)).rejects.toThrow();
  });
});

describe('node ids that cost work', () => {
  it('a stored node key whose id shows too little work (kept before ids cost work) is replaced at claim; the player key is not', async () => {
    const db = dbName();
    const player = await loadPlayerIdentity(db);
    let old = await generateIdentity();
    while (idWorkOk(old.id)) old = await generateIdentity(); // 1 in 2^ID_WORK_BITS passes
    const idb = await openIdentityDb(db);
    await idb.put('node-keys', await old.toJson(), 0);
    idb.close();
    const locks = fakeLocks();
    const a = await claimNodeIdentity({ mint, dbName: db, locks });
    expect(a.slot).toBe(0);
    expect(idEquals(a.identity.id, old.id)).toBe(false);
    expect(idWorkOk(a.identity.id, ID_WORK_BITS)).toBe(true);
    await a.release();
    // Stored in its place: the next claim of the slot gets it back, minting nothing.
    const again = await claimNodeIdentity({ mint: () => Promise.reject(new Error('minted again')), dbName: db, locks });
    expect(idToHex(again.identity.id)).toBe(idToHex(a.identity.id));
    await again.release();
    expect(idEquals((await loadPlayerIdentity(db)).id, player.id)).toBe(true);
  });

  it('a stored node key of the old kind (its id SHA-256 of the key, showing the work) is minted anew at claim; the player key is kept', async () => {
    const db = dbName();
    const player = await loadPlayerIdentity(db);
    const asOld = await identityFromJson(OLD_NODE_IDENTITY, 'player');
    expect(idWorkOk(asOld.id)).toBe(true); // it passed every check while node ids were SHA-256 of the key
    const idb = await openIdentityDb(db);
    await idb.put('node-keys', OLD_NODE_IDENTITY, 0);
    idb.close();
    const locks = fakeLocks();
    const a = await claimNodeIdentity({ mint, dbName: db, locks });
    expect(a.slot).toBe(0);
    expect(idToHex(a.identity.publicKey)).not.toBe(idToHex(asOld.publicKey));
    expect(idEquals(a.identity.id, asOld.id)).toBe(false);
    expect(idWorkOk(a.identity.id)).toBe(true);
    await a.release();
    const again = await claimNodeIdentity({ mint: () => Promise.reject(new Error('minted again')), dbName: db, locks });
    expect(idToHex(again.identity.id)).toBe(idToHex(a.identity.id));
    await again.release();
    expect(idEquals((await loadPlayerIdentity(db)).id, player.id)).toBe(true);
  });
});
