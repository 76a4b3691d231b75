// A subscriber's check of what a backup relays to it in a crowd (host/fan-out-share.ts): a
// DELTA or PENDING (alone, or riding in a POSITIONS frame) from a host of the set that is not
// the primary we follow counts only when the primary's signatures over its batches (`pf`,
// region/entry-proofs.ts) cover it, checked against the primary's key in the certificate we
// follow. Before, any host of the set could send DELTAs of the next seqs: its blocks were
// shown, and the honest edits of those seqs were then skipped as already held
// (docs/TRUST.md rule 10). The primary's own frames, on its own link, need no proof.
// Checked batches are remembered (a PENDING's batch comes again in its DELTA; a merged
// delta repeats batches a rider carried), bounded. A primary's key not remembered is derived
// on the budget of the host that relayed the frame (core/derivation-budget.ts): charged to
// nobody in particular, frames nobody named (a hostile voter's junk decisions, say) kept it
// spent and an honest backup's relays were refused.
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
    /** Whether `sig` is `cert`'s primary's signature over `data` (CertChecker.primarySigned; `via`: the relaying host, hex, whose derivation budget a key not met spends). */
    private readonly primarySigned: (cert: EpochCert, data: Uint8Array, sig: Uint8Array, via?: string) => Promise<boolean>,
    private readonly kept = CHECKED_KEPT,
  ) {}

  /** Whether `pf` proves `m` signed, batch by batch, by the primary of `cert` (of `m`'s epoch) in the region `key`; `via`: the host (hex) that relayed it. */
  async covers(key: NodeId, cert: EpochCert | undefined, m: Relayed, pf: RelayProofs | undefined, via?: string): Promise<boolean> {
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
      if (!(await this.primarySigned(cert, proofBytes(key, p), p.s, via))) return false;
      this.checked.set(tag, p.b.slice());
      if (this.checked.size > this.kept) this.checked.delete(this.checked.keys().next().value!);
    }
    return true;
  }
}
