// A primary's signature over entries it ordered: one per REPLICATE batch and per SYNC piece
// (never per entry), over the region key, the epoch, the seq range and the entries' bytes.
// Hosts keep them as evidence of their entries for a claimant (host/state-proofs.ts); a
// backup relaying the primary's DELTAs and PENDINGs to its share of a crowd hands the
// batches' signatures on with them (`pf`), and a subscriber takes a relayed frame only when
// they cover it, checked against the primary of the certificate it follows (the primary's
// own frames, on its own link, need none: play/relay-proofs.ts).
import * as v from 'valibot';
import { bytes, u32 } from '../core/codec';
import type { NodeId } from '../core/node-id';
import { entries } from './frame-schemas';
import { ENTRY_BYTES } from './region-state';

/** A signature as a grant carries one (Ed25519: 64 bytes; P-256 DER: at most 72). */
export const sigBytes = bytes(72);

/**
 * Entries a primary of epoch `e` signed: a REPLICATE batch (seqs `f`..`t`) or a piece of a
 * SYNC (`f` 0, `t` its commit point), or a former primary's own state in a GRANT (both 0).
 */
export const proofSchema = v.object({ e: u32, f: u32, t: u32, b: entries, s: sigBytes });
export type StateProof = v.InferOutput<typeof proofSchema>;

/**
 * Batch signatures a relayed DELTA or PENDING carries (a merged one covers several batches):
 * more and the relay sends it without, and the subscriber catches up from the primary.
 */
export const MAX_RELAY_PROOFS = 32;
/** [first seq, last seq, signature] of each batch a relayed frame covers, in seq order. */
export const relayProofs = v.pipe(v.array(v.tuple([u32, u32, sigBytes])), v.maxLength(MAX_RELAY_PROOFS));
export type RelayProofs = v.InferOutput<typeof relayProofs>;

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
 * The proofs a frame of epoch `e` covering seqs `from`..`to` with `bytes` claims: the batches
 * of `pf` must follow one another from `from` to `to`, and the entries (each stamped with its
 * seq) fall in runs, one per batch, in order, with nothing left over. Undefined when they do not.
 */
export function relayedBatches(e: number, from: number, to: number, bytes: Uint8Array, pf: RelayProofs): StateProof[] | undefined {
  if (pf.length === 0 || bytes.length % ENTRY_BYTES !== 0 || pf[0]![0] !== from || pf.at(-1)![1] !== to) return undefined;
  const n = bytes.length / ENTRY_BYTES;
  const seqAt = (i: number) => new DataView(bytes.buffer, bytes.byteOffset + i * ENTRY_BYTES + 8, 4).getUint32(0);
  const out: StateProof[] = [];
  let i = 0;
  for (let k = 0; k < pf.length; k++) {
    const [f, t, s] = pf[k]!;
    if (f > t || (k > 0 && f !== pf[k - 1]![1] + 1)) return undefined;
    const start = i;
    while (i < n && seqAt(i) >= f && seqAt(i) <= t) i++;
    out.push({ e, f, t, b: bytes.subarray(start * ENTRY_BYTES, i * ENTRY_BYTES), s });
  }
  return i === n ? out : undefined;
}
