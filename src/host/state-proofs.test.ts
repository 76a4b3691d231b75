// Evidence of entries (state-proofs.ts): what a primary signs, what a backup keeps, how a
// granter packs it into frames.
import { describe, expect, it } from 'vitest';
import type { EpochCert } from '../region/epoch-cert';
import { ENTRY_BYTES, PIECE_ENTRIES } from '../region/region-state';
import { proofBytes, type StateProof } from '../region/entry-proofs';
import { MAX_FRAME_PROOFS, MAX_PROOF_CERTS, proofFrames, ProofRing, ProofSigner } from './state-proofs';

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

  it('runs each group once its signatures are made, in order, in one pass; a group with nothing to sign waits behind them, else runs at once', async () => {
    // Each signature is the last byte signed (the proof's one entry byte), made after its own delay.
    const slow = [30, 0, 10];
    const signer = { id: key, alg: 'Ed25519' as const, publicKey: key, sign: (d: Uint8Array) => new Promise<Uint8Array>((r) => setTimeout(() => r(d.slice(-1)), slow.shift())) };
    let signed = 0;
    const s = new ProofSigner(signer, key, () => signed++);
    const got: string[] = [];
    const p = (f: number) => ({ e: 1, f, t: f, b: new Uint8Array([f]) });
    s.run([], () => got.push('free'));
    expect(got, 'nothing to sign, nothing waiting: at once').toEqual(['free']);
    s.run([p(1), p(2)], (sigs) => got.push(`a${sigs.map((x) => x![0]).join('')}`));
    s.run([], () => got.push('b'));
    s.run([p(3)], (sigs) => got.push(`c${sigs[0]![0]}`));
    s.run([], () => got.push('d'));
    expect(got, 'nothing overtakes a group still waiting').toEqual(['free']);
    expect(s.held).toBe(4);
    await new Promise((r) => setTimeout(r, 80));
    // c's signature (10 ms) was made before a's first (30 ms): c still waited for a.
    expect(got).toEqual(['free', 'a12', 'b', 'c3', 'd']);
    expect(signed).toBe(3);
    expect(s.held).toBe(0);
    s.run([], () => got.push('e'));
    expect(got.at(-1)).toBe('e');
  });

  it('signs at once where the signer can (signNow): no group waits, the frames leave in the pass of the caller', () => {
    const signer = { id: key, alg: 'Ed25519' as const, publicKey: key, sign: () => Promise.reject(new Error('not used')), signNow: (d: Uint8Array) => d.slice(-1) };
    const s = new ProofSigner(signer, key, () => {});
    const got: string[] = [];
    s.run([{ e: 1, f: 1, t: 1, b: new Uint8Array([7]) }], (sigs) => got.push(`a${sigs[0]![0]}`));
    s.run([], () => got.push('b'));
    expect(got).toEqual(['a7', 'b']);
    expect(s.held).toBe(0);
  });

  it('a failed signature leaves its frame unsigned, in its place', async () => {
    const signer = { id: key, alg: 'Ed25519' as const, publicKey: key, sign: () => Promise.reject(new Error('no key')) };
    const s = new ProofSigner(signer, key, () => {});
    const got: unknown[] = [];
    s.run([{ e: 1, f: 1, t: 1, b: new Uint8Array(0) }], (sigs) => got.push(sigs[0]));
    s.run([], () => got.push('after'));
    await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([undefined, 'after']);
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
