// A player's side of an area's items: a replica of the area's ItemLedger, kept by the
// region state the hosts stream (`applyState`) and by the decisions they send (spawns as
// they are decided: the thesis's message 18, a peer that missed the appearance shows it on
// hearing), and the player's own claims (a VoteWatcher per claim: it learns the owner from
// f + 1 proposals or a DECIDED). Pure: frames in, frames to send and what changed out; the
// caller shows `ledger.onGround(worldNow)` each frame, so every player shows an item from
// the same world time. A decision is taken only from a voter of the current set, with the
// signatures of a majority of the set over the record it makes (decision-proof.ts): this
// replica names the decision and its proof (`check`), the caller checks the signatures
// (asynchronous) and then applies it (`applyChecked`).
import { ItemLedger, type ClaimCandidate, type Item, type ItemArea, type ItemCandidate, type LedgerState } from './item-ledger';
import type { DecisionProof } from './decision-proof';
import type { ItemVoteMessage } from './item-votes';
import { ProposalBook } from './vote-signing';
import { candidateKey } from './item-ledger';
import { newVoteStats, type VoteStats } from './vote-stats';
import type { Decision, VoteEffect } from './vote';
import { VoteWatcher } from './vote-watcher';
import type { VoterSet } from './voter-set';

/** Claims followed at once (a player walks into a few items at most). */
const MAX_CLAIMS = 8;

export type ClientEffect =
  | { send: ItemVoteMessage; to: readonly string[] }
  | { appeared: Item }
  | { taken: Item }
  /**
   * A decision to take once its proof checks: the record it makes, and the signatures; `via`:
   * the voter (hex) whose message completed it, whose derivation budget a signer's key not
   * met before spends (core/derivation-budget.ts).
   */
  | { check: { vote: string; d: Decision<ItemCandidate>; rec: Item; proof: DecisionProof; via: string } };

export interface ItemClientOptions {
  self: string;
  seed: string;
  area: ItemArea;
  /** The area's voters: the region's certified host set (setVoters on an epoch change). */
  voters: VoterSet;
}

export class ItemClient {
  readonly ledger: ItemLedger;
  readonly stats: VoteStats = newVoteStats();
  private voters: VoterSet;
  private readonly claims = new Map<string, { item: string; watcher: VoteWatcher<ItemCandidate> }>();
  /** The signatures of the proposals our claims heard (a decision learnt from them is proven by them). */
  private readonly book = new ProposalBook();

  constructor(private readonly o: ItemClientOptions) {
    this.ledger = new ItemLedger(o.seed, o.area);
    this.voters = o.voters;
  }

  /** The region's epoch changed: claims still open go to the new voters. */
  setVoters(voters: VoterSet): ClientEffect[] {
    this.voters = voters;
    const open = [...this.claims.values()].filter((c) => !c.watcher.decided);
    this.claims.clear();
    return open.flatMap((c) => {
      const mine = this.ledger.item(c.item);
      return mine ? this.claim(c.item, { x: mine.x, y: mine.y, z: mine.z }) : [];
    });
  }

  /** The area's items as the hosts' region state has them (a SYNC, a late join): joined in. */
  applyState(s: LedgerState): void {
    this.ledger.merge(s);
  }

  /** Walking into an item: the claim to every voter (nothing when the replica already refuses it: counted there). */
  claim(itemId: string, p: { x: number; y: number; z: number }, worldNow = Infinity): ClientEffect[] {
    const vote = this.ledger.pickupVoteId(itemId);
    if (!vote) return [];
    const c: ClaimCandidate = { t: 'c', who: this.o.self, ...p };
    if (this.ledger.checkClaim(itemId, c, worldNow)) return [];
    if (this.claims.has(vote)) return [];
    if (this.claims.size >= MAX_CLAIMS) this.claims.delete(this.claims.keys().next().value!);
    const watcher = new VoteWatcher<ItemCandidate>({ id: vote, voters: this.voters, key: candidateKey, claim: c, stats: this.stats });
    this.claims.set(vote, { item: itemId, watcher });
    return sends(watcher.start());
  }

  /** Re-claims until decided (claims and answers may be lost). */
  tick(): ClientEffect[] {
    const out: ClientEffect[] = [];
    for (const [vote, c] of this.claims) {
      if (c.watcher.decided) this.claims.delete(vote);
      else out.push(...sends(c.watcher.tick()));
    }
    return out;
  }

  receive(from: string, msg: ItemVoteMessage): ClientEffect[] {
    const mine = this.claims.get(msg.vote);
    if (mine) {
      if (msg.t === 'PROPOSE') this.book.heard(this.voters.tag, from, msg);
      const d = mine.watcher.receive(from, msg).find((e) => 'decided' in e);
      if (!d || !('decided' in d)) return [];
      // Learnt from a majority's proposals: their signatures prove it; from a DECIDED: its own.
      const proof = msg.t === 'DECIDED' ? this.proofOf(msg) : this.book.proofOf(this.voters, msg.vote, d.decided);
      return this.toCheck(msg.vote, d.decided, proof, from);
    }
    if (msg.t !== 'DECIDED') return []; // others' votes: only their outcomes matter here
    if (this.voters.indexOf(from) === undefined) return this.count('nonVoter');
    if (msg.set !== this.voters.tag) return this.count('wrongSet');
    return this.toCheck(msg.vote, { c: msg.c, round: msg.round, proof: msg.proof }, this.proofOf(msg), from);
  }

  /** A decision whose proof checked: the item appears, or has its owner. */
  applyChecked(vote: string, d: Decision<ItemCandidate>, proof: DecisionProof): ClientEffect[] {
    if (vote.startsWith('spawn:')) {
      const it = this.ledger.applySpawn(vote, d, this.voters, proof);
      return typeof it === 'string' ? [] : [{ appeared: it }];
    }
    const it = this.ledger.applyPickup(vote, d, this.voters, proof);
    return typeof it === 'string' ? [] : [{ taken: it }];
  }

  private proofOf(msg: Extract<ItemVoteMessage, { t: 'DECIDED' }>): DecisionProof | undefined {
    return msg.sigs ? { e: msg.set, vote: msg.vote, round: msg.round, sigs: msg.sigs } : undefined;
  }

  private toCheck(vote: string, d: Decision<ItemCandidate>, proof: DecisionProof | undefined, via: string): ClientEffect[] {
    if (!proof) return this.count('forgedDecision'); // no signatures: changes nothing
    const rec = this.ledger.recordFor(vote, d.c);
    return rec ? [{ check: { vote, d, rec, proof, via } }] : this.count('oldRound'); // a vote past here (or not yet known): the state tells
  }

  private count(what: keyof VoteStats): ClientEffect[] {
    this.stats[what]++;
    return [];
  }
}

/** The frames among a watcher's effects (its decisions are handled where they come). */
function sends(fx: VoteEffect<ItemCandidate>[]): ClientEffect[] {
  return fx.filter((e): e is Extract<VoteEffect<ItemCandidate>, { send: unknown }> => 'send' in e);
}
