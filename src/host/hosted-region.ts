// One region as seen by one host: its role (idle, claiming, primary, backup), its state,
// and the epoch rules. Roles change only through these rules:
// - a node claims epoch e = (highest it knows) + 1 and becomes primary only with grants
//   from a majority of its view of the host set, itself included;
// - a host grants at most one claimant per epoch (the first), never a stale epoch, and
//   only to a claimant inside its own view of the host set; the grant carries its state,
//   which the claimant merges before it accepts any edit;
// - a frame of an epoch below what a host promised changes nothing.
// The primary's work (tick, ordering, replication, deltas) lives in primary-duty.ts.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { DhtNode } from '../dht/dht-node';
import type { Clock } from '../core/clock';
import type { Ticker } from '../core/ticker';
import type { HostStore } from '../store/host-store';
import type { HostMessageOf, RegionMessage } from './host-messages';
import type { CommitLatency, HostOptions, HostStats } from './host-options';
import type { HostWire } from './host-wire';
import { PrimaryDuty } from './primary-duty';
import { regionName, type RegionCoord } from './region-key';
import { getEdits } from './region-records';
import { RequestLog, requestTag } from './request-log';
import { compareStamp, decodeEntries, encodeEntries, RegionState, type Entry, type Stamp } from './region-state';

export type Role = 'idle' | 'claiming' | 'primary' | 'backup';

export interface RegionContext {
  readonly selfId: NodeId;
  readonly selfHex: string;
  readonly opts: HostOptions;
  readonly clock: Clock;
  readonly ticker: Ticker;
  readonly wire: HostWire;
  readonly store: HostStore | null;
  readonly dht: Pick<DhtNode, 'put' | 'get' | 'connect' | 'unpin'>;
  readonly stats: HostStats;
  readonly latency: CommitLatency;
  /** The r closest live nodes to key (self included when it is among them), closest first. */
  hostSet(key: NodeId, fresh: boolean): Promise<NodeId[]>;
  /** Whether our link to this node closed (and has not reopened since). */
  linkClosed(hex: string): boolean;
  /** The n nodes closest to key in our routing table, self included: no lookup, possibly with dead contacts. */
  tableNear(key: NodeId, n: number): NodeId[];
  /** The n nodes closest to key among those we hold a live link to (so known alive), minus `exclude` (hex). */
  linkedNear(key: NodeId, n: number, exclude: ReadonlySet<string>): NodeId[];
  /** Test hook: called whenever a primary accepts (orders) an edit. */
  onAccept?: (region: string, epoch: number, primaryHex: string) => void;
  /** Diagnostics: role changes, claims, grants and refusals. */
  trace?: (region: string, what: string) => void;
}

interface ClaimRound {
  e: number;
  hosts: NodeId[];
  granted: Set<string>;
  answered: Set<string>;
  asked: number;
  quorumAt: number | null;
  highestRefusal: number;
  /** Who was asked (hex): only their answers count. */
  targets: Set<string>;
  wake: () => void;
}

/** Most a refusal may raise our next claim's epoch above the current claim. */
const MAX_EPOCH_JUMP = 64;
/** A primary gives up its epoch as contested at most this often (a lying host cannot stall the region). */
const CONTEST_MIN_INTERVAL_MS = 30_000;

export class HostedRegion {
  readonly name: string;
  role: Role = 'idle';
  state = new RegionState();
  /** Highest epoch granted or claimed; no grant at or below it ever again. */
  promised = 0;
  /** Who `promised` went to (hex; ours while we claim). */
  promisedTo = '';
  /** Hosts whose grants made us primary of `epoch` (hex): they cannot say it was won twice. */
  private grantedBy = new Set<string>();
  private lastContested = -Infinity;
  /** Highest epoch a refusal told us was promised elsewhere: our next claim goes above it. */
  private refusedAt = 0;
  /** Our own claims wait while someone else's claim is being considered. */
  private deferUntil = -Infinity;
  /** Epoch of the primary we follow (or are). */
  epoch = 0;
  primary: NodeId | undefined;
  primaryHex = '';
  hosts: NodeId[] = [];
  /** When we last heard the primary (backups). */
  lastHeard = -Infinity;
  /** Our primary's last beat said the region is idle (it beats slowly: see watch). */
  private primaryIdle = false;
  /** Backups: highest seq of `epoch` applied contiguously; undefined until a SYNC. */
  applied: number | undefined;
  /** The closer node the primary asked to take over (it will grant that node). */
  handoffTo = '';
  duty: PrimaryDuty | undefined;
  /** Edit requests ordered in this region (by us as primary, or replicated to us). */
  readonly requests: RequestLog;
  /** Backups: the primary's subscribers, told of a takeover. */
  knownSubs: NodeId[] = [];
  /** Subscribers waiting for our claim to finish. */
  private readonly waiting = new Map<string, { id: NodeId; since: Stamp | undefined }>();
  private round: ClaimRound | undefined;
  /** While claiming: the lowest epoch we will claim (a handoff's e); a primary below it does not end the claim. */
  private claimFloor = 0;
  private saving: Promise<void> = Promise.resolve();
  private nextSave: Promise<void> | undefined;
  private lastSyncReq = -Infinity;
  private retry: unknown;
  private stopped = false;

