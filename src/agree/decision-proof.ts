// Decisions signed by the voters (docs/ITEMS.md "Signed decisions"). An item record (what
// exists, where, who holds it) changes at a player or at another host only with the
// signatures of a majority of the region's certified host set over exactly that record:
//
//   spawn:<area>:<slot>   the voters' PROPOSEs of one round for that spawn (vote.ts: a majority
//                         of one round's proposals for one candidate is the decision)
//   take:<item>:<gen>     the same for a pickup: the record with its new owner
//   drop:<item>:<gen>     the hosts holding a drop (replicated-drops.ts), round 0
//   keep:<item>:<gen>     a new host set vouching for a record it holds (endorse-records.ts)
//
// Each voter signs (region, epoch, vote id, round, the record that results); a proof is
// those signatures from a majority of the set of that epoch. The vote id must match the
// record (a pickup's proof cannot carry a spawn, an old gen's proof names the old gen), the
// round binds every signature to one round (proposals of two rounds never combine), the
// epoch to one voter set. A forged, minority, stranger's or replayed proof changes nothing
// and is counted by its fault.
import * as v from 'valibot';
import { bytes, u32 } from '../core/codec';
import { ID_BYTES, idToHex, type NodeId } from '../core/node-id';
import { derivationMark, refusedSince } from '../core/key-ids';
import type { Signer, Verifier } from '../core/signer';
import { KEY_ALGS, keyAlgCode, keyAlgSchema } from '../core/key-alg-code';
import { MAX_ROUND, MAX_VOTERS, voteIdSchema } from './vote-messages';
import type { VoterSet } from './voter-set';

export const proofSigSchema = v.object({ id: bytes(ID_BYTES, ID_BYTES), a: keyAlgSchema, k: bytes(65), s: bytes(72) });
export const decisionProofSchema = v.object({
  e: u32,
  vote: voteIdSchema,
  /** The vote's round whose proposals these are; 0: a decision that is no vote (drop, keep). */
  round: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_ROUND)),
  sigs: v.pipe(v.array(proofSigSchema), v.maxLength(MAX_VOTERS)),
});

export type ProofSig = v.InferOutput<typeof proofSigSchema>;
export type DecisionProof = v.InferOutput<typeof decisionProofSchema>;

export const PROOF_FAULTS = ['unknown-set', 'vote-mismatch', 'non-voter', 'repeated-signer', 'minority', 'bad-signature'] as const;
export type ProofFault = (typeof PROOF_FAULTS)[number];

/** An item record as signed (item-schemas.ts `Item`; spelled out here so the schemas may import this file). */
export interface SignedRecord {
  id: string;
  kind: string;
  x: number;
  y: number;
  z: number;
  at: number;
  owner: string | null;
  gen: number;
  away?: string | undefined;
  proof?: DecisionProof | undefined;
}
type Item = SignedRecord;

const DOMAIN = 'voxel-populi item decision v1\0';

/** The record as signed: its fields in a fixed order (JSON numbers print the same everywhere: ECMAScript Number::toString). */
function recordFields(r: Item): unknown[] {
  return [r.id, r.kind, r.x, r.y, r.z, r.at, r.owner, r.gen, r.away ?? null];
}

/** The exact bytes a voter signs: region (area) and epoch, the vote and its round, the resulting record. */
export function decisionBytes(area: { ax: number; az: number }, e: number, vote: string, round: number, rec: Item): Uint8Array {
  return new TextEncoder().encode(DOMAIN + JSON.stringify([area.ax, area.az, e, vote, round, ...recordFields(rec)]));
}

/** Whether a vote id may have produced this record (so a proof is never moved onto another record). */
export function voteMatches(vote: string, rec: Item, area: string): boolean {
  const spawn = /^spawn:(-?\d+,-?\d+):(\d+)$/.exec(vote);
  if (spawn) {
    if (spawn[1] !== area || rec.gen !== 0 || rec.owner !== null || rec.away !== undefined) return false;
    return rec.kind === 'star' ? /^star-\d+$/.test(rec.id) : rec.id === `${area}/${spawn[2]}`;
  }
  const m = /^(take|drop|keep|carry):(.+):(\d+)$/.exec(vote);
  if (!m || m[2] !== rec.id || Number(m[3]) !== rec.gen) return false;
  switch (m[1]) {
    case 'take': return rec.owner !== null && rec.away === undefined;
    case 'drop': return rec.owner === null && rec.away === undefined && rec.gen > 0;
    case 'carry': return rec.owner !== null && rec.away !== undefined;
    default: return true;
  }
}

