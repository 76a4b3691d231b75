// Carrying a held item into another region (docs/ITEMS.md "Carrying an item across regions").
// Two records, each a decision signed by a majority of its region's hosts
// (decision-proof.ts, replicated-drops.ts):
//
//   1. in the item's region A, the tombstone `carry:<item>:<g+1>`: the same owner still holds
//      it, `away` names the region B it is carried to. A's hosts sign at most one record per
//      item and gen, so the tombstone and a drop in A (both gen g+1) can never both be proven:
//      dropping one item in two regions at once leaves it in one.
//   2. in B, `drop:<item>:<g+2>`: it lies at the owner's spot, nobody's. B's hosts sign it only
//      with A's proven tombstone naming B and the dropper as owner, the proof checked against
//      A's host set as the DHT's location record of A certifies it (not a set the dropper
//      names: anyone can make node ids and sign), and only if their ledger holds no later
//      record of that item, so one tombstone is adopted once.
// The fixed-count kind (the star) keeps its one id throughout, so it is never duplicated.
import type { Item, ItemLedger, LedgerRejection } from './item-ledger';

/** The tombstone the owner `by` leaves in `ledger`'s area when carrying `itemId` to area `to` (`ax,az`). */
export function carriedRecord(ledger: ItemLedger, itemId: string, by: string, to: string): Item | LedgerRejection {
  const it = ledger.item(itemId);
  if (!it) return refuse(ledger, 'unknown-item');
  if (it.owner !== by || it.away !== undefined) return refuse(ledger, 'not-owner');
  if (to === ledger.name || !/^-?\d+,-?\d+$/.test(to)) return refuse(ledger, 'outside-area');
  const { proof: _p, ...bare } = it;
  return { ...bare, gen: it.gen + 1, away: to };
}

/** The record a proven tombstone `tomb` makes in `ledger`'s area: at p, from world time `now`, nobody's, the next gen. */
export function arrivedRecord(ledger: ItemLedger, tomb: Item, p: { x: number; y: number; z: number }, now: number): Item | LedgerRejection {
  if (tomb.away !== ledger.name || tomb.owner === null) return refuse(ledger, 'outside-area');
  const a = ledger.area;
  if (!(p.x >= a.x0 && p.x < a.x0 + a.size && p.z >= a.z0 && p.z < a.z0 + a.size)) return refuse(ledger, 'outside-area');
  const ours = ledger.item(tomb.id);
  if (ours && ours.gen > tomb.gen) return refuse(ledger, 'replayed-decision');
  if (!ours && ledger.items.length >= ledger.options.maxItems) return refuse(ledger, 'full');
  return { id: tomb.id, kind: tomb.kind, x: p.x, y: p.y, z: p.z, at: now, owner: null, gen: tomb.gen + 1 };
}

function refuse(ledger: ItemLedger, r: LedgerRejection): LedgerRejection {
  ledger.stats[r]++;
  return r;
}
