// A subscriber's check of relayed DELTAs and PENDINGs (relay-proofs.ts, region/entry-proofs.ts):
// the batches must cover the frame exactly, each signed by the primary of the certificate
// followed; checked batches are remembered, bounded; anything else refused.
import { describe, expect, it } from 'vitest';
import type { EpochCert } from '../region/epoch-cert';
import { proofBytes, relayedBatches, type RelayProofs } from '../region/entry-proofs';
import { encodeEntries, type Entry } from '../region/region-state';
import { RelayCheck } from './relay-proofs';

const key = new Uint8Array(20).fill(3);
const P = new Uint8Array(20).fill(1), Q = new Uint8Array(20).fill(2);
const cert = (primary = P, e = 4) => ({ e, primary, hosts: [P, Q], grants: [] }) as unknown as EpochCert;
const entry = (k: number, s: number, e = 4): Entry => ({ key: k, id: 1, e, s });
/** A "signature" only `signer` makes: its first byte, then a digest of the bytes signed. */
const sigOf = (signer: Uint8Array, data: Uint8Array) => new Uint8Array([signer[0]!, data.reduce((n, x) => (n * 31 + x) & 0xff, 7), data.length & 0xff]);
const primarySigned = (c: EpochCert, data: Uint8Array, s: Uint8Array) => Promise.resolve(s.length === 3 && s.every((x, i) => x === sigOf(c.primary, data)[i]));
/** Batches [f, t] of `list` (by seq), signed by `signer`. */
function signed(list: Entry[], ranges: [number, number][], signer = P, e = 4): RelayProofs {
  return ranges.map(([f, t]) => [f, t, sigOf(signer, proofBytes(key, { e, f, t, b: encodeEntries(list.filter((x) => x.s >= f && x.s <= t)) }))]);
}

describe('relay proofs', () => {
  const list = [entry(10, 5), entry(11, 6), entry(12, 7)];
  const frame = { e: 4, from: 5, to: 7, entries: encodeEntries(list) };

  it('splits a frame into its batches only when they follow one another from its first seq to its last, leaving no entry out', () => {
    const pf = signed(list, [[5, 6], [7, 7]]);
    expect(relayedBatches(4, 5, 7, frame.entries, pf)!.map((p) => [p.f, p.t, p.b.length / 12])).toEqual([[5, 6, 2], [7, 7, 1]]);
    expect(relayedBatches(4, 5, 7, frame.entries, signed(list, [[5, 6]])), 'short of its last seq').toBeUndefined();
    expect(relayedBatches(4, 5, 7, frame.entries, signed(list, [[5, 5], [7, 7]])), 'a batch missing').toBeUndefined();
    expect(relayedBatches(4, 5, 7, frame.entries, signed(list, [[4, 6], [7, 7]])), 'from another first seq').toBeUndefined();
    expect(relayedBatches(4, 5, 7, encodeEntries([list[2]!, list[0]!, list[1]!]), pf), 'entries out of their batches').toBeUndefined();
    expect(relayedBatches(4, 5, 7, frame.entries, []), 'none').toBeUndefined();
  });

  it("takes a frame whose batches the followed certificate's primary signed; refuses another signer, other bytes, another epoch, none", async () => {
    const check = new RelayCheck(primarySigned);
    expect(await check.covers(key, cert(), frame, signed(list, [[5, 6], [7, 7]]))).toBe(true);
    expect(await check.covers(key, cert(), frame, signed(list, [[5, 7]], Q)), 'a backup signing for itself').toBe(false);
    const planted = { ...frame, entries: encodeEntries([entry(10, 5), entry(99, 6), entry(12, 7)]) };
    expect(await check.covers(key, cert(), planted, signed(list, [[5, 6], [7, 7]])), "the primary's signatures over other entries").toBe(false);
    expect(await check.covers(key, cert(P, 5), frame, signed(list, [[5, 7]])), 'a certificate of another epoch').toBe(false);
    expect(await check.covers(key, undefined, frame, signed(list, [[5, 7]])), 'no certificate').toBe(false);
    expect(await check.covers(key, cert(), frame, undefined), 'no proofs').toBe(false);
    expect(await check.covers(new Uint8Array(20).fill(9), cert(), frame, signed(list, [[5, 7]])), 'signed for another region').toBe(false);
  });

  it('checks each batch once (a PENDING then its DELTA, a merged delta), the same signature over other bytes again; remembers a bounded number', async () => {
    let calls = 0;
    const check = new RelayCheck((c, d, s) => (calls++, primarySigned(c, d, s)), 2);
    const pf = signed(list, [[5, 6], [7, 7]]);
    expect(await check.covers(key, cert(), frame, pf)).toBe(true);
    expect(await check.covers(key, cert(), frame, pf)).toBe(true);
    expect(calls).toBe(2);
    const last = { e: 4, from: 7, to: 7, entries: encodeEntries([list[2]!]) };
    expect(await check.covers(key, cert(), last, [pf[1]!])).toBe(true);
    expect(calls, 'a batch remembered from a merged frame').toBe(2);
    expect(await check.covers(key, cert(), { ...last, entries: encodeEntries([entry(50, 7)]) }, [pf[1]!]), 'its signature over other bytes').toBe(false);
    expect(calls).toBe(3);
    const other = [entry(20, 8)], more = { e: 4, from: 8, to: 8, entries: encodeEntries(other) };
    expect(await check.covers(key, cert(), more, signed(other, [[8, 8]]))).toBe(true);
    expect(await check.covers(key, cert(), frame, pf)).toBe(true);
    // Two remembered at most: 5-6 fell out for 8, and 7 for 5-6: both checked again.
    expect(calls).toBe(6);
    expect(check.verified).toBe(6);
  });
});
