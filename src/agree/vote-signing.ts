// The signatures around an item vote (decision-proof.ts), kept apart from the engine, which
// stays pure and synchronous: a voter signs each non-null PROPOSE it sends (the record that
// results if its candidate wins), everyone who hears proposals keeps their signatures, and a
// decision reached by counting proposals is proven by the signatures of the proposals it
// counted (a majority of the set: voter-set.ts `decides`). A DECIDED carries that proof;
// nobody but the deciding voter itself takes a decision without it.
//
//   ProposalBook   signatures heard with PROPOSEs, by (epoch, vote, round, voter)
//   VoteSigning    a host's side: signs its proposals, assembles and checks its decisions' proofs,
//                  attaches them to its DECIDED frames, checks the DECIDED frames it receives
//   provenRecords  the records of a ledger state whose proofs check (ITEM_STATE from anyone)
import type { Decision } from './vote';
import { bareRecord, type DecisionProof, type ProofChecker, type ProofFault, type ProofSig, type ProofSigner } from './decision-proof';
import { candidateKey, type Item, type ItemCandidate, type ItemLedger, type LedgerState } from './item-ledger';
import type { ItemVoteMessage } from './item-votes';
import type { VoterSet } from './voter-set';

/** (epoch, vote, round) entries a book keeps: a few rounds of the votes open at once. */
const MAX_BOOK = 256;
/** Proofs kept by vote id (to answer late claims with a signed DECIDED). */
const MAX_PROOFS = 64;

type Area = { ax: number; az: number };
type DecidedMsg = Extract<ItemVoteMessage, { t: 'DECIDED' }>;

/** The proposal signatures one peer has heard. */
export class ProposalBook {
  private readonly byRound = new Map<string, Map<string, { k: string; sig: ProofSig }>>();

  /** A voter's signed PROPOSE (unsigned or null ones carry nothing to keep). */
  heard(e: number, fromHex: string, msg: ItemVoteMessage & { sig?: ProofSig | undefined }): void {
    if (msg.t !== 'PROPOSE' || msg.c === null || !msg.sig) return;
    const tag = `${e}|${msg.vote}|${msg.round}`;
    let m = this.byRound.get(tag);
    if (!m) {
      this.byRound.set(tag, (m = new Map()));
      if (this.byRound.size > MAX_BOOK) this.byRound.delete(this.byRound.keys().next().value!);
    }
    if (!m.has(fromHex)) m.set(fromHex, { k: candidateKey(msg.c), sig: msg.sig });
  }

  /** The signatures of the proposals a decision counted (its proof mask), or undefined when one is missing. */
  proofOf(set: VoterSet, vote: string, d: Decision<ItemCandidate>, own?: ProofSig): DecisionProof | undefined {
    const m = this.byRound.get(`${set.tag}|${vote}|${d.round}`);
    const k = candidateKey(d.c);
    const sigs: ProofSig[] = [];
    for (let i = 0; i < set.n; i++) {
      if (!(d.proof & (1 << i))) continue;
      const got = own && set.ids[i] === hexOf(own) ? { k, sig: own } : m?.get(set.ids[i]!);
      if (!got || got.k !== k) return undefined;
      sigs.push(got.sig);
    }
    return { e: set.tag, vote, round: d.round, sigs };
  }
}

const hexOf = (s: ProofSig) => [...s.id].map((b) => b.toString(16).padStart(2, '0')).join('');

export interface VoteSigningArgs {
  area: Area;
  ledger: ItemLedger;
  signer: ProofSigner;
  checker: ProofChecker;
  /** Signature counters of this host (beside the checker's faults). */
  stats: { unprovable: number; unsigned: number };
}

export class VoteSigning {
  readonly book = new ProposalBook();
  private readonly own = new Map<string, Promise<ProofSig>>();
  private readonly proofs = new Map<string, Promise<DecisionProof | undefined>>();

  constructor(private readonly a: VoteSigningArgs) {}

  /**
   * A frame of our engine, made ready to send: a non-null PROPOSE with our signature, a
   * DECIDED with its proof (undefined: no proof, not sent; the repeats carry it once there is).
   */
  async outgoing(set: VoterSet, msg: ItemVoteMessage): Promise<ItemVoteMessage | undefined> {
    if (msg.t === 'PROPOSE' && msg.c !== null) {
      const sig = await this.sign(set, msg.vote, msg.round, msg.c);
      return sig ? { ...msg, sig } : msg;
    }
    if (msg.t !== 'DECIDED') return msg;
    const proof = await this.proofFor(msg.vote);
    return proof ? { ...msg, sigs: proof.sigs } : undefined;
  }

