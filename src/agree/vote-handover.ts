// A change of the voter set mid-vote (a host joins or dies and the region's epoch
// changes). The thesis restarts the vote; a plain restart is unsafe: a voter of the old set
// may have decided A just before the change, and a fresh vote in the new set may pick B.
//
// So the old set hands the vote over, and the new set restarts bound by what it was told.
// Each old voter stops voting and hands over its decision, or its highest-round non-null
// proposal. Handovers from n - f old voters (a majority: the epoch change already gathers
// grants from a majority of the previous set, docs/DESIGN.md "Epoch certificates") must be
// in hand. If the old set decided A in round r, f + 1 voters proposed A in round r, so at
// least one of them is among those n - f; and after round r every voter backs A, so every
// later proposal is A too. The highest-round proposal handed over is therefore A, and the
// new set, every voter of it locked on A (VoteOptions.lock), decides A in its first round.
// With no proposal at all, nothing can have been decided, and the new vote is free.
import type { Decision, Handover } from './vote';
import type { VoterSet } from './voter-set';

export type Restart<C> =
  /** The old set decided: the new set adopts the decision as is. */
  | { decided: Decision<C> }
  /** The new set votes with every voter locked on this candidate. */
  | { lock: C }
  /** Nothing was proposed: a fresh vote. */
  | { free: true };

/**
 * What the new voter set must respect, from the handovers of old voters (by voter id);
 * undefined while fewer than n - f of the old set handed over (a restart now could undo a
 * decision). Handovers from ids outside the old set are not counted.
 */
export function restartFrom<C>(old: VoterSet, handovers: ReadonlyMap<string, Handover<C>>): Restart<C> | undefined {
  let counted = 0;
  let best: { round: number; c: C } | undefined;
  for (const [id, h] of handovers) {
    if (old.indexOf(id) === undefined) continue;
    counted++;
    if (h.decided) return { decided: h.decided };
    if (h.proposal && (!best || h.proposal.round > best.round)) best = h.proposal;
  }
  if (counted < old.quorum) return undefined;
  return best ? { lock: best.c } : { free: true };
}