/** The record without its proof (what is signed and compared). */
export function bareRecord<R extends SignedRecord>(r: R): Omit<R, 'proof'> {
  const { proof: _p, ...rest } = r;
  return rest;
}

/** One node's signing of decisions, timed (the figure docs/BENCHMARKS.md reports). */
export class ProofSigner {
  readonly stats = { signed: 0, signMs: 0 };

  constructor(private readonly signer: Signer, private readonly now: () => number = () => performance.now()) {}

  get id(): NodeId {
    return this.signer.id;
  }

  async sign(area: { ax: number; az: number }, e: number, vote: string, round: number, rec: Item): Promise<ProofSig> {
    const t0 = this.now();
    const s = await this.signer.sign(decisionBytes(area, e, vote, round, bareRecord(rec)));
    this.stats.signed++;
    this.stats.signMs += this.now() - t0;
    return { id: this.signer.id, a: keyAlgCode(this.signer.alg), k: this.signer.publicKey, s };
  }
}

/**
 * Checks proofs against the voter set of the epoch they name, remembering verdicts (a
 * record travels in every ITEM_STATE; its proof is checked once). Counts each fault.
 */
export class ProofChecker {
  readonly stats: Record<ProofFault, number> & { checked: number; cached: number; verifyMs: number } = {
    ...(Object.fromEntries(PROOF_FAULTS.map((f) => [f, 0])) as Record<ProofFault, number>), checked: 0, cached: 0, verifyMs: 0,
  };
  private readonly seen = new Map<string, ProofFault | null>();

  constructor(
    private readonly verify: Verifier,
    private readonly now: () => number = () => performance.now(),
    private readonly cacheSize = 512,
  ) {}

  /**
   * null when `proof` is a majority of `set`'s signatures over `rec` (`set`: the voters of
   * epoch proof.e, undefined if unknown). `via`: the node (hex) that sent it, whose derivation
   * budget a voter's key not met before spends (core/derivation-budget.ts).
   */
  async check(area: { ax: number; az: number }, rec: Item, proof: DecisionProof, set: VoterSet | undefined, via?: string): Promise<ProofFault | null> {
    const fault = this.shape(area, rec, proof, set);
    if (fault) return this.count(fault);
    const data = decisionBytes(area, proof.e, proof.vote, proof.round, bareRecord(rec));
    const tag = `${proof.e} ${idToHex(data)} ${proof.sigs.map((s) => idToHex(s.s)).join(' ')}`;
    const held = this.seen.get(tag);
    if (held !== undefined) {
      this.stats.cached++;
      return held === null ? null : this.count(held);
    }
    const t0 = this.now();
    const mark = derivationMark();
    const oks = await Promise.all(proof.sigs.map((s) => this.verify('node', s.id, KEY_ALGS[s.a], s.k, data, s.s, via)));
    this.stats.verifyMs += this.now() - t0;
    this.stats.checked++;
    const verdict: ProofFault | null = oks.every(Boolean) ? null : 'bad-signature';
    // A voter's key refused for want of derivation budget is not a bad signature (key-ids.ts).
    if (verdict && refusedSince(mark)) return this.count(verdict);
    this.seen.set(tag, verdict);
    if (this.seen.size > this.cacheSize) this.seen.delete(this.seen.keys().next().value!);
    return verdict === null ? null : this.count(verdict);
  }

  /** The faults seen without checking a signature. */
  private shape(area: { ax: number; az: number }, rec: Item, proof: DecisionProof, set: VoterSet | undefined): ProofFault | null {
    if (!set || set.tag !== proof.e) return 'unknown-set';
    if (!voteMatches(proof.vote, rec, `${area.ax},${area.az}`)) return 'vote-mismatch';
    const ids = proof.sigs.map((s) => idToHex(s.id));
    if (ids.some((id) => set.indexOf(id) === undefined)) return 'non-voter';
    if (new Set(ids).size !== ids.length) return 'repeated-signer';
    if (ids.length < set.decides) return 'minority';
    return null;
  }

  private count(f: ProofFault): ProofFault {
    this.stats[f]++;
    return f;
  }
}
