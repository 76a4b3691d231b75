// One voter's side of one vote (thesis 2.4.1, 4.2, 4.5.2), generic over what is decided. A
// pure state machine: frames, ticks and an injected rng in; frames to send and the
// decision out. No clock, no I/O.
//
// As in the thesis: a voter backs the first candidate it hears of (a claim, or another
// voter's report) and tells the other voters; a majority decides; a split starts a numbered
// round in which each voter re-picks at random; frames of old rounds do not count; a
// decided voter broadcasts a forced decision (DECIDED) that settles the undecided.
//
// Where we differ, and why: the thesis counts every peer's opinion, so one voter dying
// mid-vote stalls it (it restarts the vote on any membership change). Waiting for n - f
// reports instead is not safe with one-step rounds: a voter that saw a majority for A may
// decide while another, whose n - f reports hid that majority, re-votes and may later
// decide B. So each round has two steps (Ben-Or's randomized consensus):
//   1. REPORT the backed candidate; on n - f reports, PROPOSE the candidate a majority of
//      all n voters reported, or null. Two majorities intersect, so one round never has two
//      non-null proposals.
//   2. On n - f proposals: f + 1 for one candidate decide it. Otherwise back a proposed
//      candidate if any was seen (any n - f proposals include one of a deciding f + 1, so
//      after a decision every voter backs the decided one and no other can win later),
//      else re-pick at random among the candidates reported this round.
// A dead minority thus never stalls a vote and needs no restart. A change of the voter set
// itself (an epoch change) hands the vote over: vote-handover.ts.
import type { Random } from '../core/seeded-random';
import { MAX_CANDIDATES, MAX_ROUND, type VoteMessage } from './vote-messages';
import { newVoteStats, type VoteStats } from './vote-stats';
import type { VoterSet } from './voter-set';

/** Rounds ahead of ours whose frames are kept (a voter a round behind catches up). */
const MAX_AHEAD = 4;
/** Claimants told of the decision directly (the rest learn it from the region state). */
const MAX_AUDIENCE = 16;

export interface Decision<C> {
  c: C;
  round: number;
  proof: number;
}

/** What one voter hands to the next voter set (vote-handover.ts). */
export interface Handover<C> {
  decided?: Decision<C>;
  proposal?: { round: number; c: C };
}

export type VoteEffect<C> =
  | { send: VoteMessage<C>; to: readonly string[] }
  | { decided: Decision<C>; forced: boolean };

export interface VoteOptions<C> {
  /** The vote's id (which item, which spawn slot). */
  id: string;
  voters: VoterSet;
  self: string;
  /** A candidate's identity (a claimant's id hex): equal keys are one candidate. */
  key: (c: C) => string;
  rng: Random;
  /** The caller's check of a candidate (a claimant near the item); refused ones are counted. Default: all pass. */
  admit?: (c: C) => boolean;
  /** Handed over from the previous voter set (vote-handover.ts): back only this. */
  lock?: C;
  /**
   * Ticks to wait for the last frames of a step once n - f are in and more could change
   * the outcome (default 1). 0: move on at n - f (more re-votes); each tick of patience
   * delays a vote with a dead voter by up to one tick period.
   */
  patience?: number;
  /** Shared counters (many votes, one dashboard). Default: a new object. */
  stats?: VoteStats;
}

type Step = 'report' | 'propose';

export class Vote<C> {
  readonly stats: VoteStats;
  private round = 0; // 0: no candidate heard yet
  private step: Step = 'report';
  /** Ticks since this step began: with n - f frames in but the outcome still open, we wait `patience` ticks for the rest. */
  private waited = 0;
  private readonly patience: number;
  private backing: C | undefined;
  private decision: Decision<C> | undefined;
  private handedOver = false;
  private readonly candidates = new Map<string, C>();
  // round -> voter index -> candidate key (null: a PROPOSE of none)
  private readonly reports = new Map<number, Map<number, string | null>>();
  private readonly proposals = new Map<number, Map<number, string | null>>();
  /** Our highest-round non-null proposal: what a handover must carry (vote-handover.ts). */
  private proposed: { round: number; c: C } | undefined;
  /** Our own frames by round, re-sent on ticks and to voters still in that round. */
  private readonly sent = new Map<number, VoteMessage<C>[]>();
  private readonly audience = new Set<string>();
  /** (voter, round) pairs answered with our old frames since the last tick: two voters that both moved on must not echo a stale frame back and forth. */
  private readonly answered = new Set<string>();
  private readonly me: number;
  private readonly others: string[];

  constructor(private readonly o: VoteOptions<C>) {
    const me = o.voters.indexOf(o.self);
    if (me === undefined) throw new RangeError('the voting node is not in the voter set');
    this.me = me;
    this.others = o.voters.ids.filter((id) => id !== o.self);
    this.stats = o.stats ?? newVoteStats();
    this.patience = o.patience ?? 1;
    if (o.lock !== undefined) this.candidates.set(o.key(o.lock), o.lock);
  }

  get decided(): Decision<C> | undefined {
    return this.decision;
  }

