import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { bytes, CodecError, defineCodec } from '../core/codec';
import { ID_BYTES } from '../core/node-id';
import { MAX_ROUND, MAX_VOTE_ID, voteSpec } from './vote-messages';

// Pickups decide a claimant id; spawns decide an object: the same frames carry either.
const pickups = defineCodec(voteSpec(bytes(ID_BYTES, ID_BYTES), 40));
const spawn = v.object({ kind: v.picklist(['gem', 'apple']), x: v.number(), y: v.number(), z: v.number(), at: v.number() });
const spawns = defineCodec(voteSpec(spawn, 50));
const id = new Uint8Array(ID_BYTES).fill(7);

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as CodecError).reason;
  }
  return undefined;
}

describe('vote frames', () => {
  it('round-trip for any candidate schema', () => {
    const d = { t: 'DECIDED', vote: 'item-9', set: 4, round: 2, c: id, proof: 0b101 } as const;
    expect(pickups.decode(pickups.encode(d))).toEqual(d);
    const p = { t: 'PROPOSE', vote: 'slot-1', set: 4, round: 1, c: null } as const;
    expect(spawns.decode(spawns.encode(p))).toEqual(p);
    const r = { t: 'REPORT', vote: 'slot-1', set: 4, round: 1, c: { kind: 'gem', x: 1, y: 2, z: 3, at: 5000 } } as const;
    expect(spawns.decode(spawns.encode(r))).toEqual(r);
  });

  it('refuses frames outside the bounds', () => {
    const bad = (msg: object) => code(() => pickups.decode(pickups.encode(msg as never)));
    expect(bad({ t: 'REPORT', vote: 'i', set: 1, round: 0, c: id })).toBe('invalid');
    expect(bad({ t: 'REPORT', vote: 'i', set: 1, round: MAX_ROUND + 1, c: id })).toBe('invalid');
    expect(bad({ t: 'REPORT', vote: 'x'.repeat(MAX_VOTE_ID + 1), set: 1, round: 1, c: id })).toBe('invalid');
    expect(bad({ t: 'REPORT', vote: '', set: 1, round: 1, c: id })).toBe('invalid');
    expect(bad({ t: 'DECIDED', vote: 'i', set: 1, round: 1, c: id, proof: 256 })).toBe('invalid');
    expect(bad({ t: 'CLAIM', vote: 'i', c: new Uint8Array(21) })).toBe('invalid');
    expect(bad({ t: 'CLAIM', vote: 'i', c: id })).toBeUndefined();
  });
});
