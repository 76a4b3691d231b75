// A claimant's side of a vote (the player who walked into the item), or any peer waiting
// for its outcome: sends the claim to every voter, re-sends it on ticks until a decision
// comes back (a decided voter answers a claim with DECIDED), and takes a decision only
// from a voter of the set, of the set's epoch, with a proof naming f + 1 voters. Pure: the
// caller sends, ticks and delivers.
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
    if (msg.t !== 'DECIDED') return []; // voters' rounds are not ours to count
    if (this.o.voters.indexOf(from) === undefined) return this.count('nonVoter');
    if (msg.set !== this.o.voters.tag) return this.count('wrongSet');
    if (!this.o.voters.maskOk(msg.proof, this.o.voters.decides)) return this.count('forgedDecision');
    if (this.decision) {
      return this.count(this.o.key(this.decision.c) === this.o.key(msg.c) ? 'replayedDecision' : 'conflictingDecision');
    }
    this.decision = { c: msg.c, round: msg.round, proof: msg.proof };
    this.stats.forced++;
    return [{ decided: this.decision, forced: true }];
  }

  private count(what: keyof VoteStats): VoteEffect<C>[] {
    this.stats[what]++;
    return [];
  }
}
