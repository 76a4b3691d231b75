// A subscriber's check of what a backup relays to it in a crowd (host/fan-out-share.ts): a
// DELTA or PENDING (alone, or riding in a POSITIONS frame) from a host of the set that is not
// the primary we follow counts only when the primary's signatures over its batches (`pf`,
// region/entry-proofs.ts) cover it, checked against the primary's key in the certificate we
// follow. Before, any host of the set could send DELTAs of the next seqs: its blocks were
// shown, and the honest edits of those seqs were then skipped as already held
// (docs/TRUST.md rule 10). The primary's own frames, on its own link, need no proof.
// Checked batches are remembered (a PENDING's batch comes again in its DELTA; a merged
// delta repeats batches a rider carried), bounded.
import { idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import { proofBytes, relayedBatches, type RelayProofs } from '../region/entry-proofs';

/** Checked batches remembered (least recently checked dropped first). */
export const CHECKED_KEPT = 512;

/** What a relayed frame claims: the epoch, the seqs and the entries' bytes. */
export interface Relayed {
  e: number;
  from: number;
  to: number;
  entries: Uint8Array;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export class RelayCheck {
  /** `${primary}|${e}|${f}|${t}|${sig}` -> the entry bytes that signature was checked over. */
  private readonly checked = new Map<string, Uint8Array>();
  /** Batch signatures checked (not remembered ones): the CPU this costs a subscriber. */
  verified = 0;

  constructor(
    /** Whether `sig` is `cert`'s primary's signature over `data` (CertChecker.primarySigned). */
    private readonly primarySigned: (cert: EpochCert, data: Uint8Array, sig: Uint8Array) => Promise<boolean>,
    private readonly kept = CHECKED_KEPT,
  ) {}

  /** Whether `pf` proves `m` signed, batch by batch, by the primary of `cert` (of `m`'s epoch) in the region `key`. */
  async covers(key: NodeId, cert: EpochCert | undefined, m: Relayed, pf: RelayProofs | undefined): Promise<boolean> {
    if (!cert || !pf || cert.e !== m.e) return false;
    const batches = relayedBatches(m.e, m.from, m.to, m.entries, pf);
    if (!batches) return false;
    const who = idToHex(cert.primary);
    for (const p of batches) {
      const tag = `${who}|${p.e}|${p.f}|${p.t}|${hex(p.s)}`;
      const had = this.checked.get(tag);
      if (had && same(had, p.b)) {
        this.checked.delete(tag);
        this.checked.set(tag, had);
        continue;
      }
      this.verified++;
      if (!(await this.primarySigned(cert, proofBytes(key, p), p.s))) return false;
      this.checked.set(tag, p.b.slice());
      if (this.checked.size > this.kept) this.checked.delete(this.checked.keys().next().value!);
    }
    return true;
  }
}
