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
 * signatures of a later host set (or any, over none); and two different records of one vote
 * (`splitVote`), the one with the smaller key, so that both sides of a split end with the same.
 */
export function takes(ours: Item, theirs: Item): boolean {
  if (theirs.gen !== ours.gen) return theirs.gen > ours.gen;
  if ((ours.owner === null) !== (theirs.owner === null)) return theirs.owner !== null;
  if (ours.owner === theirs.owner && (ours.away === undefined) !== (theirs.away === undefined)) return theirs.away !== undefined;
  if (sameRecord(ours, theirs)) return theirs.proof !== undefined && (ours.proof === undefined || theirs.proof.e > ours.proof.e);
  return recordKey(theirs) < recordKey(ours);
}

/**
 * Two records of one item at one gen that no rule above ranks: both owned by different
 * players, or both lying at different spots, or carried to different regions. Honest voters
 * never make two (two majorities of one set share a voter, which backs one candidate per
 * round), but a voter that signs both sides of a vote does (docs/ITEMS.md "A lying voter"):
 * each side then holds a proof of a majority. Whoever merges both keeps the one with the
 * smaller key, in whatever order they came, so the hosts' ledgers, and the players' through
 * the hosts' state, end with one owner.
 */
export function splitVote(a: Item, b: Item): boolean {
  return a.gen === b.gen && (a.owner === null) === (b.owner === null) && !(a.owner === b.owner && (a.away === undefined) !== (b.away === undefined)) && !sameRecord(a, b);
}

/** What a split is settled by: the record's content, proofs aside. */
function recordKey(r: Item): string {
  return JSON.stringify([r.owner, r.away ?? null, r.kind, r.x, r.y, r.z, r.at]);
}
