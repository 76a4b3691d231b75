// Which links we dial and when: every `maintainMs` (and soon after a link closes or a
// contact arrives in a bucket we hold no link in) the budget (link-budget.ts) says which
// contacts to dial and which links to retire; a peer whose dial failed, or that closed a
// link on us, is not redialled for `dialBackoffMs`. Also takes inbound links from the
// transport, and pins the links `connect` opens. The links themselves live in link-set.ts.
import type { Clock } from '../core/clock';
import { every } from '../core/clock';
import { bucketIndex, idToHex, type NodeId } from '../core/node-id';
import { BUDGET_CLOSE, NO_ID_WORK_CLOSE, STOPPED } from '../net/close-reasons';
import type { Link } from '../net/link';
import type { SignalChannel, Transport } from '../net/transport';
import type { DhtOptions } from './dht-options';
import { planLinks } from './link-budget';
import type { LinkSet, PeerLink } from './link-set';
import type { Contact, RoutingTable } from './routing-table';
import type { DhtStats } from './stats';

/** Delay of a maintenance pass asked for by an event (coalesces bursts of them). */
const SOON_MS = 100;
/**
 * After a lone peer's retryAll, for this long a failed dial (or a link closed on us) backs
 * the peer off only RECOVER_BACKOFF_MS and asks for a pass soon: with its links all gone, the
 * first redial that loses a race (libdatachannel: 'a remote candidate without ICE transport')
 * would otherwise hold that peer back the full dialBackoffMs once another link made it no
 * longer alone (headless-links.test.ts, about 1 recovery in 6 under load).
 */
const RECOVER_MS = 20_000;
const RECOVER_BACKOFF_MS = 1_000;
/** Expired backoffs are swept once more than this many are kept. */
const BACKOFF_SWEEP = 256;

export interface LinkUpkeepDeps {
  selfId: NodeId;
  clock: Clock;
  opts: Pick<DhtOptions, 'maxLinks' | 'softLinks' | 'linksPerBucket' | 'maxPinnedLinks' | 'maintainMs' | 'dialBackoffMs' | 'random'>;
  stats: DhtStats;
  table: RoutingTable;
  links: LinkSet;
  transport: Pick<Transport, 'dial' | 'events'>;
  /** Where a budget dial's offer goes (overlay-signaling.ts `forDial`). */
  dialSignals(): SignalChannel;
  /** Where `connect`'s offer goes: the overlay. */
  overlay: SignalChannel;
  /** Whether a peer's id may have a link (id-gate.ts); without it, every id may. */
  admit?: (id: NodeId) => boolean;
}

export class LinkUpkeep {
  private readonly pendingDials = new Set<string>();
  /** Dials `connect` made for a pin: not counted in the budget (link-budget.ts). */
  private readonly pinDials = new Set<string>();
  private readonly backoff = new Map<string, number>();
  private stops: (() => void)[] = [];
  private running = false;
  private maintainScheduled = false;
  /** Until when failures back off briefly (retryAll); 0: never. */
  private recoverUntil = 0;

  constructor(private readonly deps: LinkUpkeepDeps) {}

  /** Takes inbound links, and checks the budget every maintainMs. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stops.push(this.deps.transport.events.on('link', (link) => this.attach(link, false)));
    this.stops.push(every(this.deps.clock, this.deps.opts.maintainMs, () => this.maintain()));
  }

  stop(): void {
    this.running = false;
    for (const s of this.stops) s();
    this.stops = [];
  }

  /** Hands an opened link to the link set; a link that opens after stop(), or whose peer's id shows no work, is closed. */
  attach(link: Link, outbound: boolean, pinned = false): boolean {
    if (!this.running) {
      link.close(STOPPED);
      return false;
    }
    if (this.deps.admit && !this.deps.admit(link.remoteId)) {
      link.close(NO_ID_WORK_CLOSE);
      return false;
    }
    return this.deps.links.attach(link, outbound, pinned);
  }

