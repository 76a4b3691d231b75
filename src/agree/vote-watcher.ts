// A claimant's side of a vote (the player who walked into the item), or any peer waiting
// for its outcome: sends the claim to every voter, re-sends it on ticks until a decision
// comes back (a decided voter answers a claim with DECIDED), and takes a decision only
// from a voter of the set, of the set's epoch, with a proof naming f + 1 voters. Pure: the
// caller sends, ticks and delivers.
//
// Voters also send their non-null PROPOSEs to the claimants they heard from. f + 1
// proposals for one candidate in one round are a decision wherever they are seen (any
// n - f proposals of that round then hold one of them, so every voter backs that candidate
// from the next round on, and no round has two non-null proposed values: vote.ts), so a
// claimant counting them learns the owner three one-way trips after its claim, not four.
import type { VoteMessage } from './vote-messages';
import { newVoteStats, type VoteStats } from './vote-stats';
import type { Decision, VoteEffect } from './vote';
import type { VoterSet } from './voter-set';

export interface WatcherOptions<C> {
  id: string;
  voters: VoterSet;
  key: (c: C) => string;
  /** Our claim; none for a peer that only waits for the outcome. */
  claim?: C;
  stats?: VoteStats;
}

export class VoteWatcher<C> {
  readonly stats: VoteStats;
  private decision: Decision<C> | undefined;
  /** round -> candidate key -> proof mask of the voters that proposed it (a voter counts once per round). */
  private readonly proposals = new Map<number, Map<string, number>>();
  private readonly proposers = new Map<number, number>();

  constructor(private readonly o: WatcherOptions<C>) {
    this.stats = o.stats ?? newVoteStats();
  }

  get decided(): Decision<C> | undefined {
    return this.decision;
  }

  /** The claim to every voter (nothing for a pure watcher). */
  start(): VoteEffect<C>[] {
    return this.o.claim === undefined ? [] : [{ send: { t: 'CLAIM', vote: this.o.id, c: this.o.claim }, to: this.o.voters.ids }];
  }

  /** Re-claims until decided: lost claims, and voters that decided before our claim reached them, answer it. */
  tick(): VoteEffect<C>[] {
    if (this.decision) return [];
    const out = this.start();
    this.stats.resent += out.length;
    return out;
  }

  receive(from: string, msg: VoteMessage<C>): VoteEffect<C>[] {
    if (msg.vote !== this.o.id) return this.count('wrongVote');
    if (msg.t === 'CLAIM' || msg.t === 'REPORT') return []; // voters' reports are not ours to count
    const voter = this.o.voters.indexOf(from);
    if (voter === undefined) return this.count('nonVoter');
    if (msg.set !== this.o.voters.tag) return this.count('wrongSet');
    if (msg.t === 'PROPOSE') return this.onPropose(voter, msg.round, msg.c);
    if (!this.o.voters.maskOk(msg.proof, this.o.voters.decides)) return this.count('forgedDecision');
    if (this.decision) {
      return this.count(this.o.key(this.decision.c) === this.o.key(msg.c) ? 'replayedDecision' : 'conflictingDecision');
    }
    this.decision = { c: msg.c, round: msg.round, proof: msg.proof };
    this.stats.forced++;
    return [{ decided: this.decision, forced: true }];
  }

  private onPropose(voter: number, round: number, c: C | null): VoteEffect<C>[] {
    if (this.decision || c === null) return [];
    const bit = 1 << voter;
    const seen = this.proposers.get(round) ?? 0;
    if (seen & bit) return this.count('duplicate');
    if (this.proposers.size >= 8 && !this.proposers.has(round)) return this.count('farRound'); // bounded: a few rounds at once
    this.proposers.set(round, seen | bit);
    const byKey = this.proposals.get(round) ?? new Map<string, number>();
    this.proposals.set(round, byKey);
    const k = this.o.key(c);
    const proof = (byKey.get(k) ?? 0) | bit;
    byKey.set(k, proof);
    if (!this.o.voters.maskOk(proof, this.o.voters.decides)) return [];
    this.decision = { c, round, proof };
    this.proposals.clear();
    this.proposers.clear();
    return [{ decided: this.decision, forced: false }];
  }

  private count(what: keyof VoteStats): VoteEffect<C>[] {
    this.stats[what]++;
    return [];
  }
}
