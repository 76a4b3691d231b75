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

export interface DormantContactsDeps {
  clock: Clock;
  opts: Pick<DhtOptions, 'dormantProbeMs' | 'random'>;
  /** The relay; without one nothing is probed. */
  relay: SignalChannel | undefined;
  /** Known again: in the table, linked, or being dialled (then not probed). */
  known(hex: string): boolean;
  /** Dials id through signals, with no backoff on failure (link-upkeep.ts `dial`). */
  dial(id: NodeId, hex: string, signals: SignalChannel): void;
}

export class DormantContacts {
  private ids: NodeId[] = [];
  private stopTimer: (() => void) | undefined;

  constructor(private readonly d: DormantContactsDeps) {}

  get size(): number {
    return this.ids.length;
  }

  start(): void {
    this.stopTimer ??= every(this.d.clock, this.d.opts.dormantProbeMs, () => this.probe());
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
    const relay = this.d.relay;
    if (!relay || this.ids.length === 0) return;
    const id = this.ids.splice(Math.floor(this.d.opts.random() * this.ids.length), 1)[0]!;
    const hex = idToHex(id);
    if (this.d.known(hex)) return;
    this.d.dial(id, hex, relay);
  }
}
