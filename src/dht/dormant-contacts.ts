// Partition healing. A partition makes each side drop the other from its tables, and the
// overlay then has no path across: after it heals, one dial through the relay to a dropped
// contact joins the halves again (the link re-adds it, then empty-bucket refresh does the
// rest). So the last few contacts dropped as dead are kept here, and every
// `dormantProbeMs` one of them, picked at random, is dialled through the relay.
import type { Clock } from '../core/clock';
import { every } from '../core/clock';
import { idToHex, type NodeId } from '../core/node-id';
import type { SignalChannel } from '../net/transport';
import type { DhtOptions } from './dht-options';

/** Dropped contacts remembered (the oldest is forgotten first). */
export const DORMANT = 16;
/** A peer a higher layer asked us to reach is dialled through the relay at most this often. */
export const REACH_BACKOFF_MS = 10_000;
/** Peers whose last reach is remembered (for the backoff; the oldest is forgotten first). */
const REACHED = 64;

export interface DormantContactsDeps {
  clock: Clock;
  opts: Pick<DhtOptions, 'dormantProbeMs' | 'random'>;
  /** The relay; without one nothing is probed. */
  relay: SignalChannel | undefined;
  /** Known again: in the table, linked, or being dialled (then not probed). */
  known(hex: string): boolean;
  /** Linked, or being dialled: a reach is pointless. */
  linkedOrDialling(hex: string): boolean;
  /** Dials id through signals, with no backoff on failure (link-upkeep.ts `dial`). */
  dial(id: NodeId, hex: string, signals: SignalChannel): void;
}

export class DormantContacts {
  private ids: NodeId[] = [];
  private readonly reached = new Map<string, number>();
  private stopTimer: (() => void) | undefined;

  constructor(private readonly deps: DormantContactsDeps) {}

  get size(): number {
    return this.ids.length;
  }

  start(): void {
    this.stopTimer ??= every(this.deps.clock, this.deps.opts.dormantProbeMs, () => this.probe());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /** A contact dropped as dead (heartbeat timeout, failed probe or calls). */
  remember(id: NodeId): void {
    this.ids.push(id);
    if (this.ids.length > DORMANT) this.ids.shift();
  }

  /** Dials one remembered contact, at random, through the relay (it leaves the list). */
  probe(): void {
    const relay = this.deps.relay;
    if (!relay || this.ids.length === 0) return;
    const id = this.ids.splice(Math.floor(this.deps.opts.random() * this.ids.length), 1)[0]!;
    const hex = idToHex(id);
    if (this.deps.known(hex)) return;
    this.deps.dial(id, hex, relay);
  }

  /**
   * A higher layer must talk to `id` and gets no answer: after a partition heals, each side
   * may hold a whole working overlay with no path to the other (islands), where probing one
   * random dropped contact a minute is slow to help. So the relay dials it, once per
   * REACH_BACKOFF_MS per peer. (Hosts call this for the hosts of their region's certificate
   * that did not answer a claim.)
   */
  reach(id: NodeId): void {
    const relay = this.deps.relay;
    const hex = idToHex(id);
    if (!relay || this.deps.linkedOrDialling(hex)) return;
    const now = this.deps.clock.now();
    if (now - (this.reached.get(hex) ?? -Infinity) < REACH_BACKOFF_MS) return;
    this.reached.delete(hex);
    this.reached.set(hex, now);
    if (this.reached.size > REACHED) this.reached.delete(this.reached.keys().next().value!);
    this.deps.dial(id, hex, relay);
  }
}
