// One host's voting in one epoch of a region (region-items.ts): its ItemVotes over the
// certificate's host set, and, until the restart is known, the previous set's handovers
// (vote-handover.ts); and the voter sets of the epochs a host followed, by epoch, against
// which the proofs of records are checked (decision-proof.ts names each proof's epoch).
import type { ItemCandidate } from './item-ledger';
import type { ItemVotes } from './item-votes';
import { restartFrom, type Restart } from './vote-handover';
import type { Handover } from './vote';
import type { VoterSet } from './voter-set';

/** Older voter sets whose proofs a host still checks (records proven before a few epoch changes, until endorsed). */
const MAX_SETS = 8;

export interface Voting {
  votes: ItemVotes;
  set: VoterSet;
  since: number;
  /** The previous set and its voters' handovers, until the restart is known. */
  prev: VoterSet | undefined;
  handovers: Map<string, Map<string, Handover<ItemCandidate>>>;
  heard: Set<string>;
}

/** An old voter's handovers kept; false when it is no voter of the previous set. */
export function takeHandover(v: Voting | undefined, fromHex: string, e: number, hs: { vote: string; h: Handover<ItemCandidate> }[]): boolean {
  if (!v?.prev || v.prev.tag !== e || v.prev.indexOf(fromHex) === undefined) return false;
  v.heard.add(fromHex);
  for (const { vote, h } of hs) {
    let m = v.handovers.get(vote);
    if (!m) v.handovers.set(vote, (m = new Map()));
    m.set(fromHex, h);
  }
  return true;
}

/** What a vote of the new set must respect; 'wait' until enough of the old set handed over (or free once `waitMs` passed: the old set is gone). */
export function restartOf(v: Voting, id: string, now: number, waitMs: number): Restart<ItemCandidate> | 'wait' {
  if (!v.prev || now - v.since > waitMs) return { free: true };
  if (v.heard.size < v.prev.quorum) return 'wait';
  const hs = new Map(v.handovers.get(id) ?? []);
  for (const h of v.heard) if (!hs.has(h)) hs.set(h, {});
  return restartFrom(v.prev, hs) ?? 'wait';
}

/** The voter sets a host learnt from the certificates it followed (each one's previous set too). */
export class KnownSets {
  private readonly sets = new Map<number, VoterSet>();

  get(e: number): VoterSet | undefined {
    return this.sets.get(e);
  }

  learn(set: VoterSet): void {
    this.sets.set(set.tag, set);
    if (this.sets.size > MAX_SETS) this.sets.delete(Math.min(...this.sets.keys()));
  }
}
