// A drop takes effect only once a majority of the region's hosts hold it (docs/ITEMS.md
// "Drops"). The owner asks the primary (ITEM_DROP); the primary works the drop out on a copy
// of its ledger and sends that state to its backups with `ack` (ITEM_STATE); each backup
// merges it and answers ITEM_HELD once it holds that gen of the item; with enough of them
// (with the primary, a majority of the certificate's hosts) the primary merges the copy
// into its own ledger and shows it to the subscribers. So a drop the dropper saw take
// effect survives the primary's crash: the next primary, elected by a majority, is or
// hears from a host holding it (the state gossip's `merge` takes the higher gen).
// A drop that reaches no majority in time is given up here (counted); a backup that did
// merge it may still pass it on, and then it takes effect later: the owner was its single
// writer, so either way the item has one place and one owner.
import { idToHex, type NodeId } from '../core/node-id';
import { ItemLedger, type ItemArea, type ItemLedgerOptions, type LedgerState } from './item-ledger';
import type { ItemWireOf } from './item-wire';

export const REPLICATED_DROPS_DEFAULTS = {
  /** The state with `ack` goes again to backups that have not answered this often. */
  resendMs: 500,
  /** A drop not held by a majority by then is given up. */
  giveUpMs: 5000,
  /** Drops waiting at once (each is one owner's request; more are refused, counted). */
  maxPending: 16,
};

export interface DropStats {
  /** Drops that took effect (held by a majority first). */
  replicated: number;
  /** Drops given up: no majority held them in time. */
  unreplicated: number;
  /** Drops refused because too many waited. */
  busy: number;
}

export interface ReplicatedDropsArgs {
  seed: string;
  area: ItemArea;
  ledger: ItemLedger;
  ledgerOptions?: Partial<ItemLedgerOptions>;
  /** The backups of the region now (the certificate's hosts but us) and how many of them must hold a drop. */
  backups: () => NodeId[];
  needed: () => number;
  /** The ITEM_STATE frame carrying `state` and asking for an ack of (item, gen). */
  stateFrame: (state: LedgerState, ack: { item: string; gen: number }) => ItemWireOf<'ITEM_STATE'>;
  send: (to: NodeId, msg: ItemWireOf<'ITEM_STATE'>) => void;
  /** The drop took effect in the ledger: show it. */
  applied: () => void;
  worldNow: () => number;
  localNow: () => number;
  options?: Partial<typeof REPLICATED_DROPS_DEFAULTS>;
}

interface Pending {
  gen: number;
  state: LedgerState;
  held: Set<string>;
  since: number;
  sent: number;
}

export class ReplicatedDrops {
  readonly stats: DropStats = { replicated: 0, unreplicated: 0, busy: 0 };
  private readonly pending = new Map<string, Pending>();
  private readonly o: typeof REPLICATED_DROPS_DEFAULTS;

  constructor(private readonly a: ReplicatedDropsArgs) {
    this.o = { ...REPLICATED_DROPS_DEFAULTS, ...a.options };
  }

  /** The owner `by` puts `item` down at p: false when the ledger refuses it (or too many wait); the effect comes once held. */
  request(item: string, by: string, p: { x: number; y: number; z: number }): boolean {
    if (this.pending.has(item)) return true; // a re-sent request: already under way
    if (this.pending.size >= this.o.maxPending) {
      this.stats.busy++;
      return false;
    }
    const trial = new ItemLedger(this.a.seed, this.a.area, this.a.ledgerOptions);
    trial.merge(this.a.ledger.toState());
    const it = trial.drop(item, by, p, this.a.worldNow());
    if (typeof it === 'string') {
      this.a.ledger.stats[it]++; // the refusal counted where the ledger's refusals are
      return false;
    }
    const now = this.a.localNow();
    const d: Pending = { gen: it.gen, state: trial.toState(), held: new Set(), since: now, sent: -Infinity };
    this.pending.set(item, d);
    this.settle(item, d, now);
    return true;
  }

  /** A backup holds `item` at `gen` or later (ITEM_HELD). */
  held(fromHex: string, item: string, gen: number): void {
    const d = this.pending.get(item);
    if (!d || gen < d.gen) return;
    d.held.add(fromHex);
    this.settle(item, d, this.a.localNow());
  }

  tick(): void {
    const now = this.a.localNow();
    for (const [item, d] of this.pending) this.settle(item, d, now);
  }

  /** Drops waiting for a majority. */
  get waiting(): number {
    return this.pending.size;
  }

  private settle(item: string, d: Pending, now: number): void {
    const backups = this.a.backups();
    const holding = backups.filter((b) => d.held.has(idToHex(b))).length;
    if (holding >= this.a.needed()) {
      this.pending.delete(item);
      this.a.ledger.merge(d.state);
      this.stats.replicated++;
      this.a.applied();
      return;
    }
    if (now - d.since >= this.o.giveUpMs) {
      this.pending.delete(item);
      this.stats.unreplicated++;
      return;
    }
    if (now - d.sent < this.o.resendMs) return;
    d.sent = now;
    const frame = this.a.stateFrame(d.state, { item, gen: d.gen });
    for (const b of backups) if (!d.held.has(idToHex(b))) this.a.send(b, frame);
  }
}

