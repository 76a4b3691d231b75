// What a claimant takes of its granters' states (their GRANTs, refusals too): an entry it
// lacks (or holds older) is adopted only when
// - a majority of one set of its claim (the new hosts, the previous set, a pending set) sent
//   the identical entry (block, id and stamp), or
// - it lies in a proof a granter sent (state-proofs.ts): entries signed by the primary of an
//   epoch of the claimant's own chain, checked by the caller's `proven`.
// A single host of the set (a backup near the key that is the attacker's) can no longer write
// blocks into the next primary's state: before, every granter's state was merged, filtered
// only by the world's rules (docs/TRUST.md rule 8). A confirmed edit is not lost by it: it is
// in the memory of the primary that signed its batch and of a backup that acked it, and the
// backup keeps that signed batch; whatever a majority of a set holds needs no proof.
// Decided once, at the end of the round, from everything that came: frames of one granter
// arrive in pieces and in any order. Bounded: `maxPerHost` entries a granter (proofs
// included); the rest is dropped and counted.
import { compareStamp, obeysWorldRules, tryDecodeEntries, type Entry, type Stamp } from '../region/region-state';
import { quorum, type EpochCert } from '../region/epoch-cert';
import type { StateProof } from '../region/entry-proofs';

interface Proven {
  proof: StateProof;
  cert: EpochCert | undefined;
  entries: Entry[];
}

interface Granted {
  held: Entry[];
  proofs: Proven[];
  size: number;
}

export interface GrantedOutcome {
  /** Entries to merge: agreed by a majority of a set, or proven. */
  adopt: Entry[];
  agreed: number;
  proven: number;
  /** Entries we lacked that neither a majority nor a valid proof vouched for (dropped). */
  unproven: number;
}

const tag = (x: Entry) => `${x.key}|${x.id}|${x.e}|${x.s}`;

export class GrantedStates {
  private readonly by = new Map<string, Granted>();
  private readonly frames = new Map<string, number>();
  /** Entries and proofs refused: over the bound, or not decodable. */
  dropped = 0;

  constructor(private readonly maxPerHost: number) {}

  /** Counts a frame of `from`'s answer: how many came so far (a repeated answer counts again). */
  frame(from: string): number {
    const n = (this.frames.get(from) ?? 0) + 1;
    this.frames.set(from, n);
    return n;
  }

  /** One GRANT frame of `from`: its entries, its proofs and the certificates they name (by epoch). */
  add(from: string, entries: readonly Entry[], proofs: readonly StateProof[] = [], certs: readonly EpochCert[] = []): void {
    let g = this.by.get(from);
    if (!g) this.by.set(from, (g = { held: [], proofs: [], size: 0 }));
    for (const x of entries) {
      if (g.size >= this.maxPerHost) return void this.dropped++;
      g.held.push(x);
      g.size++;
    }
    for (const p of proofs) {
      const list = tryDecodeEntries(p.b);
      if (!list || g.size + list.length > this.maxPerHost) {
        this.dropped++;
        continue;
      }
      g.proofs.push({ proof: p, cert: certs.find((c) => c.e === p.e), entries: list });
      g.size += list.length;
    }
  }

  /**
   * What to adopt, given what we hold (`mine`), the sets of our claim (hex lists) and the
   * check of a proof. A proof is checked only when it vouches for an entry no majority
   * agreed on (a failover's tail: a few batches), once; when none needs checking (the usual
   * case) the outcome comes at once, not as a promise. `proven` is told the granter (hex)
   * that sent the proof, whose derivation budget the keys it names spend if new.
   */
  outcome(mine: (key: number) => Stamp | undefined, sets: readonly (readonly string[])[], proven: (p: StateProof, cert: EpochCert | undefined, from: string) => Promise<boolean>): GrantedOutcome | Promise<GrantedOutcome> {
    const needed = (x: Entry) => {
      if (!obeysWorldRules(x)) return false;
      const had = mine(x.key);
      return !had || compareStamp(x, had) > 0;
    };
    // Who sent each entry we lack (as held state or inside a proof, valid or not).
    const holders = new Map<string, { entry: Entry; by: Set<string> }>();
    const note = (from: string, x: Entry) => {
      if (!needed(x)) return;
      const t = tag(x);
      let h = holders.get(t);
      if (!h) holders.set(t, (h = { entry: x, by: new Set() }));
      h.by.add(from);
    };
    for (const [from, g] of this.by) {
      for (const x of g.held) note(from, x);
      for (const p of g.proofs) for (const x of p.entries) note(from, x);
    }
    const adopt = new Map<string, Entry>();
    for (const [t, h] of holders) {
      if (sets.some((set) => set.filter((hex) => h.by.has(hex)).length >= quorum(set.length))) adopt.set(t, h.entry);
    }
    const agreed = adopt.size;
    const result = () => ({ adopt: [...adopt.values()], agreed, proven: adopt.size - agreed, unproven: holders.size - adopt.size });
    // Proofs that vouch for an entry no majority agreed on, and what each would add.
    const toCheck: { p: Proven; adds: Entry[]; from: string }[] = [];
    for (const [from, g] of this.by) {
      for (const p of g.proofs) {
        const adds = p.entries.filter((x) => x.e <= p.proof.e && needed(x));
        if (adds.some((x) => !adopt.has(tag(x)))) toCheck.push({ p, adds, from });
      }
    }
    if (toCheck.length === 0) return result();
    return (async () => {
      for (const { p, adds, from } of toCheck) {
        if (!adds.some((x) => !adopt.has(tag(x)))) continue;
        if (!(await proven(p.proof, p.cert, from))) continue;
        for (const x of adds) adopt.set(tag(x), x);
      }
      return result();
    })();
  }
}