  /** A decision our engine reached (or took from a checked DECIDED): its proof on the record, once it checks. */
  decided(set: VoterSet, vote: string, d: Decision<ItemCandidate>, rec: Item): Promise<DecisionProof | undefined> {
    let p = this.proofs.get(vote);
    if (!p) {
      p = this.assemble(set, vote, d, rec);
      this.keep(vote, p);
    }
    return p.then((proof) => {
      if (proof) this.a.ledger.prove(rec, proof);
      return proof;
    });
  }

  /** A DECIDED from another voter (`via`, hex: the sender, whose derivation budget new keys spend): true when its signatures prove it (then the engine may take it). */
  async checkDecided(set: VoterSet, msg: DecidedMsg & { sigs?: ProofSig[] | undefined }, via?: string): Promise<boolean> {
    if (!msg.sigs) {
      this.a.stats.unsigned++;
      return false;
    }
    const rec = this.a.ledger.recordFor(msg.vote, msg.c);
    if (!rec) {
      this.a.stats.unprovable++;
      return false;
    }
    const proof: DecisionProof = { e: msg.set, vote: msg.vote, round: msg.round, sigs: msg.sigs };
    if ((await this.a.checker.check(this.a.area, rec, proof, set, via)) !== null) return false;
    if (!this.proofs.has(msg.vote)) this.keep(msg.vote, Promise.resolve(proof));
    return true;
  }

  private keep(vote: string, p: Promise<DecisionProof | undefined>): void {
    this.proofs.set(vote, p);
    if (this.proofs.size > MAX_PROOFS) this.proofs.delete(this.proofs.keys().next().value!);
  }

  /** Our proof of a vote: assembled here, or on the record the ledger holds for it (a vote decided long ago). */
  private proofFor(vote: string): Promise<DecisionProof | undefined> {
    const p = this.proofs.get(vote);
    if (p) return p;
    const held = this.a.ledger.items.find((i) => i.proof?.vote === vote);
    return Promise.resolve(held?.proof);
  }

  private sign(set: VoterSet, vote: string, round: number, c: ItemCandidate): Promise<ProofSig> | undefined {
    const tag = `${set.tag}|${vote}|${round}|${candidateKey(c)}`;
    let p = this.own.get(tag);
    if (p) return p;
    const rec = this.a.ledger.recordFor(vote, c);
    if (!rec) {
      this.a.stats.unprovable++;
      return undefined;
    }
    p = this.a.signer.sign(this.a.area, set.tag, vote, round, rec);
    this.own.set(tag, p);
    if (this.own.size > MAX_BOOK) this.own.delete(this.own.keys().next().value!);
    return p;
  }

  private async assemble(set: VoterSet, vote: string, d: Decision<ItemCandidate>, rec: Item): Promise<DecisionProof | undefined> {
    const own = this.sign(set, vote, d.round, d.c);
    const proof = this.book.proofOf(set, vote, d, own ? await own : undefined);
    if (!proof) {
      this.a.stats.unsigned++;
      return undefined;
    }
    return (await this.a.checker.check(this.a.area, bareRecord(rec), proof, set)) === null ? proof : undefined;
  }
}

/**
 * The part of a ledger state that may change `ledger`: the records merging would change,
 * each only with a proof that checks against the set of the epoch it names (`setOf`);
 * unsigned ones are counted and left out. Slots and stars pass as they are (only a host's
 * state carries them, and a host only takes another host's). `via`: the sender (hex), whose
 * derivation budget a voter's key not met before spends.
 */
export async function provenRecords(
  ledger: ItemLedger, s: LedgerState, checker: ProofChecker, setOf: (e: number) => VoterSet | undefined, stats: { unsigned: number }, via?: string,
): Promise<{ state: LedgerState; refused: (ProofFault | 'unsigned')[] }> {
  const area = { ax: ledger.area.ax, az: ledger.area.az };
  const refused: (ProofFault | 'unsigned')[] = [];
  const items: Item[] = [];
  for (const rec of ledger.changesFrom(s)) {
    if (!rec.proof) {
      stats.unsigned++;
      refused.push('unsigned');
      continue;
    }
    const fault = await checker.check(area, bareRecord(rec), rec.proof, setOf(rec.proof.e), via);
    if (fault) refused.push(fault);
    else items.push(rec);
  }
  return { state: { ...s, items }, refused };
}
