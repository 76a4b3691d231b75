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
import type { NodeId } from '../core/node-id';
import type { Signer } from '../core/signer';
import type { EpochCert } from '../region/epoch-cert';
import { proofBytes, type StateProof } from '../region/entry-proofs';
import { ENTRY_BYTES, PIECE_ENTRIES } from '../region/region-state';

/** Signed batches one GRANT frame carries, and the certificates they were signed under (distinct epochs). */
export const MAX_FRAME_PROOFS = 256;
export const MAX_PROOF_CERTS = 4;

/** A group of frames waiting for its signatures (ProofSigner). */
interface Waiting {
  then: (sigs: (Uint8Array | undefined)[]) => void;
  sigs: (Uint8Array | undefined)[] | undefined;
}

/**
 * The primary's frames to its backups and subscribers, in order, each group leaving once the
 * signatures it carries are made. One call is one group: the frames a tick (or an ack, a
 * store write, a SYNC) produces wait together for the signatures they need, all made at once,
 * and then leave in one synchronous pass, as they did unsigned: signing holds them back by
 * the signatures' time but never splits them, and adds no frame. A group needing no signature
 * leaves at once unless an earlier one still waits (it must not overtake: a DELTA before the
 * REPLICATE it commits, a batch before the SYNC it follows), and so does every group when
 * the signer can sign at once (`signNow`). A signer that fails gives `undefined`: the frame
 * still goes, unsigned (evidence of nothing).
 */
export class ProofSigner {
  private readonly waiting: Waiting[] = [];

  constructor(private readonly signer: Signer, private readonly key: NodeId, private readonly counted: () => void) {}

  /** Groups waiting for signatures (their own or an earlier group's). */
  get held(): number {
    return this.waiting.length;
  }

  /** Runs `then` with a signature over each of `proofs`, after every earlier group: synchronously when none waits and there is nothing to sign. */
  run(proofs: readonly Omit<StateProof, 's'>[], then: (sigs: (Uint8Array | undefined)[]) => void): void {
    if (this.waiting.length === 0 && (proofs.length === 0 || this.signer.signNow)) return then(proofs.map((p) => this.signedNow(p)));
    const w: Waiting = { then, sigs: proofs.length === 0 ? [] : undefined };
    this.waiting.push(w);
    if (proofs.length === 0) return;
    const one = (p: Omit<StateProof, 's'>) => this.signer.sign(proofBytes(this.key, p)).then((s) => (this.counted(), s), () => undefined);
    void Promise.all(proofs.map(one)).then((sigs) => {
      w.sigs = sigs;
      this.drain();
    });
  }

  private signedNow(p: Omit<StateProof, 's'>): Uint8Array | undefined {
    try {
      const s = this.signer.signNow!(proofBytes(this.key, p));
      this.counted();
      return s;
    } catch {
      return undefined;
    }
  }

  /** Every group at the head whose signatures are made, in order, in this one pass. */
  private drain(): void {
    let failed: unknown;
    while (this.waiting[0]?.sigs) {
      const w = this.waiting.shift()!;
      try {
        w.then(w.sigs!);
      } catch (e) {
        failed ??= e;
      }
    }
    if (failed !== undefined) throw failed;
  }
}

/** A kept proof and the certificate of the primary that signed it. */
export interface HeldProof {
  proof: StateProof;
  cert: EpochCert;
}

/**
 * The signed batches and SYNC pieces a backup keeps as evidence of its entries for a
 * claimant: the newest, at most this many entries and proofs.
 */
const MAX_PROOF_ENTRIES = 262_144;
const MAX_PROOFS = 4096;

/** The newest proofs a backup received, at most `maxEntries` entries and `maxProofs` proofs (the oldest go first). */
export class ProofRing {
  private readonly held: HeldProof[] = [];
  private entries = 0;

  constructor(private readonly maxEntries = MAX_PROOF_ENTRIES, private readonly maxProofs = MAX_PROOFS) {}

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