  get currentRound(): number {
    return this.round;
  }

  /** The candidate backed now (undefined before any was heard). */
  get backed(): C | undefined {
    return this.backing;
  }

  /** Starts the vote on our own candidate (this voter is itself a claimant) or on the lock. */
  begin(c?: C): VoteEffect<C>[] {
    const first = this.o.lock ?? c;
    if (this.round !== 0 || this.handedOver || first === undefined || !this.admitted(first) || !this.learn(first)) return [];
    return this.start(first);
  }

  receive(from: string, msg: VoteMessage<C>): VoteEffect<C>[] {
    if (this.handedOver) return this.count('afterHandover');
    if (msg.vote !== this.o.id) return this.count('wrongVote');
    if (msg.t === 'CLAIM') return this.onClaim(from, msg.c);
    const v = this.o.voters.indexOf(from);
    if (v === undefined) return this.count('nonVoter');
    if (msg.set !== this.o.voters.tag) return this.count('wrongSet');
    if (msg.t === 'DECIDED') return this.onDecided(msg);
    if (this.decision) return [this.decidedTo([from])]; // the thesis's forced decision, to a voter still voting
    // A voter's candidate is not put to `admit`: voters may see a claimant's position a
    // little differently, and refusing a fellow voter's frame would stall the count.
    if (msg.c !== null && !this.learn(msg.c)) return [];
    const out: VoteEffect<C>[] = this.round === 0 && msg.c !== null ? this.start(msg.c) : [];
    if (msg.round < this.round) {
      this.stats.oldRound++;
      return [...out, ...this.resendRound(msg.round, from)];
    }
    if (msg.round > this.round + MAX_AHEAD) return [...out, ...this.count('farRound')];
    const byVoter = this.table(msg.t, msg.round);
    const k = msg.c === null ? null : this.o.key(msg.c);
    if (byVoter.has(v)) return [...out, ...this.count(byVoter.get(v) === k ? 'duplicate' : 'equivocation')];
    byVoter.set(v, k);
    return [...out, ...this.advance()];
  }

  /** Re-sends this round's frames (frames may be lost); nothing once decided or before starting. */
  tick(): VoteEffect<C>[] {
    this.answered.clear();
    if (this.decision || this.handedOver || this.round === 0) return [];
    const mine = this.sent.get(this.round) ?? [];
    this.stats.resent += mine.length;
    this.waited++;
    return [...mine.map((send) => ({ send, to: this.others })), ...this.advance()];
  }

  /** Stops voting in this set and tells what the next set must respect (vote-handover.ts). */
  handover(): Handover<C> {
    this.handedOver = true;
    if (this.decision) return { decided: this.decision };
    return this.proposed ? { proposal: this.proposed } : {};
  }

  private onClaim(from: string, c: C): VoteEffect<C>[] {
    if (this.o.voters.indexOf(from) === undefined && this.audience.size < MAX_AUDIENCE) this.audience.add(from);
    if (this.decision) return [this.decidedTo([from])];
    if (!this.admitted(c) || !this.learn(c) || this.round !== 0) return [];
    return this.start(c);
  }

  private onDecided(msg: Extract<VoteMessage<C>, { t: 'DECIDED' }>): VoteEffect<C>[] {
    const k = this.o.key(msg.c);
    if (!this.o.voters.maskOk(msg.proof, this.o.voters.decides) || this.contradicts(msg.round, k, msg.proof)) {
      return this.count('forgedDecision');
    }
    if (this.decision) return this.count(this.o.key(this.decision.c) === k ? 'replayedDecision' : 'conflictingDecision');
    this.stats.forced++;
    this.decision = { c: msg.c, round: msg.round, proof: msg.proof };
    this.backing = msg.c;
    return [{ decided: this.decision, forced: true }, ...(this.audience.size ? [this.decidedTo([...this.audience])] : [])];
  }

  /** A proof naming a voter whose proposal we hold for another value, or a round with another proposed value. */
  private contradicts(round: number, k: string, proof: number): boolean {
    const props = this.proposals.get(round);
    if (!props) return false;
    for (const [voter, p] of props) if (p !== k && (p !== null || proof & (1 << voter))) return true;
    return false;
  }

  /** Round 1: back the first candidate heard of, or the handed-over lock. */
  private start(c: C): VoteEffect<C>[] {
    this.round = 1;
    this.step = 'report';
    this.waited = 0;
    this.backing = this.o.lock ?? c;
    return [...this.report(), ...this.advance()];
  }