  constructor(
    readonly ctx: RegionContext,
    readonly coord: RegionCoord,
    readonly key: NodeId,
  ) {
    this.name = regionName(coord);
    this.requests = new RequestLog(ctx.opts.dedupeMs);
  }

  /** Whether our own claims are held back (someone else's claim is being considered). */
  get deferred(): boolean {
    return this.ctx.clock.now() < this.deferUntil;
  }

  /** Restores what the host store kept (a reloaded tab). */
  restore(entries: Entry[], promised: number, promisedTo: string): void {
    this.state.merge(entries);
    if (promised > this.promised) this.promisedTo = promisedTo;
    this.promised = Math.max(this.promised, promised);
    this.epoch = Math.max(this.epoch, this.state.version.e);
  }

  stop(): void {
    this.stopped = true;
    this.duty?.stop();
    this.duty = undefined;
    this.ctx.clock.clearTimeout(this.retry);
    this.round?.wake();
  }

  private trace(what: string): void {
    this.ctx.trace?.(this.name, `${this.ctx.selfHex.slice(0, 6)} ${what}`);
  }

  private send(to: NodeId, msg: RegionMessage): void {
    this.ctx.wire.send(to, msg);
  }

  private get r() {
    return { rx: this.coord.rx, rz: this.coord.rz };
  }

  /** Every entry this host holds (for grants and the store). */
  allEntries(): Entry[] {
    return this.duty ? this.duty.allEntries() : this.state.all();
  }

  /** Writes the region to the host store; resolves once durable (coalescing writes). */
  persist(): Promise<void> {
    const store = this.ctx.store;
    if (!store) return Promise.resolve();
    if (!this.nextSave) {
      const p = this.saving.then(() => {
        this.nextSave = undefined;
        return store.save({ rx: this.coord.rx, rz: this.coord.rz, entries: encodeEntries(this.allEntries()), promised: this.promised, promisedTo: this.promisedTo });
      });
      this.nextSave = p;
      this.saving = p.catch(() => {
        this.ctx.stats.storeFailures++;
      });
    }
    return this.nextSave;
  }

  /** Is `id` inside our view of the host set (or the current epoch's)? Fresh lookup if neither says so. */
  private async inHostSet(id: NodeId): Promise<boolean> {
    // The current epoch's hosts are members too: they answer at once, where a lookup in a
    // churning network may wait on dead contacts for seconds.
    if (this.hosts.some((h) => idEquals(h, id))) return true;
    // Among the closest nodes our own table knows (twice r: it may still list dead ones
    // closer): a node brought in as a new backup must follow its primary at once, not
    // after a lookup, or the edits it should hold wait while the others die (churn seed 9).
    if (this.ctx.tableNear(this.key, 2 * this.ctx.opts.replicas).some((h) => idEquals(h, id))) return true;
    if ((await this.ctx.hostSet(this.key, false)).some((h) => idEquals(h, id))) return true;
    return (await this.ctx.hostSet(this.key, true)).some((h) => idEquals(h, id));
  }

  private primaryAlive(): boolean {
    return this.role === 'backup' && this.ctx.clock.now() - this.lastHeard < this.ctx.opts.failoverMs;
  }

  // ---- frames ---------------------------------------------------------------------

