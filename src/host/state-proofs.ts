// Evidence for a region's entries between its hosts: a primary signs the entries it hands its
// backups, one signature per REPLICATE batch and per SYNC piece (never per entry), and a
// backup keeps the signed bytes as they came (no check on the hot path: only the primary it
// follows sends them). A claimant adopts a granter's entry when it lies in such a proof,
// signed by the primary of an epoch of its own chain, or when a majority of one set of its
// claim held the identical entry (granted-states.ts; docs/TRUST.md rule 8): one host of the
// set can no longer write blocks into the next primary's state with its GRANT.
// The proofs a backup keeps are bounded (`ProofRing`: the newest, by entries and count);
// what falls out is old enough that every follower of its epoch holds it (a backup that
// missed a batch asks for a SYNC, whose pieces are proofs again).
import * as v from 'valibot';
import { bytes, u32 } from '../core/codec';
import type { NodeId } from '../core/node-id';
import type { Signer } from '../core/signer';
import type { EpochCert } from '../region/epoch-cert';
import { entries } from '../region/frame-schemas';
import { ENTRY_BYTES, PIECE_ENTRIES } from '../region/region-state';

/** Signed batches one GRANT frame carries, and the certificates they were signed under (distinct epochs). */
export const MAX_FRAME_PROOFS = 256;
export const MAX_PROOF_CERTS = 4;

/** A signature as a grant carries one (Ed25519: 64 bytes; P-256 DER: at most 72). */
export const sigBytes = bytes(72);

/**
 * Entries a primary of epoch `e` signed: a REPLICATE batch (seqs `f`..`t`) or a piece of a
 * SYNC (`f` 0, `t` its commit point), or a former primary's own state in a GRANT (both 0).
 */
export const proofSchema = v.object({ e: u32, f: u32, t: u32, b: entries, s: sigBytes });
export type StateProof = v.InferOutput<typeof proofSchema>;

const DOMAIN = new TextEncoder().encode('voxel-populi entries v1\0');

/** The exact bytes a primary signs for `p` in the region `key`. */
export function proofBytes(key: NodeId, p: Omit<StateProof, 's'>): Uint8Array {
  const out = new Uint8Array(DOMAIN.length + key.length + 12 + p.b.length);
  const dv = new DataView(out.buffer);
  out.set(DOMAIN, 0);
  out.set(key, DOMAIN.length);
  let at = DOMAIN.length + key.length;
  for (const n of [p.e, p.f, p.t]) {
    dv.setUint32(at, n);
    at += 4;
  }
  out.set(p.b, at);
  return out;
}

/**
 * Signs proofs one at a time, in order: a frame that carries one leaves only once its
 * signature is made, and frames to a backup must keep their order (a REPLICATE behind a
 * SYNC still being signed would look like a gap).
 */
export class ProofSigner {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly signer: Signer, private readonly key: NodeId, private readonly counted: () => void) {}

  /**
   * Signs `p`, then runs `then` with the signature, after every earlier one. A signer that
   * fails gives `then` none: the frame still goes (unsigned, it is evidence of nothing).
   */
  sign(p: Omit<StateProof, 's'>, then: (s: Uint8Array | undefined) => void): void {
    const next = this.chain.then(async () => {
      const s = await this.signer.sign(proofBytes(this.key, p)).catch(() => undefined);
      if (s) this.counted();
      then(s);
    });
    this.chain = next.catch(() => {});
  }
}

/** A kept proof and the certificate of the primary that signed it. */
export interface HeldProof {
  proof: StateProof;
  cert: EpochCert;
}

/** The newest proofs a backup received, at most `maxEntries` entries and `maxProofs` proofs (the oldest go first). */
export class ProofRing {
  private readonly held: HeldProof[] = [];
  private entries = 0;

  constructor(private readonly maxEntries: number, private readonly maxProofs: number) {}

  keep(proof: StateProof, cert: EpochCert | undefined): void {
    // Only under the certificate of the proof's own epoch: a claimant checks the signer by it.
    if (!cert || cert.e !== proof.e) return;
    this.held.push({ proof, cert });
    this.entries += proof.b.length / ENTRY_BYTES;
    while (this.held.length > 1 && (this.entries > this.maxEntries || this.held.length > this.maxProofs)) {
      this.entries -= this.held.shift()!.proof.b.length / ENTRY_BYTES;
    }
  }

  all(): readonly HeldProof[] {
    return this.held;
  }

  get size(): number {
    return this.held.length;
  }
}

/** Kept proofs as GRANT frame fields: each frame at most PIECE_ENTRIES entries, MAX_FRAME_PROOFS proofs and MAX_PROOF_CERTS certificates. */
export function proofFrames(held: readonly HeldProof[]): { proofs: StateProof[]; pc: EpochCert[] }[] {
  const out: { proofs: StateProof[]; pc: EpochCert[] }[] = [];
  let cur: { proofs: StateProof[]; pc: EpochCert[] } | undefined, n = 0;
  for (const { proof, cert } of held) {
    const size = proof.b.length / ENTRY_BYTES;
    const newCert = !cur?.pc.includes(cert);
    if (!cur || cur.proofs.length >= MAX_FRAME_PROOFS || n + size > PIECE_ENTRIES || (newCert && cur.pc.length >= MAX_PROOF_CERTS)) {
      out.push((cur = { proofs: [], pc: [] }));
      n = 0;
    }
    if (!cur.pc.includes(cert)) cur.pc.push(cert);
    cur.proofs.push(proof);
    n += size;
  }
  return out;
}