  /** Counts what this round holds and moves on as far as it allows. */
  private advance(): VoteEffect<C>[] {
    const out: VoteEffect<C>[] = [];
    const vs = this.o.voters;
    while (this.round > 0 && !this.decision) {
      if (this.step === 'report') {
        const reps = this.reports.get(this.round);
        if (!reps || reps.size < vs.quorum) break;
        const [top, count] = leader(reps.values() as Iterable<string>);
        const missing = vs.n - reps.size;
        // Waiting for the last reports turns most 2-1 splits into round-1 decisions.
        if (!(missing === 0 || vs.isMajority(count) || !vs.isMajority(count + missing)) && this.waited < this.patience) break;
        this.step = 'propose';
        this.waited = 0;
        out.push(this.own('PROPOSE', vs.isMajority(count) ? top : null));
        continue;
      }
      const props = this.proposals.get(this.round);
      if (!props || props.size < vs.quorum) break;
      const [top, count] = leader([...props.values()].filter((k): k is string => k !== null));
      const decides = top !== null && count >= vs.decides;
      // Still open: the missing proposals could decide now, or name a candidate to back.
      const missing = vs.n - props.size;
      if (!decides && missing > 0 && (top === null || count + missing >= vs.decides) && this.waited < this.patience) break;
      if (decides) {
        let proof = 0;
        for (const [voter, k] of props) if (k === top) proof |= 1 << voter;
        this.decision = { c: this.candidates.get(top)!, round: this.round, proof };
        this.backing = this.decision.c;
        this.stats.decided++;
        out.push({ decided: this.decision, forced: false }, this.decidedTo([...this.others, ...this.audience]));
        break;
      }
      if (this.round >= MAX_ROUND) break; // never reached by an honest vote (vote-messages.ts)
      // A split: back a proposed candidate if there is one, else re-pick at random among
      // the candidates reported this round (weighted by their backing, which converges faster
      // than a uniform pick and is still random).
      const reported = [...this.reports.get(this.round)!.values()] as string[];
      const next = top ?? reported[Math.floor(this.o.rng() * reported.length)]!;
      this.reports.delete(this.round - 1);
      this.proposals.delete(this.round - 1);
      this.round++;
      this.stats.splits++;
      this.step = 'report';
      this.waited = 0;
      this.backing = this.candidates.get(next)!;
      out.push(...this.report());
    }
    return out;
  }

  private report(): VoteEffect<C>[] {
    return [this.own('REPORT', this.o.key(this.backing!))];
  }

  /** Sends our frame of the current round and step, and counts it as received from ourselves. */
  private own(t: 'REPORT' | 'PROPOSE', k: string | null): VoteEffect<C> {
    const base = { vote: this.o.id, set: this.o.voters.tag, round: this.round };
    const c = k === null ? null : this.candidates.get(k)!;
    const msg: VoteMessage<C> = t === 'REPORT' ? { t, ...base, c: c! } : { t, ...base, c };
    this.table(t, this.round).set(this.me, k);
    if (t === 'PROPOSE' && c !== null) this.proposed = { round: this.round, c };
    const frames = this.sent.get(this.round) ?? [];
    frames.push(msg);
    this.sent.set(this.round, frames);
    // Claimants hear the proposals too: f + 1 for one candidate in a round is the decision
    // (vote-watcher.ts), so they learn it a trip before any DECIDED could reach them.
    if (t === 'PROPOSE' && c !== null && this.audience.size) return { send: msg, to: [...this.others, ...this.audience] };
    return { send: msg, to: this.others };
  }

  private table(t: 'REPORT' | 'PROPOSE', round: number): Map<number, string | null> {
    const tables = t === 'REPORT' ? this.reports : this.proposals;
    let byVoter = tables.get(round);
    if (!byVoter) tables.set(round, (byVoter = new Map()));
    return byVoter;
  }

  private resendRound(round: number, to: string): VoteEffect<C>[] {
    const pair = `${to} ${round}`;
    if (this.answered.has(pair)) return [];
    this.answered.add(pair);
    const mine = this.sent.get(round) ?? [];
    this.stats.resent += mine.length;
    return mine.map((send) => ({ send, to: [to] }));
  }

  private decidedTo(to: string[]): VoteEffect<C> {
    const d = this.decision!;
    return { send: { t: 'DECIDED', vote: this.o.id, set: this.o.voters.tag, round: d.round, c: d.c, proof: d.proof }, to };
  }

  private admitted(c: C): boolean {
    const lock = this.o.lock;
    if ((lock !== undefined && this.o.key(lock) !== this.o.key(c)) || (this.o.admit && !this.o.admit(c))) {
      this.stats.badCandidate++;
      return false;
    }
    return true;
  }

  /** Adds a candidate we may back; false (counted) when refused or past MAX_CANDIDATES. */
  private learn(c: C): boolean {
    const k = this.o.key(c);
    if (this.candidates.has(k)) return true;
    if (!this.admitted(c)) return false;
    if (this.candidates.size >= MAX_CANDIDATES) {
      this.stats.tooManyCandidates++;
      return false;
    }
    this.candidates.set(k, c);
    return true;
  }

  private count(what: keyof VoteStats): VoteEffect<C>[] {
    this.stats[what]++;
    return [];
  }
}

/** The most frequent key and its count (ties: the first seen); [null, 0] for none. */
function leader(keys: Iterable<string>): [string | null, number] {
  const counts = new Map<string, number>();
  let top: string | null = null;
  let best = 0;
  for (const k of keys) {
    const c = (counts.get(k) ?? 0) + 1;
    counts.set(k, c);
    if (c > best) [top, best] = [k, c];
  }
  return [top, best];
}
