// The primary re-checks its region's host set: it hands the region over to a closer node
// (hosted-region.ts handOff), tops a short set up with linked nodes at once, and claims a new
// epoch over a set a lookup finds different (hosted-region.ts reconfigure).
import { idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { quorum } from '../region/epoch-cert';
import type { PrimaryLease } from './primary-lease';
import type { DutyShared } from './duty-region';

/** The primary re-checks its host set (handoff, re-replication) this often (primary-duty.ts). */
export const RECHECK_MS = 5000;
/** The re-check names a host only if it answers a ping within this (the claimant's is region-claimant.ts CLAIM_PING_MS). */
export const RECHECK_PING_MS = 500;
/**
 * A quiet backup (no ack for backupQuietMs) that acked one of our frames late within this
 * (primary-lease.ts `slow`) may be picked again by the set's fill when it answers a ping: a
 * tab on a saturated machine (8 tabs on 2 cores) goes that quiet for a moment often, and
 * replacing it each time cost an epoch, a gap without a primary, a new backup to sync and a
 * set that drifts from the key's nearest nodes (testing/starved-host-scenario.ts, 8 peers all
 * starved). One that answered on time, then nothing, is replaced as before.
 */
export const SLOW_BACKUP_MS = 5000;

/** Host set re-check: hand over to a closer node; bring a new backup up to date. */
export class HostSetCheck {
  rechecking = false;
  private shortTimer: unknown;

  constructor(
    private readonly duty: DutyShared,
    private readonly lease: PrimaryLease,
  ) {}

  /** A short set is topped up as a new epoch: after the duty's start has finished. */
  start(): void {
    this.shortTimer = this.duty.ctx.clock.setTimeout(() => {
      void this.fillFromLinks().then(() => this.recheckIfShort(250));
    }, 0);
  }

  stop(): void {
    this.duty.ctx.clock.clearTimeout(this.shortTimer);
  }

  /**
   * A host set smaller than r (a claim over the hosts still linked) holds fewer copies than
   * it should: look for the missing hosts soon, not at the next periodic re-check, since two
   * more losses in that window would lose confirmed edits.
   */
  private recheckIfShort(ms: number): void {
    if (this.duty.stopped || this.duty.region.hosts.length >= this.duty.ctx.opts.replicas || ms > RECHECK_MS) return;
    // Backing off (x2) to the periodic re-check: a world with fewer than r nodes stays short.
    this.shortTimer = this.duty.ctx.clock.setTimeout(() => void this.recheck().then(() => this.recheckIfShort(ms * 2)), ms);
  }

  /**
   * A short host set (a claim over the hosts still linked, or a host whose link closed) is
   * topped up at once with the linked nodes closest to the key: a link is proof of life, so
   * this needs no lookup, and a lookup under churn waits on dead contacts for seconds, a
   * window in which two more losses lose confirmed edits (the churn test saw it happen).
   * The lookup-based re-check that follows puts the true closest nodes in their place.
   */
  async fillFromLinks(): Promise<void> {
    if (this.duty.stopped || this.filling) return;
    this.filling = true;
    try {
      await this.fillFromLiveLinks();
    } finally {
      this.filling = false;
    }
  }

  private filling = false;

  private async fillFromLiveLinks(): Promise<void> {
    const self = this.duty.ctx.selfId;
    const live = this.duty.region.hosts.filter((h) => idEquals(h, self) || (!this.duty.ctx.linkClosed(idToHex(h)) && !this.lease.quiet(idToHex(h), this.duty.ctx.clock.now())));
    if (!live.some((h) => idEquals(h, self))) live.unshift(self);
    const missing = this.duty.ctx.opts.replicas - live.length;
    if (missing <= 0) return;
    // Not a node whose silence we just acted on: a killed tab's links stay open at our end for seconds.
    // Nor a linked node that does not answer now (answering.ts has why).
    // Nor the hosts being dropped: a quiet backup whose DHT still answers (its hosting
    // stopped) is the nearest linked node that answers a ping, so it was picked as its own
    // replacement and never left the set. Unless it is slow (it acked late within
    // SLOW_BACKUP_MS: primary-lease.ts `slow`): picked again when it answers the ping, the set
    // stays as it is.
    const now = this.duty.ctx.clock.now();
    const gone = this.duty.region.hosts.filter((h) => !this.lease.slow(idToHex(h), now, SLOW_BACKUP_MS));
    const linked = this.duty.ctx.linkedNear(this.duty.region.key, missing + 1, new Set([...gone.map(idToHex), ...live.map(idToHex), ...this.duty.region.suspects()])).filter((h) => !this.duty.region.quietHost(h));
    const answered = await this.duty.ctx.answering(linked, RECHECK_PING_MS);
    const extra = linked.filter((h) => answered.has(idToHex(h))).slice(0, missing);
    if (extra.length === 0 || this.duty.stopped) return;
    const hosts = sortByDistance([...live, ...extra], (x) => x, this.duty.region.key);
    // A linked node closer to the key than we are takes the region over at once.
    const to = this.handOffTo(hosts);
    if (to) return this.duty.region.handOff(to, this.hostedWithUs(to));
    const dropped = this.duty.region.hosts.filter((h) => !live.some((x) => idEquals(x, h)));
    const out = dropped.map((h) => `${idToHex(h).slice(0, 6)} ${this.duty.ctx.linkClosed(idToHex(h)) ? 'link closed' : 'quiet'}`);
    if (!this.setHosts(hosts, live.length, `filled from links: ${out.join(', ')}`)) return;
    // A quiet one whose DHT still answers: the next lookup would find it and name it again.
    for (const h of dropped) if (!this.duty.ctx.linkClosed(idToHex(h))) this.duty.region.noteQuiet(idToHex(h), true, !this.lease.hostedWithUs(idToHex(h)));
  }

  /**
   * A new host set is a new epoch (hosted-region.ts reconfigure): only while a majority of
   * the current set is alive to sign it (`alive` of them), else the claim could not win
   * and we keep the epoch we hold (our lease decides whether we may still confirm).
   * True when we claim over `hosts`.
   */
  private setHosts(hosts: NodeId[], alive: number, why: string): boolean {
    const old = new Set(this.duty.region.hosts.map(idToHex));
    if (hosts.length === old.size && hosts.every((h) => old.has(idToHex(h)))) return false;
    if (alive < quorum(this.duty.region.hosts.length)) return false;
    this.duty.region.reconfigure(hosts, why);
    return true;
  }

  /**
   * The node of `hosts` (nearest first) to hand the region to: the nearest, unless we are
   * nearer. A node handed the region lately that never claimed it (declined-handoffs.ts)
   * counts as farther than us: handing to it again would only leave the region without a
   * primary until our backups claim. So does a host of our own set that never answered us
   * as one (no grant of our claim, no ack of our epoch: primary-lease.ts `hostedWithUs`;
   * a joiner we synced that acked counts): a node whose DHT answers pings while it hosts
   * nothing (a tab whose hosting stalled, an attacker's node near the key) is taken into a
   * claim's set as a linked filler by a primary that never dropped it as quiet, and, handed
   * the region a second later, left it without a primary (sybil_1k seed 2: a region frozen
   * for good). A nearer node outside our set has had no frame of ours to answer: it is
   * handed the region, and if it does not claim it our backups claim past it as before.
   * Undefined: we keep it.
   */
  private handOffTo(hosts: readonly NodeId[]): NodeId | undefined {
    const self = this.duty.ctx.selfId;
    const unheard = (h: NodeId) => this.duty.region.hosts.some((x) => idEquals(x, h)) && !this.hostedWithUs(h);
    const first = hosts.find((h) => idEquals(h, self) || (!this.duty.region.declinedHandoff(h) && !unheard(h)));
    return first && !idEquals(first, self) ? first : undefined;
  }

  /** Whether `h` is a host of our set that answered us as one (granted our claim or acked a frame of our epoch). */
  private hostedWithUs(h: NodeId): boolean {
    return this.duty.region.hosts.some((x) => idEquals(x, h)) && this.lease.hostedWithUs(idToHex(h));
  }

  async recheck(): Promise<void> {
    if (this.rechecking || this.duty.stopped) return;
    this.rechecking = true;
    try {
      await this.fillFromLinks();
      if (this.duty.stopped) return;
      const found = await this.duty.ctx.hostSet(this.duty.region.key, true);
      // A lookup still finds a node that died silently: handing over to it, or naming it a
      // backup, would cost a failover or the set's majority.
      const answered = await this.duty.ctx.answering(found.filter((h) => !idEquals(h, this.duty.ctx.selfId)), RECHECK_PING_MS);
      if (this.duty.stopped) return;
      // A host of ours that the lookup missed but that follows us (it answered our frames
      // lately, its link open) keeps its place unless closer nodes were found: under load a
      // lookup's answers go missing (a crowd's primary drops frames over a link's rate), and
      // two lookups in a row named different third hosts, each a new epoch for every subscriber.
      const now = this.duty.ctx.clock.now();
      const following = this.duty.region.hosts.filter((h) => !idEquals(h, this.duty.ctx.selfId) && !this.duty.ctx.linkClosed(idToHex(h)) && !this.lease.quiet(idToHex(h), now));
      // Nor a node whose hosting went silent while its DHT still answers, until a frame of the
      // region comes from it: one we dropped as quiet (quiet-hosts.ts), or a primary our
      // claim took for dead (`suspects`, which forget it after a while unheard: noted quiet
      // here, it stays out as long as lookups find it and it says nothing). Named a backup it
      // costs an epoch now and one more when the fill drops it; handed the region, a gap.
      const suspects = new Set(this.duty.region.suspects());
      const silent = (h: NodeId) => suspects.has(idToHex(h)) || this.duty.region.quietHost(h);
      for (const h of found) if (answered.has(idToHex(h)) && silent(h)) this.duty.region.noteQuiet(idToHex(h));
      const seen = found.filter((h) => idEquals(h, this.duty.ctx.selfId) || (answered.has(idToHex(h)) && !silent(h)));
      // Of nodes that left the region unanswered before (unclaiming-hosts.ts: their strike's
      // time is over, they answer pings), no more than a minority of the set: a set of three
      // naming two of them certifies only if one answers now, else our claim fails after
      // CLAIM_TIMEOUT_MS and the region waits that long (sybil_1k seed 1, region 1,1: 2.4 s).
      // One at a time, each is named beside hosts that answer and shows whether it hosts.
      const r = this.duty.ctx.opts.replicas;
      let room = r - quorum(r);
      const near = sortByDistance([...seen, ...following.filter((h) => !seen.some((x) => idEquals(x, h)))], (x) => x, this.duty.region.key);
      const hosts = near.filter((h) => idEquals(h, this.duty.ctx.selfId) || !this.duty.region.struck(h) || room-- > 0).slice(0, r);
      if (hosts.length === 0) return;
      // A closer node joined: it claims the next epoch; we and our backups grant it.
      const to = this.handOffTo(hosts);
      if (to) return this.duty.region.handOff(to, this.hostedWithUs(to));
      const alive = this.duty.region.hosts.filter((h) => idEquals(h, this.duty.ctx.selfId) || hosts.some((x) => idEquals(x, h)) || !this.duty.ctx.linkClosed(idToHex(h))).length;
      const unanswered = found.filter((h) => !hosts.some((x) => idEquals(x, h))).map((h) => idToHex(h).slice(0, 6));
      this.setHosts(hosts, alive, `lookup${unanswered.length ? `: ${unanswered.join(', ')} did not answer` : ''}`);
    } catch {
      // the lookup failed; the next period tries again
    } finally {
      this.rechecking = false;
    }
  }
}