  onFrame(from: NodeId, fromHex: string, m: RegionMessage): void {
    if (this.stopped) return;
    switch (m.t) {
      case 'SUBSCRIBE':
        return this.onSubscribe(from, fromHex, m);
      case 'UNSUBSCRIBE':
        this.duty?.unsubscribe(fromHex);
        return;
      case 'EDIT':
        if (this.duty) this.duty.queueEdit(from, fromHex, m);
        else {
          this.send(from, { t: 'REJECT', ...this.r, r: m.r, reason: this.role === 'claiming' ? 'busy' : 'not-primary' });
          this.redirect(from);
        }
        return;
      case 'MOVE':
        if (this.duty) this.duty.move(from, fromHex, m);
        return;
      case 'CLAIM':
        void this.onClaim(from, fromHex, m);
        return;
      case 'GRANT':
        return this.onGrant(fromHex, m);
      case 'REPLICATE':
      case 'SYNC':
        void this.onReplicate(from, fromHex, m);
        return;
      case 'HEARTBEAT':
        void this.onHeartbeat(from, fromHex, m);
        return;
      case 'ACK':
        if (this.duty && m.e === this.epoch) this.duty.onAck(fromHex, m.to);
        else this.ctx.stats.staleFrames++;
        return;
      case 'SYNC_REQ':
        if (this.duty && m.e === this.epoch) this.duty.syncBackup(from, fromHex);
        else this.ctx.stats.staleFrames++;
        return;
      case 'HANDOFF':
        void this.onHandoff(from, m.e);
        return;
      case 'NOT_PRIMARY':
        return this.onNotPrimary(from, fromHex, m);
      case 'OFFER':
        return this.onOffer(from, m);
      default:
        // Client-side frames (SNAPSHOT, DELTA, CONFIRM, REJECT, PLAYERS) are not ours.
        return;
    }
  }

  /** Stored entries from another host: the primary adopts what it lacks (or holds older). */
  private onOffer(from: NodeId, m: HostMessageOf<'OFFER'>): void {
    if (!this.duty) return void this.ctx.stats.staleFrames++;
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    this.duty.offer(entries, this.hosts.some((h) => idEquals(h, from)));
  }

  /** Sends the primary every entry we hold that `theirs` lacks or holds older (all when theirs is undefined). */
  offerTo(primary: NodeId, theirs?: Entry[]): void {
    if (this.duty || idEquals(primary, this.ctx.selfId)) return;
    const known = new Map<number, Entry>();
    for (const e of theirs ?? []) known.set(e.key, e);
    const mine = this.state.all().filter((e) => {
      const t = known.get(e.key);
      return !t || compareStamp(e, t) > 0;
    });
    if (mine.length === 0) return;
    this.ctx.stats.offers++;
    this.trace(`offer ${mine.length} entries to ${idToHex(primary).slice(0, 6)}`);
    this.send(primary, { t: 'OFFER', ...this.r, entries: encodeEntries(mine) });
  }

  private redirect(to: NodeId): void {
    const primary = this.role === 'backup' || this.role === 'idle' ? this.primary : undefined;
    this.send(to, { t: 'NOT_PRIMARY', ...this.r, e: this.epoch, ...(primary ? { primary } : {}) });
  }

  private onSubscribe(from: NodeId, fromHex: string, m: HostMessageOf<'SUBSCRIBE'>): void {
    if (this.duty) return this.duty.subscribe(from, fromHex, m.since);
    if (this.role === 'claiming') {
      this.waiting.set(fromHex, { id: from, since: m.since });
      return;
    }
    if (this.primaryAlive() || !m.host) return this.redirect(from);
    this.waiting.set(fromHex, { id: from, since: m.since });
    void this.claim(0, this.role === 'backup');
  }

