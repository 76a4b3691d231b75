// Which of two records of one item a ledger keeps (ItemLedger.merge, `changesFrom`): the rule
// that makes joining states order-free, so every host and player ends with the same record
// whatever order the states came in.
import type { Item } from './item-schemas';

/** The same record, proofs aside. */
export function sameRecord(a: Item, b: Item): boolean {
  return a.id === b.id && a.kind === b.kind && a.x === b.x && a.y === b.y && a.z === b.z && a.at === b.at && a.owner === b.owner && a.gen === b.gen && a.away === b.away;
}

/**
 * Whether a merge replaces record `ours` with `theirs`: a higher gen; at one gen, a taken or
 * carried record over the one lying (a decision over its absence); the same record with
 * signatures of a later host set (or any, over none).
 */
export function takes(ours: Item, theirs: Item): boolean {
  if (theirs.gen !== ours.gen) return theirs.gen > ours.gen;
  if (ours.owner === null && theirs.owner !== null) return true;
  if (ours.away === undefined && theirs.away !== undefined && theirs.owner === ours.owner) return true;
  return sameRecord(ours, theirs) && theirs.proof !== undefined && (ours.proof === undefined || theirs.proof.e > ours.proof.e);
}