  /** Being dialled, or backing off after a failure. */
  busy = (hex: string): boolean => this.isDialing(hex) || (this.backoff.get(hex) ?? 0) > this.deps.clock.now();

  isDialing(hex: string): boolean {
    return this.pendingDials.has(hex) || this.pinDials.has(hex);
  }

  /** Retires links over budget and dials contacts of uncovered buckets. */
  maintain(): void {
    if (!this.running) return;
    const { deps } = this;
    const plan = planLinks(deps.table, deps.links.map, deps.opts, this.busy, deps.opts.random, this.pendingDials.size);
    for (const hex of plan.close) deps.links.retire(hex, BUDGET_CLOSE);
    for (const c of plan.dial) this.dial(c.id, c.hex, deps.dialSignals());
    const now = deps.clock.now();
    if (this.backoff.size > BACKOFF_SWEEP) for (const [h, t] of this.backoff) if (t <= now) this.backoff.delete(h);
  }

  /** A maintenance pass soon (once, however many ask before it runs). */
  scheduleMaintain(): void {
    if (this.maintainScheduled || !this.running) return;
    this.maintainScheduled = true;
    this.deps.clock.setTimeout(() => {
      this.maintainScheduled = false;
      this.maintain();
    }, SOON_MS);
  }

  /** Dials id through signals; a failure backs the peer off unless `backoff` is false. */
  dial(id: NodeId, hex: string, signals: SignalChannel, backoff = true): void {
    this.pendingDials.add(hex);
    this.deps.stats.dials++;
    this.deps.transport.dial(id, signals).then(
      (link) => {
        this.pendingDials.delete(hex);
        this.attach(link, true);
      },
      () => {
        this.pendingDials.delete(hex);
        this.deps.stats.dialFailures++;
        if (backoff) this.backOff(hex);
      },
    );
  }

  /**
   * Pins `id` for `owner` and opens a direct link to it unless one is held or being dialled;
   * pinned links survive budget cuts. A pin refused (link-pins.ts: too many pinned) dials
   * nothing: the link, if any, stays the budget's.
   */
  async connect(id: NodeId, owner: string): Promise<void> {
    const hex = idToHex(id);
    if (!this.deps.links.pin(hex, owner) || this.deps.links.get(hex) || this.isDialing(hex)) return;
    this.pinDials.add(hex);
    this.deps.stats.dials++;
    try {
      this.attach(await this.deps.transport.dial(id, this.deps.overlay), true);
    } finally {
      this.pinDials.delete(hex);
    }
  }

  unpin(id: NodeId, owner: string): void {
    this.deps.links.unpin(idToHex(id), owner);
  }

  /** A link closed: one the peer closed (or that failed) backs the peer off. */
  closed(pl: PeerLink, byUs: boolean): void {
    if (!byUs) this.backOff(pl.hex);
  }

  /** A peer not redialled for dialBackoffMs; briefly, with a pass soon, while recovering. */
  private backOff(hex: string): void {
    const now = this.deps.clock.now();
    if (now < this.recoverUntil) {
      this.backoff.set(hex, now + RECOVER_BACKOFF_MS);
      this.deps.clock.setTimeout(() => this.scheduleMaintain(), RECOVER_BACKOFF_MS);
    } else this.backoff.set(hex, now + this.deps.opts.dialBackoffMs);
  }

  /**
   * Every backoff forgotten and a budget check soon: for a peer left with no link, whose
   * peers all dropped it at once (its network changed, every connection failed together).
   * It has nobody to spare dials for, and the peers it backed off are the ones to dial.
   */
  retryAll(): void {
    this.backoff.clear();
    this.recoverUntil = this.deps.clock.now() + RECOVER_MS;
    this.scheduleMaintain();
  }

  /** A new contact in a bucket we hold no link in gets a maintenance pass soon. */
  contactAdded(c: Contact): void {
    const b = bucketIndex(this.deps.selfId, c.id);
    for (const pl of this.deps.links.map.values()) if (pl.bucket === b && !pl.readOnly) return;
    this.scheduleMaintain();
  }
}