  private onNotPrimary(from: NodeId, fromHex: string, m: HostMessageOf<'NOT_PRIMARY'>): void {
    // A host of our set promised our very epoch to another node: two claims won the same
    // epoch over different views (a node alone after a whole-world restart claims the epoch
    // the others had used before it came back). Our epoch is not ours alone: claim a new
    // one over the host set, whose grants merge every state, that node's included.
    if (this.duty && m.refuse && m.e === this.epoch && this.hosts.some((h) => idEquals(h, from))) {
      // Not from a host that granted us e (it lies, or lost its memory), and not again soon.
      const now = this.ctx.clock.now();
      if (this.grantedBy.has(fromHex) || now - this.lastContested < CONTEST_MIN_INTERVAL_MS) return void this.ctx.stats.staleFrames++;
      this.lastContested = now;
      return this.contested(m.e, m.primary);
    }
    // A backup that promised a later epoch refuses our replication. A primary steps down
    // once too few backups remain to confirm anything: someone else is taking over.
    if (!this.duty || m.e <= this.epoch || !this.hosts.some((h) => idEquals(h, from))) {
      this.ctx.stats.staleFrames++;
      return;
    }
    if (this.duty.refusedBy(fromHex)) this.stepDown(m.primary, m.e);
  }

  /** Says we will not follow `to` as primary: our promise is `promised`, to whom we name if we follow them. */
  private refuseEpoch(to: NodeId): void {
    const primary = this.primary && this.promisedTo === this.primaryHex ? { primary: this.primary } : {};
    this.send(to, { t: 'NOT_PRIMARY', ...this.r, e: this.promised, refuse: true, ...primary });
  }

  private contested(e: number, other: NodeId | undefined): void {
    this.ctx.stats.contested++;
    this.trace(`epoch e${e} contested: claiming again`);
    this.stepDown(undefined, e);
    this.refusedAt = Math.max(this.refusedAt, e);
    // The other primary of e gets what we hold (edits we confirmed in e among them) at
    // once, whichever of us wins the next epoch.
    if (other) this.offerTo(other);
    void this.claim(e + 1);
  }

  private stepDown(next: NodeId | undefined, e: number): void {
    this.ctx.stats.stepDowns++;
    this.trace(`step down e${e}`);
    this.duty?.stepDown(next, e);
    this.duty = undefined;
    this.role = 'backup';
    this.applied = undefined;
    this.lastHeard = this.ctx.clock.now();
  }

  // ---- claims (we want to be primary) ----------------------------------------------

  /**
   * GENERATE: become primary of the next epoch if a majority of the host set agrees.
   * `primarySilent`: we take over because the primary we follow went quiet (it counts as
   * gone, like a closed link, when choosing the host set to claim over).
   */
  async claim(minEpoch = 0, primarySilent = false): Promise<boolean> {
    if (this.stopped || this.role === 'claiming' || this.role === 'primary') return false;
    if (this.deferred) {
      this.scheduleRetry();
      return false;
    }
    const before = this.role;
    this.role = 'claiming';
    this.claimFloor = minEpoch;
    this.ctx.stats.claims++;
    const ok = await this.runClaim(minEpoch, primarySilent).catch(() => false);
    if (!ok) {
      this.ctx.stats.claimsFailed++;
      if (this.role === 'claiming') this.role = before;
      this.scheduleRetry();
    }
    return ok;
  }

