// Joining: dial the bootstrap peers through the relay, look up our own id (which fills
// our neighbourhood and tells it of us), then fill the far buckets as `joinRefresh` says,
// and check the link budget. If some of the join's queries failed (they may have been to
// our closest neighbours while nothing routed to us yet), our own id is looked up once
// more when our links are built. A join that reaches no one fails with JoinError.
import type { Clock, TimerHandle } from '../core/clock';
import type { NodeId } from '../core/node-id';
import type { Link } from '../net/link';
import type { Transport } from '../net/transport';
import type { BucketRefresh } from './bucket-refresh';
import { JoinError } from './dht';
import type { DhtBootstrap, DhtOptions } from './dht-options';
import type { Lookup } from './lookups';
import type { DhtStats } from './stats';

export interface JoinDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'joinRefresh' | 'maintainMs'>;
  stats: DhtStats;
  bootstrap: DhtBootstrap | undefined;
  transport: Pick<Transport, 'dial'>;
  /** Hands a dialled link to the link set; false if it was refused. */
  attach(link: Link, outbound: boolean): boolean;
  /** Contacts in our table, live links. */
  contactCount(): number;
  linkCount(): number;
  lookup: Lookup;
  refresh: Pick<BucketRefresh, 'refresh' | 'probeEmptyBuckets'>;
  /** A link budget pass (link-upkeep.ts `maintain`). */
  maintain(): void;
}

export class Join {
  /** The second self-lookup, when due. */
  private again: TimerHandle | undefined;

  constructor(private readonly deps: JoinDeps) {}

  /**
   * Joins through `peers` (by default the bootstrap's); rejects with JoinError if none of
   * them could be reached, or all left before the join finished. A running node may join
   * again through other peers (bootstrap/peer.ts: the doorways' peers when an invite's are gone).
   */
  async start(peers: readonly NodeId[] = this.deps.bootstrap?.peers ?? []): Promise<void> {
    const { deps } = this;
    const opts = deps.opts;
    const signals = deps.bootstrap?.signals;
    if (peers.length > 0) {
      if (!signals) throw new JoinError('no signal channel to dial the join\'s peers through');
      const dials = peers.map((id) => deps.transport.dial(id, signals).then((l) => deps.attach(l, true)));
      const settled = await Promise.allSettled(dials);
      const ok = settled.filter((r) => r.status === 'fulfilled' && r.value).length;
      deps.stats.dials += dials.length;
      if (ok === 0) {
        // The first dial's reason goes along: the start screen shows it as the detail.
        const why = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as Error | undefined;
        throw new JoinError(`no bootstrap peer could be reached${why?.message ? ` (${why.message})` : ''}`);
      }
    }
    let failures = 0;
    if (deps.contactCount() > 0) {
      failures = (await deps.lookup(deps.selfId)).failures;
      if (deps.linkCount() === 0) throw new JoinError('bootstrap links closed before the join finished');
      if (opts.joinRefresh === 'probe') await deps.refresh.probeEmptyBuckets();
      else if (opts.joinRefresh !== 'none') await deps.refresh.refresh(true, opts.joinRefresh === 'empty');
    }
    deps.maintain();
    this.stop();
    if (failures > 0) this.again = deps.clock.setTimeout(() => void deps.lookup(deps.selfId).catch(() => {}), opts.maintainMs * 2);
  }

  /** Cancels the second self-lookup, if one is due. */
  stop(): void {
    if (this.again !== undefined) this.deps.clock.clearTimeout(this.again);
    this.again = undefined;
  }
}
