import { describe, expect, it } from 'vitest';
import { generateIdentity, type IdentityAlg } from '../core/identity';
import {
  decodePlayerRecord, encodePlayerRecord, makePlayerRecord, newestPlayerRecord, PlayerRecordError, signedBytes,
  MAX_HELD_IN_RECORD, MAX_PLAYER_RECORD_BYTES, verifyPlayerRecord, type PlayerRecordRejection,
} from './player-record';

const state = { x: 12.5, y: 70, z: -300.25, yaw: 1.2, pitch: -0.3 };
const T0 = 1_750_000_000_000;

async function rejected(p: Promise<unknown>): Promise<PlayerRecordRejection> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PlayerRecordError);
    return (e as PlayerRecordError).reason;
  }
  throw new Error('expected a rejection');
}

describe('player record', () => {
  for (const alg of ['Ed25519', 'ECDSA-P256'] as IdentityAlg[]) {
    it(`round-trips and verifies (${alg})`, async () => {
      const me = await generateIdentity({ alg });
      const bytes = await makePlayerRecord(me, state, T0);
      expect(bytes.length).toBeLessThan(400);
      const r = await verifyPlayerRecord(bytes, me.id, { now: T0 });
      expect(r.pos).toEqual({ x: 12.5, y: 70, z: -300.25 });
      expect([r.yaw, r.pitch, r.updatedAt, r.alg]).toEqual([1.2, -0.3, T0, alg]);
      expect(r.publicKey).toEqual(me.publicKey);
    });
  }

  it('rejects a record fetched for another player', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    expect(await rejected(verifyPlayerRecord(await makePlayerRecord(b, state, T0), a.id, { now: T0 }))).toBe('wrong-player');
  });

  it('rejects a record for player A signed by some other key B', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    const forged = { ...decodePlayerRecord(await makePlayerRecord(b, state, T0)), playerId: a.id };
    const sig = await b.sign(signedBytes(forged));
    expect(await rejected(verifyPlayerRecord(encodePlayerRecord({ ...forged, sig }), a.id, { now: T0 }))).toBe('key-mismatch');
  });

  it('rejects a tampered record (bad signature)', async () => {
    const a = await generateIdentity();
    const good = decodePlayerRecord(await makePlayerRecord(a, state, T0));
    const moved = encodePlayerRecord({ ...good, pos: { ...good.pos, x: 9999 } });
    expect(await rejected(verifyPlayerRecord(moved, a.id, { now: T0 }))).toBe('bad-signature');
    const later = encodePlayerRecord({ ...good, updatedAt: T0 + 1 });
    expect(await rejected(verifyPlayerRecord(later, a.id, { now: T0 }))).toBe('bad-signature');
    const bad = good.sig.slice();
    bad[3]! ^= 0x10;
    expect(await rejected(verifyPlayerRecord(encodePlayerRecord({ ...good, sig: bad }), a.id, { now: T0 }))).toBe('bad-signature');
  });

  it('rejects stale (replayed) and far-future records', async () => {
    const a = await generateIdentity();
    const old = await makePlayerRecord(a, state, T0);
    expect(await rejected(verifyPlayerRecord(old, a.id, { now: T0, newerThan: T0 }))).toBe('stale');
    expect(await rejected(verifyPlayerRecord(old, a.id, { now: T0, newerThan: T0 + 5000 }))).toBe('stale');
    await expect(verifyPlayerRecord(old, a.id, { now: T0, newerThan: T0 - 1 })).resolves.toBeTruthy();
    const future = await makePlayerRecord(a, state, T0 + 3_600_000);
    expect(await rejected(verifyPlayerRecord(future, a.id, { now: T0 }))).toBe('future');
  });

  it('rejects malformed bytes and out-of-schema values', async () => {
    const a = await generateIdentity();
    expect(await rejected(verifyPlayerRecord(new Uint8Array([1, 2, 3]), a.id))).toBe('malformed');
    expect(await rejected(verifyPlayerRecord(new Uint8Array(5000), a.id))).toBe('malformed');
    await expect(makePlayerRecord(a, { ...state, x: NaN }, T0)).rejects.toThrow();
    await expect(makePlayerRecord(a, { ...state, y: 1e12 }, T0)).rejects.toThrow();
  });

  it('picks the newest valid copy among DHT replicas, ignoring forgeries', async () => {
    const [a, b] = [await generateIdentity(), await generateIdentity()];
    const r1 = await makePlayerRecord(a, { ...state, x: 1 }, T0);
    const r2 = await makePlayerRecord(a, { ...state, x: 2 }, T0 + 1000);
    const forged = { ...decodePlayerRecord(await makePlayerRecord(b, { ...state, x: 666 }, T0 + 9000)), playerId: a.id };
    const f = encodePlayerRecord({ ...forged, sig: await b.sign(signedBytes(forged)) });
    const best = await newestPlayerRecord([r1, f, r2, new Uint8Array([0xc1])], a.id, { now: T0 + 2000 });
    expect(best?.pos.x).toBe(2);
    expect(await newestPlayerRecord([f], a.id)).toBeUndefined();
  });

  it('carries the held items, signed: changed after signing it does not verify; a record without items is the bytes it was before items', async () => {
    const me = await generateIdentity();
    const items = [{ id: '3,-2/7', kind: 'gem' as const }, { id: 'star-1', kind: 'star' as const }];
    const r = await verifyPlayerRecord(await makePlayerRecord(me, { ...state, items }, T0), me.id, { now: T0 });
    expect(r.items).toEqual(items);
    const swapped = encodePlayerRecord({ ...r, items: [{ id: 'star-2', kind: 'star' }] });
    expect(await rejected(verifyPlayerRecord(swapped, me.id, { now: T0 }))).toBe('bad-signature');
    const dropped = encodePlayerRecord({ ...r, items: undefined });
    expect(await rejected(verifyPlayerRecord(dropped, me.id, { now: T0 }))).toBe('bad-signature');
    // Nothing held: no items field at all, so the signed bytes are those of a record from before items.
    const bare = await verifyPlayerRecord(await makePlayerRecord(me, { ...state, items: [] }, T0), me.id, { now: T0 });
    expect(bare.items).toBeUndefined();
    const { items: _none, sig: _sig, ...rest } = bare;
    expect(signedBytes(rest)).toEqual(signedBytes({ ...rest, items: [] }));
  });

  it('lists at most MAX_HELD_IN_RECORD held items, and the longest such record still fits', async () => {
    const me = await generateIdentity({ alg: 'ECDSA-P256' });
    const items = Array.from({ length: MAX_HELD_IN_RECORD + 5 }, (_, i) => ({ id: `${'x'.repeat(34)}/${i}`.slice(-40).padStart(40, 'y'), kind: 'coin' as const }));
    const bytes = await makePlayerRecord(me, { ...state, items }, T0);
    expect(bytes.length).toBeLessThanOrEqual(MAX_PLAYER_RECORD_BYTES);
    expect((await verifyPlayerRecord(bytes, me.id, { now: T0 })).items).toHaveLength(MAX_HELD_IN_RECORD);
    // A record listing more (made by hand, not by makePlayerRecord) is neither encoded nor decoded.
    const r = decodePlayerRecord(bytes);
    expect(() => decodePlayerRecord(encodePlayerRecord({ ...r, items: [...r.items!, ...r.items!] }))).toThrow();
  });
});
