// Routing-table upkeep driven by traffic: a node we hear from is alive (a full bucket pings
// its oldest contact before evicting it, unless it was heard from lately), a node another
// one names is learnt, and a contact failing `maxFails` calls in a row leaves. Whoever
// cares about a contact that enters (link budget, value hand-over) or leaves (dormant
// list) is told through the hooks; this part holds no timers.
import type { Clock } from '../core/clock';
import { idToHex, type NodeId } from '../core/node-id';
import type { DhtOptions } from './dht-options';
import type { AddResult, Contact, RoutingTable } from './routing-table';
import type { Call } from './rpc';

export interface ContactsDeps {
  clock: Clock;
  opts: Pick<DhtOptions, 'evictionPingFreshMs' | 'heartbeatTimeoutMs' | 'maxFails'>;
  table: RoutingTable;
  call: Call;
  /** A contact entered the table (added, or promoted from a replacement cache). */
  onAdded(c: Contact): void;
  /** A contact left the table for failing calls. */
  onDropped(id: NodeId): void;
  /** Whether an id may enter the table (id-gate.ts); without it, every id may. */
  admit?: (id: NodeId) => boolean;
}

export class Contacts {
  constructor(private readonly deps: ContactsDeps) {}

  /** Any message from id proves it alive. */
  heard(id: NodeId, hex: string): void {
    const { table, clock } = this.deps;
    if (this.deps.admit && !table.has(hex) && !this.deps.admit(id)) return;
    const res: AddResult = table.add(id, clock.now(), hex);
    if (res.status === 'added') this.deps.onAdded(res.contact);
    else if (res.status === 'full' && !res.pinging) {
      const oldest = res.oldest;
      // Heard from lately: alive as far as we can tell, no ping needed (the newcomer waits
      // in the replacement cache).
      if (clock.now() - oldest.lastSeen < this.deps.opts.evictionPingFreshMs) {
        table.pingResult(oldest.hex, true, oldest.lastSeen);
        return;
      }
      this.deps.call(oldest.id, oldest.hex, { t: 'PING' }).then(
        () => table.pingResult(oldest.hex, true, clock.now()),
        () => {
          const promoted = table.pingResult(oldest.hex, false, clock.now());
          if (promoted) this.deps.onAdded(promoted);
        },
      );
    }
  }

  /**
   * Adds a contact named by another node (not heard from ourselves): dated one heartbeat
   * timeout back, so it is first in line for a stale-contact probe unless it speaks up.
   */
  learn(id: NodeId): void {
    const { table, clock } = this.deps;
    if (table.has(idToHex(id)) || (this.deps.admit && !this.deps.admit(id))) return;
    const res = table.add(id, clock.now() - this.deps.opts.heartbeatTimeoutMs);
    if (res.status === 'added') this.deps.onAdded(res.contact);
  }

  /** A call to the contact failed (timeout, no route). */
  failed(id: NodeId, hex: string): void {
    const res = this.deps.table.fail(hex, this.deps.opts.maxFails);
    if (res.removed) this.deps.onDropped(id);
    if (res.promoted) this.deps.onAdded(res.promoted);
  }
}