  private async runClaim(minEpoch: number, primarySilent: boolean): Promise<boolean> {
    const o = this.ctx.opts;
    const hosts = await this.claimHosts(primarySilent ? this.primaryHex : '');
    if (this.stopped || this.role !== 'claiming') return false;
    if (!hosts.some((h) => idEquals(h, this.ctx.selfId))) {
      // Not ours to host: point the waiting subscribers at who should.
      this.role = 'idle';
      for (const w of this.waiting.values()) this.send(w.id, { t: 'NOT_PRIMARY', ...this.r, e: this.epoch, ...(hosts[0] ? { primary: hosts[0] } : {}) });
      this.waiting.clear();
      return false;
    }
    // Above every epoch we know of, our state's included: new edits must not be shadowed.
    const e = Math.max(this.promised, this.epoch, this.state.version.e, this.refusedAt, minEpoch - 1) + 1;
    const before = { promised: this.promised, promisedTo: this.promisedTo };
    this.promised = e;
    this.promisedTo = this.ctx.selfHex;
    await this.persist().catch(() => {});
    if (this.promised !== e || this.role !== 'claiming') return false;
    // Previous hosts are asked too: their states are merged, though only the current
    // host set's grants count for the quorum.
    const targets = new Map<string, NodeId>();
    for (const h of [...hosts, ...this.hosts]) if (!idEquals(h, this.ctx.selfId)) targets.set(idToHex(h), h);
    const round: ClaimRound = { e, hosts, granted: new Set([this.ctx.selfHex]), answered: new Set(), asked: targets.size, quorumAt: null, highestRefusal: 0, targets: new Set(targets.keys()), wake: () => {} };
    this.round = round;
    this.trace(`claim e${e} hosts ${hosts.map((h) => idToHex(h).slice(0, 6)).join(',')}`);
    for (const t of targets.values()) this.send(t, { t: 'CLAIM', ...this.r, e, hosts });
    const quorum = Math.floor(hosts.length / 2) + 1;
    const deadline = this.ctx.clock.now() + o.claimTimeoutMs;
    for (;;) {
      const now = this.ctx.clock.now();
      const have = [...round.granted].filter((g) => hosts.some((h) => idToHex(h) === g)).length;
      if (have >= quorum && round.quorumAt === null) round.quorumAt = now;
      const allIn = round.answered.size >= round.asked;
      if (round.quorumAt !== null && (allIn || now - round.quorumAt >= o.claimGraceMs)) break;
      if (now >= deadline || this.stopped || this.promised !== e) break;
      await new Promise<void>((resolve) => {
        const t = this.ctx.clock.setTimeout(resolve, Math.min(50, Math.max(1, deadline - now)));
        round.wake = () => {
          this.ctx.clock.clearTimeout(t);
          resolve();
        };
      });
    }
    this.round = undefined;
    this.refusedAt = Math.max(this.refusedAt, round.highestRefusal);
    this.trace(`claim e${e} ${round.quorumAt === null ? 'failed' : 'quorum'} granted ${[...round.granted].map((g) => g.slice(0, 6)).join(',')} promised ${this.promised}`);
    if (round.quorumAt === null || this.promised !== e || this.stopped || this.role !== 'claiming') {
      // Our vote for e went to ourselves and our claim is over: nobody can win e through
      // it, so we may follow the current primary again (a lower epoch) or grant e to another.
      if (this.promised === e && this.promisedTo === this.ctx.selfHex) {
        this.promised = before.promised;
        this.promisedTo = before.promisedTo;
      }
      return false;
    }
    if (this.state.size === 0) await this.fallbackToDht();
    if (this.promised !== e || this.stopped || this.role !== 'claiming') return false;
    this.grantedBy = new Set(round.granted);
    this.becomePrimary(e, hosts);
    return true;
  }

  /**
   * The host set to claim over: a fresh lookup; but when a node of the current epoch's
   * hosts is gone (its link closed: a closed tab; or it is the primary we replace because
   * it went silent: a killed browser leaves its channels open at our end for many
   * seconds), the lookup may wait on that dead node for seconds, so after `claimLookupMs`
   * we claim over the current hosts minus the gone ones (a majority of those is a majority
   * of every view that agrees on the live nodes).
   */
  private async claimHosts(silent: string): Promise<NodeId[]> {
    const lookup = this.ctx.hostSet(this.key, true);
    const known = this.hosts.filter((h) => {
      const hex = idToHex(h);
      return hex !== silent && !this.ctx.linkClosed(hex);
    });
    // Only while a majority of the current hosts is still linked (a claim over that majority
    // merges a state of every confirmed edit: each was acked by a backup among the hosts).
    const majority = Math.floor(this.hosts.length / 2) + 1;
    if (known.length === this.hosts.length || known.length < majority || !known.some((h) => idEquals(h, this.ctx.selfId))) return lookup;
    lookup.catch(() => {});
    const quick = new Promise<undefined>((resolve) => this.ctx.clock.setTimeout(() => resolve(undefined), this.ctx.opts.claimLookupMs));
    const got = await Promise.race([lookup, quick]);
    if (!got) this.trace(`claim over known hosts (lookup slow)`);
    return got ?? known;
  }

  /** A primary with no host-set state reads the region's edit log from the DHT. */
  private async fallbackToDht(): Promise<void> {
    const got = await Promise.race([
      getEdits(this.ctx.dht, this.key).catch(() => undefined),
      new Promise<undefined>((resolve) => this.ctx.clock.setTimeout(() => resolve(undefined), this.ctx.opts.editsFallbackMs)),
    ]);
    if (got) this.state.merge(got);
  }

