// Evidence of entries (state-proofs.ts): what a primary signs, what a backup keeps, how a
// granter packs it into frames.
import { describe, expect, it } from 'vitest';
import type { EpochCert } from '../region/epoch-cert';
import { ENTRY_BYTES, PIECE_ENTRIES } from '../region/region-state';
import { MAX_FRAME_PROOFS, MAX_PROOF_CERTS, proofBytes, proofFrames, ProofRing, ProofSigner, type StateProof } from './state-proofs';

const key = new Uint8Array(20).fill(7);
const cert = (e: number) => ({ e }) as EpochCert;
const proof = (e: number, n: number, f = 1): StateProof => ({ e, f, t: f + n - 1, b: new Uint8Array(n * ENTRY_BYTES), s: new Uint8Array(64) });

describe('state proofs', () => {
  it('signs the region, epoch, range and entries: changing any changes the bytes', () => {
    const p = { e: 3, f: 1, t: 2, b: new Uint8Array([1, 2, 3]) };
    const base = proofBytes(key, p);
    for (const q of [{ ...p, e: 4 }, { ...p, f: 0 }, { ...p, t: 3 }, { ...p, b: new Uint8Array([1, 2, 4]) }]) expect(proofBytes(key, q)).not.toEqual(base);
    expect(proofBytes(new Uint8Array(20).fill(8), p)).not.toEqual(base);
  });

  it('signs in order, one at a time, whatever the signer takes', async () => {
    let n = 0;
    const slow = [30, 0, 10];
    const signer = { id: key, alg: 'Ed25519' as const, publicKey: key, sign: () => new Promise<Uint8Array>((r) => setTimeout(() => r(new Uint8Array([n++])), slow.shift())) };
    const s = new ProofSigner(signer, key, () => {});
    const got: number[] = [];
    for (const f of [1, 2, 3]) s.sign({ e: 1, f, t: f, b: new Uint8Array(0) }, (sig) => got.push(f * 10 + sig![0]!));
    await new Promise((r) => setTimeout(r, 80));
    expect(got).toEqual([10, 21, 32]);
  });

  it('keeps the newest proofs within entries and count, only under the certificate of their epoch', () => {
    const ring = new ProofRing(10, 3);
    ring.keep(proof(2, 4), cert(1));
    ring.keep(proof(2, 4), undefined);
    expect(ring.size).toBe(0);
    for (let i = 0; i < 4; i++) ring.keep(proof(2, 4, 1 + 4 * i), cert(2));
    expect(ring.all().map((h) => h.proof.f)).toEqual([9, 13]);
    for (let i = 0; i < 4; i++) ring.keep(proof(2, 1, 20 + i), cert(2));
    expect(ring.all().map((h) => h.proof.f)).toEqual([21, 22, 23]);
    ring.keep(proof(2, 50, 30), cert(2));
    expect(ring.all().map((h) => h.proof.f), 'one larger than the bound is kept alone').toEqual([30]);
  });

  it('packs kept proofs into GRANT frames within entries, proofs and certificates', () => {
    const c = [1, 2, 3, 4, 5].map(cert);
    const frames = proofFrames([...c.map((x) => ({ proof: proof(x.e, 1), cert: x })), { proof: proof(5, PIECE_ENTRIES), cert: c[4]! }, ...Array.from({ length: MAX_FRAME_PROOFS + 1 }, () => ({ proof: proof(5, 1), cert: c[4]! }))]);
    expect(frames.map((f) => [f.proofs.length, f.pc.length])).toEqual([[MAX_PROOF_CERTS, MAX_PROOF_CERTS], [1, 1], [1, 1], [MAX_FRAME_PROOFS, 1], [1, 1]]);
  });
});
