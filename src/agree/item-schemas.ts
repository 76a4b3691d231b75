// The item records as the region carries them (ITEM_STATE, the stored region record, the
// vote candidates): every one is checked against these schemas before anything trusts it
// (docs/DESIGN.md "Bad input and trust"). The types live with the ledger (item-ledger.ts).
import * as v from 'valibot';
import { worldTime } from './clock-probe';
import { decisionProofSchema } from './decision-proof';
import { ITEM_KINDS } from './item-kinds';

/** Item records an area keeps at most (item-ledger.ts maxItems). */
export const MAX_ITEMS = 128;
const MAX_COORD = 30_000_000;
const coord = v.pipe(v.number(), v.finite(), v.minValue(-MAX_COORD), v.maxValue(MAX_COORD));
const int = (lo: number, hi: number) => v.pipe(v.number(), v.integer(), v.minValue(lo), v.maxValue(hi));
const who = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

/** An item id's longest form (`<area>/<slot>` or `star-k`); the player record lists held ids too. */
export const itemIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(40));

/** An item: the thesis's name tag (4.1) is `owner`, so it never has two. */
export const itemSchema = v.object({
  id: itemIdSchema,
  kind: v.picklist(ITEM_KINDS),
  x: coord,
  y: coord,
  z: coord,
  /** World time (synchronised clock, ms) from which the item is shown. */
  at: worldTime,
  /** Who holds it (a player id, hex); null: it lies in the world. */
  owner: v.nullable(who),
  /** Times it was dropped (or carried on): names its open pickup vote. */
  gen: int(0, 0xffffffff),
  /** Carried off to this area (`ax,az`) by its owner: the record stays here as a tombstone (carry-record.ts). */
  away: v.optional(v.pipe(v.string(), v.maxLength(24))),
  /** The voters' signatures over this record (decision-proof.ts); absent in the one-tab mode and until a host assembled it. */
  proof: v.optional(decisionProofSchema),
});

export type Item = v.InferOutput<typeof itemSchema>;

export const ledgerStateSchema = v.object({
  area: v.object({ ax: int(-1e6, 1e6), az: int(-1e6, 1e6), x0: coord, z0: coord, size: int(1, 1024) }),
  slot: int(0, 0xffffffff),
  stars: int(0, 0xffffffff),
  items: v.pipe(v.array(itemSchema), v.maxLength(MAX_ITEMS)),
});

/** The vote candidates on the wire (item-messages.ts). */
export const itemCandidateSchema = v.variant('t', [
  v.object({ t: v.literal('s'), slot: int(0, 0xffffffff), kind: v.picklist(ITEM_KINDS), star: v.optional(int(0, 31)), x: coord, y: coord, z: coord, at: worldTime, by: who }),
  v.object({ t: v.literal('c'), who, x: coord, y: coord, z: coord }),
]);
