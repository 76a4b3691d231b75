// What the page needs of items, whoever keeps them: the one-tab mode (local-items.ts: this
// tab's own ledger, itself the only voter) today; the region's item votes over the host
// wire next (the same interface, fed by the region state and the vote frames). The frame
// loop, the inventory bar, the item models and window.voxel.items read only this.
import type { ItemKind } from '../agree/item-kinds';
import type { Item, LedgerRejection } from '../agree/item-ledger';

export interface ItemInfo {
  id: string;
  kind: ItemKind;
  x: number;
  y: number;
  z: number;
  /** The holder's player id; null while it lies in the world. */
  owner: string | null;
  /** World time it appears (or appeared) at. */
  at: number;
  /**
   * Held per the player's own signed record, its region not heard from yet (after a reload
   * far from it): position and time unknown (NaN) until the region's ledger answers.
   */
  recorded?: true;
}

export interface Point {
  x: number;
  y: number;
  z: number;
}

export type PickupOutcome = { taken: true; item: ItemInfo } | { taken: false; reason: LedgerRejection | 'undecided' };
export type DropOutcome = { dropped: true; item: ItemInfo } | { dropped: false; reason: LedgerRejection };

export interface ItemService {
  /** The player id items are held under. */
  readonly self: string;
  /** Items lying in the world within `radius` blocks of `p`, shown by world time `worldMs` (default now; Infinity: also those announced for later). */
  inView(p: Point, radius: number, worldMs?: number): ItemInfo[];
  /** What this player holds. */
  inventory(): ItemInfo[];
  /** Any item this player knows of (held by anyone, or lying in the world), by id. */
  item(id: string): ItemInfo | undefined;
  /** Walking into an item: the claim, decided by the vote. */
  touch(id: string, p: Point): Promise<PickupOutcome>;
  /** Puts a held item back in the world at `p`. */
  drop(id: string, p: Point): Promise<DropOutcome>;
  /** Once a frame: spawns that are due, and every item the player stands in is touched. */
  step(p: Point): void;
  /** Ledger refusals by reason (and spawned / taken / dropped counts). */
  stats(): Record<string, number>;
}

/** An item record as the page shows it. */
export const itemInfo = (i: Item): ItemInfo => ({ id: i.id, kind: i.kind, x: i.x, y: i.y, z: i.z, owner: i.owner, at: i.at });