  private onGrant(fromHex: string, m: HostMessageOf<'GRANT'>): void {
    const round = this.round;
    if (!round || m.e !== round.e || !round.targets.has(fromHex)) {
      this.ctx.stats.staleFrames++;
      return;
    }
    round.answered.add(fromHex);
    if (m.entries) {
      try {
        this.state.merge(decodeEntries(m.entries));
      } catch {
        this.ctx.stats.staleFrames++;
        return;
      }
    }
    if (m.ok) round.granted.add(fromHex);
    // A refusal's promise raises our next claim, but only so far: a forged huge promise must
    // not push epochs out of range (u32, and 4096 for the DHT edit log's seq).
    else if (m.promised <= round.e + MAX_EPOCH_JUMP) round.highestRefusal = Math.max(round.highestRefusal, m.promised);
    round.wake();
  }

  private becomePrimary(e: number, hosts: NodeId[]): void {
    this.ctx.stats.claimsWon++;
    this.trace(`primary e${e} with ${this.state.size} entries`);
    this.role = 'primary';
    this.epoch = e;
    this.primary = this.ctx.selfId;
    this.primaryHex = this.ctx.selfHex;
    this.hosts = hosts;
    this.handoffTo = '';
    this.duty = new PrimaryDuty(this);
    this.duty.start();
    for (const [hex, w] of this.waiting) this.duty.subscribe(w.id, hex, w.since);
    this.waiting.clear();
    void this.persist().catch(() => {});
  }

  private scheduleRetry(): void {
    if (this.stopped || this.waiting.size === 0) return;
    this.ctx.clock.clearTimeout(this.retry);
    const ms = 200 + this.ctx.opts.random() * 400;
    this.retry = this.ctx.clock.setTimeout(() => {
      if (this.role === 'idle' || (this.role === 'backup' && !this.primaryAlive())) void this.claim(0, this.role === 'backup');
    }, ms);
  }

  // ---- grants (someone else wants to be primary) ------------------------------------

  private async onClaim(from: NodeId, fromHex: string, m: HostMessageOf<'CLAIM'>): Promise<void> {
    // A refusal carries our state too (not to outsiders): a claimant that wins without our
    // vote must still hold every edit we hold, which may include edits confirmed in an
    // epoch whose other hosts are gone.
    const refuse = (why: string) => {
      this.trace(`refuse ${fromHex.slice(0, 6)} e${m.e}: ${why}`);
      this.ctx.stats.refusals++;
      const known = this.hosts.some((h) => idEquals(h, from));
      const entries = !known || this.state.size === 0 ? {} : { entries: encodeEntries(this.allEntries()) };
      this.send(from, { t: 'GRANT', ...this.r, e: m.e, ok: false, promised: this.promised, ...entries });
    };
    if (m.e <= this.promised) return refuse(`promised ${this.promised}`);
    this.deferUntil = this.ctx.clock.now() + this.ctx.opts.claimTimeoutMs;
    // A live primary yields only to the node it handed the region to; a backup that
    // heard its primary just now does not help depose it.
    if (this.duty && this.handoffTo !== fromHex) return refuse('alive primary');
    // (A primary that handed the region over and then stepped down still grants its target.)
    if (this.role === 'backup' && fromHex !== this.primaryHex && fromHex !== this.handoffTo && this.ctx.clock.now() - this.lastHeard < this.ctx.opts.failoverMs / 2) {
      return refuse('primary alive');
    }
    if (!(await this.inHostSet(from))) {
      this.ctx.stats.outsiderClaims++;
      return refuse('outsider');
    }
    if (m.e <= this.promised || this.stopped) return refuse(`promised ${this.promised} (late)`);
    this.promised = m.e;
    this.promisedTo = fromHex;
    this.handoffTo = '';
    if (this.round) this.round.wake();
    const wasPrimary = !!this.duty;
    const entries = encodeEntries(this.allEntries());
    try {
      await this.persist();
    } catch {
      return; // a promise we could not store is no promise: say nothing
    }
    if (this.promised !== m.e) return;
    if (wasPrimary && this.duty) this.stepDown(from, m.e);
    this.epoch = m.e;
    this.primary = from;
    this.primaryHex = fromHex;
    this.hosts = m.hosts;
    // Granting ends any claim of our own (it would only duel with the one we back).
    this.role = m.hosts.some((h) => idEquals(h, this.ctx.selfId)) ? 'backup' : 'idle';
    this.applied = undefined;
    this.lastHeard = this.ctx.clock.now();
    this.ctx.stats.grants++;
    this.trace(`grant ${fromHex.slice(0, 6)} e${m.e}`);
    this.send(from, { t: 'GRANT', ...this.r, e: m.e, ok: true, promised: m.e, entries });
    // Subscribers that waited for our own claim go to the winner.
    for (const w of this.waiting.values()) this.send(w.id, { t: 'NOT_PRIMARY', ...this.r, e: m.e, primary: from });
    this.waiting.clear();
  }

