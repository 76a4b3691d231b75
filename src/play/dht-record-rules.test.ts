// The player rule as a DHT holder and reader run it: real player records (WebCrypto).
import { describe, expect, it } from 'vitest';
import { generateIdentity } from '../core/identity';
import { checkRecord } from '../dht/record-rules';
import { encodePlayerRecord, decodePlayerRecord, makePlayerRecord } from './player-record';
import { playerRecordRule, recordRules } from './dht-record-rules';

const T0 = 1_750_000_000_000;
const state = { x: 1, y: 70, z: -3, yaw: 0, pitch: 0 };

describe('DHT record rules', () => {
  it('player: a record signed by the player is valid under the player id, version = updatedAt', async () => {
    const me = await generateIdentity();
    const other = await generateIdentity();
    const rule = playerRecordRule(() => T0);
    const bytes = await makePlayerRecord(me, state, T0 - 5000);
    expect(await rule.check(me.id, bytes, other.id)).toEqual({ ok: true, version: T0 - 5000 });
    // Stored under another player's id; signed by someone else for me; tampered; stamped far ahead; junk.
    expect(await rule.check(other.id, bytes, me.id)).toEqual({ ok: false, reason: 'wrong-player' });
    const forged = decodePlayerRecord(await makePlayerRecord(other, state, T0));
    expect(await rule.check(me.id, encodePlayerRecord({ ...forged, playerId: me.id }), other.id)).toEqual({ ok: false, reason: 'key-mismatch' });
    const moved = decodePlayerRecord(bytes);
    expect(await rule.check(me.id, encodePlayerRecord({ ...moved, pos: { x: 9, y: 9, z: 9 } }), me.id)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(await rule.check(me.id, await makePlayerRecord(me, state, T0 + 3600_000), me.id)).toEqual({ ok: false, reason: 'future' });
    expect(await rule.check(me.id, new Uint8Array(50), me.id)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a tab runs the player rule and the region record rules; test gets the default rule', async () => {
    const rules = recordRules();
    expect(Object.keys(rules).sort()).toEqual(['chunk', 'edits', 'player']);
    const me = await generateIdentity();
    expect(await checkRecord(rules, 'player', me.id, new TextEncoder().encode('alice@1,2,3'), me.id, 5)).toEqual({ ok: false, reason: 'malformed' });
    expect(await checkRecord(rules, 'chunk', me.id, new Uint8Array(10), me.id, 5)).toEqual({ ok: false, reason: 'malformed' });
    expect(await checkRecord(rules, 'edits', me.id, new Uint8Array(10), me.id, 5)).toEqual({ ok: false, reason: 'malformed' });
    expect(await checkRecord(rules, 'test', me.id, new Uint8Array(10), me.id, 5)).toEqual({ ok: true, version: 5 });
  });
});
