// The frames of a vote (thesis 4.5.2, messages 20-24), generic over what is decided: the
// caller passes the candidate's schema (a claimant id for a pickup, a spawn for an item
// appearing). Every frame is checked against these schemas before the engine sees it
// (docs/DESIGN.md "Bad input and trust"); the limits below bound what one frame can carry.
//
// Thesis -> here: 20 pickup claim = CLAIM; 21 agree / 22 "backing another" / 23 re-vote
// with a round = REPORT (its candidate says which, its round says which re-vote); 24
// forced decision = DECIDED. PROPOSE is ours: the second half of each round that makes a
// decision safe when a voter dies mid-vote (vote.ts says why).
import * as v from 'valibot';
import { u32, type CodecSpec } from '../core/codec';
import { MAX_CERT_HOSTS } from '../region/epoch-cert';

/** Voters of one vote: a region's certified host set, so as many as a certificate names. Proof masks are u32 bitmaps over them. */
export const MAX_VOTERS = MAX_CERT_HOSTS;
/** Distinct candidates one vote tracks (2-8 claimants reach an item at once); more are refused and counted. */
export const MAX_CANDIDATES = 8;
/** Length of a vote's id (an item id, a spawn slot). */
export const MAX_VOTE_ID = 64;
/** Highest round number. At 1/2 the chance of a split per round this is never reached by an honest vote. */
export const MAX_ROUND = 1000;

/** A vote's instance id: which item (or spawn slot) this vote decides. */
export const voteIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_VOTE_ID));
const round = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_ROUND));
/** Bit i set: the i-th voter of the set's order backs the decision. */
const proofMask = v.pipe(u32, v.maxValue(2 ** MAX_VOTERS - 1));

export type VoteMessage<C> =
  /** claimant -> voters: I claim it (thesis 20 / 10). */
  | { t: 'CLAIM'; vote: string; c: C }
  /** voter -> voters: in round `round` I back `c` (thesis 21-23). */
  | { t: 'REPORT'; vote: string; set: number; round: number; c: C }
  /** voter -> voters: a majority of the reports I counted in `round` backs `c` (null: none did). */
  | { t: 'PROPOSE'; vote: string; set: number; round: number; c: C | null }
  /** voter -> voters and claimants: decided `c` in `round`; `proof`: the voters whose proposals decided it (thesis 24). */
  | { t: 'DECIDED'; vote: string; set: number; round: number; c: C; proof: number };

/**
 * The vote frames as codec entries with type codes from `firstCode` on, for a codec of
 * their own or merged into a larger spec (`defineCodec({ ...hostSpec, ...voteSpec(...) })`).
 * `set` is the voter set's tag (its epoch): frames of another set are refused.
 */
export function voteSpec<C>(candidate: v.GenericSchema<unknown, C>, firstCode: number) {
  const base = { vote: voteIdSchema, set: u32, round };
  return {
    CLAIM: [firstCode, v.object({ vote: voteIdSchema, c: candidate })],
    REPORT: [firstCode + 1, v.object({ ...base, c: candidate })],
    PROPOSE: [firstCode + 2, v.object({ ...base, c: v.nullable(candidate) })],
    DECIDED: [firstCode + 3, v.object({ ...base, c: candidate, proof: proofMask })],
  } as const satisfies CodecSpec;
}

/** Number of voters a proof mask names. */
export function maskSize(mask: number): number {
  let n = 0;
  for (let m = mask >>> 0; m; m &= m - 1) n++;
  return n;
}