  /**
   * The primary asks us, the closest node, to claim epoch e (it will grant it). We claim at
   * least e: we may not have heard its epoch yet, and a claim of a lower epoch would be
   * refused (or ended by its next heartbeat). `e` counts only from a host-set member.
   */
  private async onHandoff(from: NodeId, e: number): Promise<void> {
    if (this.duty || this.role === 'claiming') return;
    const hosts = await this.ctx.hostSet(this.key, true);
    if (hosts[0] && idEquals(hosts[0], this.ctx.selfId)) {
      this.ctx.stats.handoffs++;
      const trusted = hosts.some((h) => idEquals(h, from)) || this.hosts.some((h) => idEquals(h, from));
      await this.claim(trusted ? e : 0);
    }
  }

  // ---- backup duties ---------------------------------------------------------------

  /** Accepts a primary of a later epoch we never granted (we were brought in as a backup). */
  private async adopt(from: NodeId, fromHex: string, e: number): Promise<boolean> {
    if (!(await this.inHostSet(from))) {
      this.trace(`not adopting ${fromHex.slice(0, 6)} e${e}: outside the host set`);
      this.ctx.stats.staleFrames++;
      // A primary of an epoch we promised to another node (or hold ourselves) must hear it:
      // two claims won e over diverging views of the host set (see onNotPrimary).
      if (e === this.promised && fromHex !== this.promisedTo) this.refuseEpoch(from);
      return false;
    }
    // While we claim e, a heartbeat of e (or later) from a host-set member means it won.
    // A handoff claim goes on past the primary that asked for it (an epoch below the floor).
    const claiming = this.role === 'claiming';
    if (claiming && e < this.claimFloor) {
      this.trace(`not adopting ${fromHex.slice(0, 6)} e${e}: claiming e${this.claimFloor} or later`);
      return false;
    }
    const mine = this.promisedTo === this.ctx.selfHex;
    if (e < this.promised || (e === this.promised && fromHex !== this.promisedTo && !mine)) {
      this.trace(`not adopting ${fromHex.slice(0, 6)} e${e}: promised ${this.promised} to ${this.promisedTo.slice(0, 6)}, ${this.role}`);
      // Tell it: at an equal epoch it is a second primary of that epoch (see onNotPrimary).
      this.refuseEpoch(from);
      return false;
    }
    // A heartbeat of a later epoch from inside the host set: someone won a claim; we are deposed.
    if (this.duty) {
      if (e <= this.epoch) return false;
      this.stepDown(from, e);
    }
    if (claiming) {
      this.trace(`abandon claim: ${fromHex.slice(0, 6)} won e${e}`);
      this.role = 'backup';
      this.round?.wake();
    }
    this.promised = e;
    this.promisedTo = fromHex;
    this.epoch = e;
    this.primary = from;
    this.primaryHex = fromHex;
    this.role = 'backup';
    this.applied = undefined;
    this.lastHeard = this.ctx.clock.now();
    this.primaryIdle = false;
    return true;
  }

  private isCurrentPrimary(fromHex: string, e: number): boolean {
    return e === this.epoch && e === this.promised && fromHex === this.primaryHex && !this.duty;
  }

