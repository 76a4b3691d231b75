// Failure detection by heartbeats and timeouts only (docs/DESIGN.md: no goodbye is trusted or
// required), checked every `failureCheckMs`:
// - a live link idle for `heartbeatMs` is PINGed by its lower-id end (the PONG refreshes
//   both ends); one silent for `heartbeatTimeoutMs` is closed and its peer dropped;
// - a contact without a link, silent for `staleAfterMs`, gets a routed PING, stalest first
//   and at most `staleProbesPerHeartbeat` per heartbeatMs, and leaves the table if it does
//   not answer. So a node that vanishes is gone from every table within the heartbeat
//   timeout of its last frame, linked or not (while the stale contacts fit in the budget).
// Dropped peers go to the dormant list (dormant-contacts.ts).
import type { Clock } from '../core/clock';
import { every } from '../core/clock';
import type { NodeId } from '../core/node-id';
import { TokenBucket } from '../core/token-bucket';
import { HEARTBEAT_TIMEOUT, PROBE_UNANSWERED } from '../net/close-reasons';
import type { DhtOptions } from './dht-options';
import type { PeerLink } from './link-set';
import type { Contact, RoutingTable } from './routing-table';
import type { Call } from './rpc';
import type { DhtStats } from './stats';

/** What liveness reads and writes of a live link. */
export type WatchedLink = Pick<PeerLink, 'id' | 'hex' | 'lastRx' | 'pinging' | 'rttMs'>;

export interface LivenessDeps {
  selfHex: string;
  clock: Clock;
  opts: Pick<DhtOptions, 'heartbeatMs' | 'heartbeatTimeoutMs' | 'failureCheckMs' | 'rpcTimeoutMs' | 'staleProbesPerHeartbeat'>;
  stats: DhtStats;
  table: RoutingTable;
  links: { readonly map: ReadonlyMap<string, WatchedLink>; close(hex: string, reason: string): void };
  call: Call;
  /** A peer dropped as dead. */
  dropped(id: NodeId): void;
}

export class Liveness {
  private readonly probing = new Set<string>();
  /** Stale-contact probes: staleProbesPerHeartbeat per heartbeatMs. */
  private readonly probeBudget: TokenBucket;
  private stopTimer: (() => void) | undefined;

  constructor(private readonly deps: LivenessDeps) {
    const opts = deps.opts;
    this.probeBudget = new TokenBucket((opts.staleProbesPerHeartbeat * 1000) / opts.heartbeatMs, opts.staleProbesPerHeartbeat, deps.clock.now());
  }

  /** Period of the failure checks (links and contacts): at most a heartbeat. */
  get checkMs(): number {
    return Math.min(this.deps.opts.failureCheckMs, this.deps.opts.heartbeatMs);
  }

  /**
   * Silence after which a contact without a link is probed: its answer (or its timeout)
   * comes by the time it has been silent for heartbeatTimeoutMs.
   */
  get staleAfterMs(): number {
    const opts = this.deps.opts;
    return Math.max(opts.heartbeatMs, opts.heartbeatTimeoutMs - opts.rpcTimeoutMs - this.checkMs);
  }

  get running(): boolean {
    return this.stopTimer !== undefined;
  }

  start(): void {
    this.stopTimer ??= every(this.deps.clock, this.checkMs, () => this.check());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /** One failure check: links, then unlinked contacts. */
  check(): void {
    const { deps } = this;
    const now = deps.clock.now();
    // A link that would pass the timeout before the next check is closed now: a dead peer
    // is gone within heartbeatTimeoutMs of its last frame, not up to a check later.
    const expired = deps.opts.heartbeatTimeoutMs - this.checkMs;
    for (const pl of [...deps.links.map.values()]) {
      const idle = now - pl.lastRx;
      if (idle > expired) {
        deps.stats.heartbeatTimeouts++;
        deps.links.close(pl.hex, HEARTBEAT_TIMEOUT);
        deps.table.remove(pl.hex);
        deps.dropped(pl.id);
      } else if (idle >= deps.opts.heartbeatMs && !pl.pinging && deps.selfHex < pl.hex) {
        // Only the lower id pings an idle link; the PONG refreshes both ends.
        pl.pinging = true;
        deps.call(pl.id, pl.hex, { t: 'PING' }).then(
          () => ((pl.rttMs = deps.clock.now() - now), (pl.pinging = false)),
          () => (pl.pinging = false),
        );
      }
    }
    this.probeStale(now);
  }

  /**
   * Someone's frames through this link seem lost (an answer that was due did not come): PING
   * it now, and drop it if it does not answer within the RPC timeout. A node that died
   * silently keeps its links open until the heartbeat timeout, 15 s, and every route through
   * it loses what it carries until then.
   */
  probeNow(pl: WatchedLink, answered?: () => void): void {
    const { deps } = this;
    if (pl.pinging || deps.links.map.get(pl.hex) !== pl) return;
    const at = deps.clock.now();
    pl.pinging = true;
    deps.stats.suspectProbes++;
    deps.call(pl.id, pl.hex, { t: 'PING' }).then(
      () => {
        pl.rttMs = deps.clock.now() - at;
        pl.pinging = false;
        answered?.();
      },
      () => {
        pl.pinging = false;
        if (deps.links.map.get(pl.hex) !== pl) return;
        deps.stats.suspectsDropped++;
        deps.links.close(pl.hex, PROBE_UNANSWERED);
        deps.table.remove(pl.hex);
        deps.dropped(pl.id);
      },
    );
  }

  private probeStale(now: number): void {
    const { deps } = this;
    if (deps.opts.staleProbesPerHeartbeat <= 0) return;
    const after = this.staleAfterMs;
    const stale: Contact[] = [];
    for (const b of deps.table.nonEmptyBuckets()) {
      for (const c of deps.table.bucket(b)) {
        if (now - c.lastSeen >= after && !deps.links.map.has(c.hex) && !this.probing.has(c.hex)) stale.push(c);
      }
    }
    let budget = 0;
    while (budget < stale.length && this.probeBudget.take(1, now)) budget++;
    for (const c of stalest(stale, budget)) {
      this.probing.add(c.hex);
      deps.call(c.id, c.hex, { t: 'PING' }).then(
        () => this.probing.delete(c.hex),
        () => {
          this.probing.delete(c.hex);
          // Silent past the heartbeat timeout and no answer now: gone (the call counted a
          // failure). Remembered as dormant whether or not a replacement moved in: a node cut
          // off from everyone must keep someone to try when the network heals.
          if (!this.running || !deps.table.has(c.hex)) return;
          deps.table.remove(c.hex);
          deps.dropped(c.id);
        },
      );
    }
  }
}

/**
 * The `k` contacts of `list` silent longest, longest first, ties in list order: what a stable
 * sort by lastSeen puts first. The budget takes a probe or two per check (staleProbesPerHeartbeat)
 * of a list that holds most of the table's unlinked contacts, every second on every node, so
 * they are picked out rather than the whole list sorted.
 */
export function stalest(list: readonly Contact[], k: number): Contact[] {
  if (k > 8) return [...list].sort((a, b) => a.lastSeen - b.lastSeen).slice(0, k);
  const picked: Contact[] = [];
  const taken = new Set<number>();
  for (let n = 0; n < k && n < list.length; n++) {
    let best = -1;
    for (let i = 0; i < list.length; i++) if (!taken.has(i) && (best < 0 || list[i]!.lastSeen < list[best]!.lastSeen)) best = i;
    taken.add(best);
    picked.push(list[best]!);
  }
  return picked;
}
