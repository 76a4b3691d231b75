import { encode as pack } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { replicationCodec } from '../host/replication-messages';
import { subscriptionCodec, type SubscriptionMessageOf } from './subscription-messages';
import { sampleLook } from '../testing/sample-look';

const b = new Uint8Array(100).fill(3);
const positions: SubscriptionMessageOf<'POSITIONS'> = { t: 'POSITIONS', rx: 0, rz: -1, e: 3, n: 1200, b };

describe('POSITIONS and FEED on the wire', () => {
  // A crowd's busiest host sends ~1,500 POSITIONS a second: its field names were 12 of a
  // head of 23 bytes (and 2 more for a beat riding).
  it('a POSITIONS frame carries 11 bytes beside its positions, 14 with a beat riding (23 and 28 as a map)', () => {
    expect(subscriptionCodec.encode(positions).length - b.length).toBe(11);
    expect(subscriptionCodec.encode({ ...positions, s: 700 }).length - b.length).toBe(14);
  });

  it('round-trips every field, and a frame as a map (the old wire) is dropped as invalid', () => {
    const full: SubscriptionMessageOf<'POSITIONS'> = { ...positions, f: true, roster: [{ s: 4, id: new Uint8Array(20).fill(1), l: sampleLook('ann', 3) }, { s: 5, id: new Uint8Array(20).fill(2) }], gone: [2, 5], d: [1, 2, new Uint8Array([7])], p: [3, 3, new Uint8Array([8, 9])], s: 9 };
    for (const m of [positions, full, { ...positions, gone: [1] }]) expect(subscriptionCodec.decode(subscriptionCodec.encode(m))).toEqual(m);
    const { t: _t, ...body } = positions;
    expect(() => subscriptionCodec.decode(pack([12, body]))).toThrow(expect.objectContaining({ reason: 'invalid' }));
  });

  it('FEED travels as an array too (9 bytes beside its positions, 21 as a map)', () => {
    const feed = { t: 'FEED', rx: 0, rz: 0, e: 3, n: 40, b } as const;
    expect(replicationCodec.encode(feed).length - b.length).toBe(9);
    const withServe = { ...feed, serve: [new Uint8Array(20).fill(2)] };
    expect(replicationCodec.decode(replicationCodec.encode(withServe))).toEqual(withServe);
  });
});
