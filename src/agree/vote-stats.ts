// Counters of a vote (or of many votes sharing one object): what was refused and why, so
// the dashboard and the tests read one flat object (docs/STYLE.md, hyperswarm's `stats`).
// Every refused input changes nothing but its counter.

export interface VoteStats {
  /** A voter's frame from a peer outside the voter set. */
  nonVoter: number;
  /** A frame of another vote id, or of another voter set (epoch). */
  wrongVote: number;
  wrongSet: number;
  /** A frame of a round this voter has left (answered with our frames of that round, never counted). */
  oldRound: number;
  /** A frame too many rounds ahead to keep. */
  farRound: number;
  /** The same frame again (retransmission or replay). */
  duplicate: number;
  /** A voter's second, different frame in one round and phase (kept: the first). */
  equivocation: number;
  /** A candidate the caller refused (claimant not near the item, spawn outside a hosted region) or not the handed-over lock. */
  badCandidate: number;
  /** A candidate past MAX_CANDIDATES. */
  tooManyCandidates: number;
  /** A decision whose proof is too small, names no voter, or contradicts frames we hold. */
  forgedDecision: number;
  /** A decision for the value already decided. */
  replayedDecision: number;
  /** A valid-looking decision for another value than ours (never happens among honest voters). */
  conflictingDecision: number;
  /** A frame after this voter handed the vote over to a new voter set. */
  afterHandover: number;
  /** Frames re-sent on a tick (loss) or to a lagging voter. */
  resent: number;
  /** Rounds begun after a split (round 1 not counted). */
  splits: number;
  /** Decisions reached by counting, and taken from another voter's DECIDED. */
  decided: number;
  forced: number;
}

export function newVoteStats(): VoteStats {
  return {
    nonVoter: 0, wrongVote: 0, wrongSet: 0, oldRound: 0, farRound: 0, duplicate: 0, equivocation: 0,
    badCandidate: 0, tooManyCandidates: 0, forgedDecision: 0, replayedDecision: 0, conflictingDecision: 0,
    afterHandover: 0, resent: 0, splits: 0, decided: 0, forced: 0,
  };
}