  private async onReplicate(from: NodeId, fromHex: string, m: HostMessageOf<'REPLICATE'> | HostMessageOf<'SYNC'>): Promise<void> {
    if (m.e < this.promised) {
      this.ctx.stats.staleFrames++;
      this.send(from, { t: 'NOT_PRIMARY', ...this.r, e: this.promised, refuse: true, ...(this.primary ? { primary: this.primary } : {}) });
      return;
    }
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      if (!(await this.adopt(from, fromHex, m.e))) return;
      if (m.t === 'REPLICATE') return this.requestSync(from);
    }
    if (!this.hosts.length || m.hosts.length) this.hosts = m.hosts;
    if (!this.hosts.some((h) => idEquals(h, this.ctx.selfId))) {
      this.role = 'idle';
      return;
    }
    if (this.role === 'idle') this.role = 'backup';
    this.lastHeard = this.ctx.clock.now();
    this.primaryIdle = false;
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      this.ctx.stats.staleFrames++;
      return;
    }
    let to: number;
    if (m.t === 'SYNC') {
      // Never discard what we hold (a restarted host's store): merge, and offer the primary
      // what its SYNC lacked.
      this.offerTo(from, entries);
      this.state.merge(entries);
      to = Math.max(this.applied ?? 0, m.s);
    } else {
      if (this.applied === undefined || m.from > this.applied + 1) return this.requestSync(from);
      if (m.to > this.applied) this.state.merge(entries);
      this.rememberRequests(m, entries);
      to = Math.max(this.applied, m.to);
    }
    this.applied = to;
    // Ack from memory; the store write follows. The primary commits a batch once it is in
    // its own store too (primary-duty.ts), so our write is not on the edit's critical path.
    this.send(from, { t: 'ACK', ...this.r, e: m.e, to });
    this.persist().catch(() => {});
  }

  /** The batch's edit requests, so that as the next primary we know them (request-log.ts). */
  private rememberRequests(m: HostMessageOf<'REPLICATE'>, entries: Entry[]): void {
    if (!m.reqs) return;
    const bySeq = new Map<number, Entry>();
    for (const e of entries) bySeq.set(e.s, e);
    const now = this.ctx.clock.now();
    for (const [editor, r, s] of m.reqs) {
      const e = bySeq.get(s);
      if (e) this.requests.remember(requestTag(idToHex(editor), r, e.key, e.id), e, now);
    }
    this.requests.prune(now);
  }

  private requestSync(primary: NodeId): void {
    const now = this.ctx.clock.now();
    if (now - this.lastSyncReq < this.ctx.opts.heartbeatMs) return;
    this.lastSyncReq = now;
    this.send(primary, { t: 'SYNC_REQ', ...this.r, e: this.epoch });
  }

  private async onHeartbeat(from: NodeId, fromHex: string, m: HostMessageOf<'HEARTBEAT'>): Promise<void> {
    if (m.e < this.promised) {
      this.ctx.stats.staleFrames++;
      this.send(from, { t: 'NOT_PRIMARY', ...this.r, e: this.promised, refuse: true, ...(this.primary ? { primary: this.primary } : {}) });
      return;
    }
    const member = m.hosts.some((h) => idEquals(h, this.ctx.selfId));
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      if (!member || !(await this.adopt(from, fromHex, m.e))) return;
      this.hosts = m.hosts;
      return this.requestSync(from);
    }
    this.lastHeard = this.ctx.clock.now();
    this.primaryIdle = m.idle === true;
    this.hosts = m.hosts;
    if (m.subs) this.knownSubs = m.subs;
    if (!member) this.role = 'idle';
    else if (this.role === 'idle') {
      this.role = 'backup';
      this.requestSync(from);
    } else if (this.applied === undefined) this.requestSync(from);
  }

  /** Backups: called every heartbeat period; takes over when the primary went quiet. */
  watch(primaryLinkClosed = false): void {
    if (this.role !== 'backup' || this.stopped) return;
    if (primaryLinkClosed) {
      this.lastHeard = Math.min(this.lastHeard, this.ctx.clock.now() - this.ctx.opts.failoverMs);
      this.primaryIdle = false;
    }
    const others = this.hosts.filter((h) => !idEquals(h, this.primary ?? this.ctx.selfId));
    const rank = Math.max(0, others.findIndex((h) => idEquals(h, this.ctx.selfId)));
    const o = this.ctx.opts;
    const now = this.ctx.clock.now();
    if (now < this.deferUntil) return;
    // An idle region's primary beats every idleHeartbeatMs: allow for two missed beats.
    const quiet = this.primaryIdle ? 2 * o.idleHeartbeatMs : 0;
    if (now - this.lastHeard > o.failoverMs + quiet + rank * o.claimStaggerMs) {
      // One attempt, then wait again (jittered, so duelling claimants drift apart).
      this.lastHeard = now + o.random() * o.failoverMs;
      void this.claim(0, true);
    }
  }
}
