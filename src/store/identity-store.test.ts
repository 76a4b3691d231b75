import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { idEquals, idToHex } from '../core/node-id';
import { generateIdentity } from '../core/identity';
import {
  claimNodeIdentity, exportPlayerIdentity, importPlayerIdentity, loadPlayerIdentity, type LockManagerLike,
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

describe('identity store (Web Locks)', () => {
  it('two tabs get different node ids; a reload gets the same one back', async () => {
    const db = dbName();
    const locks = fakeLocks();
    const a = await claimNodeIdentity({ dbName: db, locks });
    const b = await claimNodeIdentity({ dbName: db, locks });
    expect(a.lockKind).toBe('web-locks');
    expect([a.slot, b.slot]).toEqual([0, 1]);
    expect(idEquals(a.identity.id, b.identity.id)).toBe(false);
    const idA = idToHex(a.identity.id);
    await a.release();
    await a.release(); // idempotent
    const again = await claimNodeIdentity({ dbName: db, locks });
    expect(again.slot).toBe(0);
    expect(idToHex(again.identity.id)).toBe(idA);
    await Promise.all([again.release(), b.release()]);
    expect(locks.held.size).toBe(0);
  });

  it('past the pool size a tab gets an ephemeral identity', async () => {
    const db = dbName();
    const locks = fakeLocks();
    const claims = [await claimNodeIdentity({ dbName: db, locks, poolSize: 2 }), await claimNodeIdentity({ dbName: db, locks, poolSize: 2 })];
    const extra = await claimNodeIdentity({ dbName: db, locks, poolSize: 2 });
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
    const a = await claimNodeIdentity({ dbName: db, locks: null });
    const b = await claimNodeIdentity({ dbName: db, locks: null });
    expect(a.lockKind).toBe('lease');
    expect(a.slot).not.toBe(b.slot);
    const idA = idToHex(a.identity.id);
    await a.release();
    const c = await claimNodeIdentity({ dbName: db, locks: null });
    expect(c.slot).toBe(a.slot);
    expect(idToHex(c.identity.id)).toBe(idA);
    await Promise.all([b.release(), c.release()]);
  });

  it('an expired lease (crashed tab) frees its slot', async () => {
    const db = dbName();
    const noTimers = { now: () => 0, setTimeout: () => 0, clearTimeout: () => undefined };
    const a = await claimNodeIdentity({ dbName: db, locks: null, leaseMs: 1, clock: noTimers });
    await new Promise((r) => setTimeout(r, 10));
    const b = await claimNodeIdentity({ dbName: db, locks: null, leaseMs: 1, clock: noTimers });
    expect(b.slot).toBe(a.slot);
    await Promise.all([a.release(), b.release()]);
  });
});

describe('player identity', () => {
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
