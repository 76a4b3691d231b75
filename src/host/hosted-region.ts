// One region as seen by one host: its role (idle, claiming, primary, backup), its state,
// its newest epoch certificate, and the rules that change them (docs/HOSTING.md draws them):
// - a node claims epoch e = (highest it knows) + 1 over a host set of at least two nodes and
//   becomes primary only with an epoch certificate: signed grants of a majority of that set
//   and, when the set changed, of the previous certificate's set (epoch-cert.ts);
// - a host grants at most one claimant per epoch (its promise is persisted before it
//   signs), never a stale epoch, never a jump of more than MAX_EPOCH_JUMP, only to a
//   claimant that knows the newest certificate the host knows, and only inside its view of
//   the host set; the grant carries its state and request log, taken after the promise;
// - a backup follows a primary only on a SYNC carrying a valid certificate that succeeds
//   the one it holds; REPLICATE and HEARTBEAT never change whom it follows.
// The primary's work (tick, ordering, replication, leases, deltas) lives in primary-duty.ts.
import { compareDistance, idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { within } from '../core/clock';
import { ClaimRound } from './claim-round';
import { claimTerms, grantRefusal, uncovered } from './grant-rules';
import { certShapeFault, decodeCert, encodeCert, MAX_EPOCH_JUMP, MAX_PEND, MIN_CERT_HOSTS, sameSet, signGrant, succeeds, type CertPrev, type ClaimTerms, type EpochCert, type GrantSig } from '../region/epoch-cert';
import { MAX_STATE_REQS, type ReplicationMessageOf } from './replication-messages';
import type { HostToPlayer, PlayerToHost, SubscriptionMessageOf } from '../region/subscription-messages';
import { Election } from './election';
import type { ReplicaFrame } from './host-wires';
import type { RegionContext } from './region-context';
import { PrimaryDuty, type DutyRegion } from './primary-duty';
import { regionName, type RegionCoord } from '../region/region-key';
import { getEdits, getLocation } from '../region/region-records';
import { RequestLog, requestTag } from './request-log';
import { compareStamp, decodeEntries, encodeEntries, pieces, RegionState, type Entry, type Stamp } from '../region/region-state';

export type Role = 'idle' | 'claiming' | 'primary' | 'backup';


/** A primary we replaced for its silence is not taken back as a host for this long. */
const SUSPECT_MS = 30_000;

const has = (list: readonly NodeId[], x: NodeId) => list.some((h) => idEquals(h, x));

export class HostedRegion implements DutyRegion {
  readonly name: string;
  role: Role = 'idle';
  state = new RegionState();
  /** What we promised, the newest certificate, granted and learned epochs, rebase evidence (election.ts). */
  readonly el: Election;
  /** Until then, edits are answered 'uncertified' (our last claim found too few hosts). */
  private uncertifiedUntil = -Infinity;
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
  /** The closer node the primary handed the region to (we grant its claim). */
  handoffTo = '';
  duty: PrimaryDuty | undefined;
  /** Edit requests ordered in this region (by us as primary, or handed to us). */
  readonly requests: RequestLog;
  /** Backups: the primary's subscribers, told of a takeover. */
  knownSubs: NodeId[] = [];
  /** Subscribers waiting for our claim to finish. */
  private readonly waiting = new Map<string, { id: NodeId; since: Stamp | undefined }>();
  private round: ClaimRound | undefined;
  /** When our last claim went out: each grant of it holds our lease as an ack of a frame sent then would. */
  claimSentAt = -Infinity;
  /** While claiming: the lowest epoch we will claim (a handoff's e). */
  private claimFloor = 0;
  private saving: Promise<void> = Promise.resolve();
  private nextSave: Promise<void> | undefined;
  private lastSyncReq = -Infinity;
  /** Entries of the SYNC arriving in pieces (compared with ours at its last piece). */
  private syncIn: Map<number, Entry> | undefined;
  /** Nodes whose silence made us claim (hex -> when): not brought back as hosts for a while. */
  private readonly silent = new Map<string, number>();
  private retry: unknown;
  private handoffTimer: unknown;
  /** Our last grant, said again to its claimant if its CLAIM comes again. */
  private lastGrant: { e: number; to: string; hosts: NodeId[]; sig: GrantSig } | undefined;
  private stopped = false;

  constructor(
    readonly ctx: RegionContext,
    readonly coord: RegionCoord,
    readonly key: NodeId,
  ) {
    this.name = regionName(coord);
    this.requests = new RequestLog(ctx.opts.dedupeMs);
    this.el = new Election(ctx.selfId);
  }

  /** Nodes recently taken for dead because they went silent (their links may still look open). */
  suspects(): string[] {
    const now = this.ctx.clock.now();
    for (const [hex, at] of this.silent) if (now - at > SUSPECT_MS) this.silent.delete(hex);
    return [...this.silent.keys()];
  }

  /** Whether our own claims are held back (someone else's claim is being considered). */
  get deferred(): boolean {
    return this.el.deferred(this.ctx.clock.now());
  }

  /** Restores what the host store kept (a reloaded tab). The certificate was checked when it was first taken. */
  restore(entries: Entry[], promised: number, promisedTo: string, cert?: Uint8Array, accepted?: CertPrev[]): void {
    this.state.merge(entries);
    const c = cert ? decodeCert(cert) : undefined;
    this.el.restore(promised, promisedTo, c, accepted, !!c && succeeds(c, this.el.cert));
    this.epoch = Math.max(this.epoch, this.state.version.e, this.el.cert?.e ?? 0);
    if (this.el.cert) this.hosts = this.el.cert.hosts;
  }

  /** Highest epoch granted or claimed (election.ts). */
  get promised(): number {
    return this.el.promised;
  }

  /** The newest valid certificate we know of this region (ours as primary). */
  get cert(): EpochCert | undefined {
    return this.el.cert;
  }

  /** A certificate whose hosts leave us out: we host this region no more and point askers at its primary. */
  private standAside(c: EpochCert): void {
    this.role = 'idle';
    this.epoch = c.e;
    this.primary = c.primary;
    this.primaryHex = idToHex(c.primary);
    this.hosts = c.hosts;
  }

  stop(): void {
    this.stopped = true;
    this.duty?.stop();
    this.duty = undefined;
    this.ctx.clock.clearTimeout(this.retry);
    this.ctx.clock.clearTimeout(this.handoffTimer);
    this.round?.wake();
  }

  private trace(what: string): void {
    this.ctx.trace?.(this.name, `${this.ctx.selfHex.slice(-4)} ${what}`);
  }

  /** To another host of the region (replication-messages.ts). */
  private toHost(to: NodeId, msg: ReplicaFrame): void {
    this.ctx.wires.replicas.send(to, msg);
  }

  /** To a player (subscription-messages.ts). */
  private toPlayer(to: NodeId, msg: HostToPlayer): void {
    this.ctx.wires.players.send(to, msg);
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
        return store.save({
          rx: this.coord.rx, rz: this.coord.rz, entries: encodeEntries(this.allEntries()), promised: this.el.promised, promisedTo: this.el.promisedTo,
          ...(this.el.cert ? { cert: encodeCert(this.el.cert) } : {}), ...(this.el.accepted.length ? { accepted: this.el.accepted } : {}),
        });
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
    // The current epoch's hosts answer at once, where a lookup in a churning network may
    // wait on dead contacts for seconds; so do the closest nodes our own table knows (twice
    // r: it may still list dead ones closer).
    if (has(this.hosts, id)) return true;
    if (has(this.ctx.tableNear(this.key, 2 * this.ctx.opts.replicas), id)) return true;
    if (has(await this.ctx.hostSet(this.key, false), id)) return true;
    return has(await this.ctx.hostSet(this.key, true), id);
  }

  private primaryAlive(): boolean {
    return this.role === 'backup' && this.ctx.clock.now() - this.lastHeard < this.ctx.opts.failoverMs;
  }

  /** A certificate from the wire: for this region, valid, and not older than ours. Counts what fails. */
  private async acceptable(c: EpochCert): Promise<boolean> {
    const fault = await this.ctx.certs.check(this.key, c);
    if (fault) {
      this.ctx.stats.badCerts++;
      this.trace(`bad certificate e${c.e}: ${fault}`);
      return false;
    }
    return true;
  }

  // ---- frames ---------------------------------------------------------------------

  onFrame(from: NodeId, fromHex: string, m: ReplicaFrame | PlayerToHost): void {
    if (this.stopped) return;
    switch (m.t) {
      case 'SUBSCRIBE':
        return this.onSubscribe(from, fromHex, m);
      case 'UNSUBSCRIBE':
        this.duty?.unsubscribe(fromHex);
        return;
      case 'EDIT':
        if (this.duty) return this.duty.queueEdit(from, fromHex, m);
        this.toPlayer(from, { t: 'REJECT', ...this.r, r: m.r, reason: this.editRefusal() });
        this.redirect(from);
        return;
      case 'MOVE':
        if (this.duty) this.duty.move(from, fromHex, m);
        return;
      case 'CLAIM':
        void this.onClaim(from, fromHex, m);
        return;
      case 'GRANT':
        void this.onGrant(fromHex, m);
        return;
      case 'SYNC':
        void this.onSync(from, fromHex, m);
        return;
      case 'REPLICATE':
        return this.onReplicate(from, fromHex, m);
      case 'HEARTBEAT':
        return this.onHeartbeat(from, fromHex, m);
      case 'ACK':
        if (this.duty && m.e === this.epoch) this.duty.onAck(fromHex, m.to, m.b);
        else this.ctx.stats.staleFrames++;
        return;
      case 'SYNC_REQ':
        if (this.duty && m.e === this.epoch) this.duty.syncBackup(from, fromHex);
        else this.ctx.stats.staleFrames++;
        return;
      case 'HANDOFF':
        void this.onHandoff(from, fromHex, m);
        return;
      case 'ABANDON':
        // Only the claimant could assemble its certificate, so its word that none exists is
        // enough (a lying host of the set could fork: it is trusted like any certified primary).
        // (Also an epoch we hold only because a later claim we granted covered it.)
        if (this.el.abandon(m.e, from)) void this.persist().catch(() => {});
        else this.ctx.stats.staleFrames++;
        return;
      case 'REFUSE':
        return this.onRefuse(from, fromHex, m);
      case 'OFFER':
        void this.onOffer(from, m);
        return;
    }
  }

  private editRefusal(): 'uncertified' | 'busy' | 'not-primary' {
    if (this.ctx.clock.now() < this.uncertifiedUntil) return 'uncertified';
    return this.role === 'claiming' ? 'busy' : 'not-primary';
  }

  /**
   * Stored entries from another host: the primary adopts what it lacks (or holds older). Only
   * from a node some certificate names as a host of this region (ours, its predecessor's, or
   * one the offerer holds: its stored promise), so an outsider cannot write blocks this way.
   */
  private async onOffer(from: NodeId, m: ReplicationMessageOf<'OFFER'>): Promise<void> {
    if (!this.duty) return void this.ctx.stats.staleFrames++;
    const named = (c: EpochCert | undefined) => !!c && (has(c.hosts, from) || (!!c.prev && has(c.prev.hosts, from)));
    let host = named(this.el.cert);
    if (!host && m.cert && named(m.cert)) host = await this.acceptable(m.cert);
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      entries = [];
      host = false;
    }
    if (!host || !this.duty) return void this.ctx.stats.offersRefused++;
    this.duty.offer(entries);
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
    this.toHost(primary, { t: 'OFFER', ...this.r, entries: encodeEntries(mine), ...(this.el.cert ? { cert: this.el.cert } : {}) });
  }

  private redirect(to: NodeId): void {
    const primary = this.role === 'backup' || this.role === 'idle' ? this.primary : undefined;
    this.toPlayer(to, { t: 'NOT_PRIMARY', ...this.r, e: this.epoch, ...(primary ? { primary } : {}) });
  }

  private onSubscribe(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'SUBSCRIBE'>): void {
    if (this.duty) return this.duty.subscribe(from, fromHex, m.since);
    if (this.role === 'claiming') {
      this.waiting.set(fromHex, { id: from, since: m.since });
      return;
    }
    if (this.primaryAlive() || !m.host) return this.redirect(from);
    // We found too few hosts just now: say so at once instead of claiming again.
    if (this.ctx.clock.now() < this.uncertifiedUntil && this.role === 'idle') {
      return this.toPlayer(from, { t: 'NOT_PRIMARY', ...this.r, e: this.epoch, alone: true });
    }
    this.waiting.set(fromHex, { id: from, since: m.since });
    if (this.waiting.size > 256) this.waiting.delete(this.waiting.keys().next().value!);
    void this.claim(0, this.role === 'backup');
  }

  /** A backup that promised a later epoch refuses our replication: with too few left to confirm anything, we step down. */
  private onRefuse(from: NodeId, fromHex: string, m: ReplicationMessageOf<'REFUSE'>): void {
    if (!this.duty || m.e <= this.epoch || !has(this.hosts, from)) return void this.ctx.stats.staleFrames++;
    if (this.duty.refusedBy(fromHex)) this.stepDown(m.primary, m.e);
  }

  /** Says we will not follow `to` as primary: our promise is `promised`, to whom we name if we follow them. */
  private refuseEpoch(to: NodeId): void {
    const primary = this.primary && this.el.promisedTo === this.primaryHex ? { primary: this.primary } : {};
    this.toHost(to, { t: 'REFUSE', ...this.r, e: this.el.promised, ...primary });
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

  /** We are primary no longer, without a successor yet: a handoff or a host-set change under way. */
  private release(why: string): void {
    this.ctx.stats.stepDowns++;
    this.trace(`release e${this.epoch}: ${why}`);
    this.knownSubs = this.duty?.release() ?? [];
    this.duty = undefined;
    this.role = 'backup';
    this.primary = undefined;
    this.primaryHex = '';
    this.applied = undefined;
    this.lastHeard = this.ctx.clock.now();
  }

  /**
   * A membership change is an epoch change: the primary claims the next epoch over the new
   * host set (its backups grant it; the previous set's majority signs too), so a primary can
   * never refill its set with other nodes and go on confirming in an epoch that was replaced.
   */
  reconfigure(hosts: NodeId[], why: string): void {
    if (!this.duty || this.stopped) return;
    this.ctx.stats.reconfigs++;
    const e = this.epoch;
    this.release(`hosts ${hosts.map((h) => idToHex(h).slice(0, 6)).join(',')} (${why})`);
    // Not held back by others' claims: we were the primary, our backups grant us first, and
    // while we wait they would take our silence for a death and claim without us.
    void this.claim(e + 1, false, hosts, true);
  }

  /** A closer node joined: we stop ordering, and it claims the next epoch with our certificate; we and our backups grant it. */
  handOff(to: NodeId): void {
    if (!this.duty || !this.el.cert) return;
    const cert = this.el.cert, e = this.epoch + 1, backups = this.duty.backups();
    this.ctx.stats.handoffs++;
    this.duty.stepDown(to, this.epoch);
    this.release(`handoff to ${idToHex(to).slice(0, 6)}`);
    const hex = idToHex(to);
    this.handoffTo = hex;
    for (const b of backups) this.toHost(b, { t: 'HANDOFF', ...this.r, e, to });
    // Said again until its claim reaches us (a lost notice costs a failover's wait: e.g. a
    // joiner whose hosting starts just after its links open), then left to the failover.
    const notify = (n: number) => {
      if (this.stopped || this.duty || this.handoffTo !== hex || this.el.promised >= e) return;
      this.toHost(to, { t: 'HANDOFF', ...this.r, e, cert });
      if (n < 3) this.handoffTimer = this.ctx.clock.setTimeout(() => notify(n + 1), this.ctx.opts.heartbeatMs << n);
    };
    this.ctx.clock.clearTimeout(this.handoffTimer);
    notify(0);
  }

  // ---- claims (we want to be primary) ----------------------------------------------

  /**
   * GENERATE: become primary of the next epoch if the host set certifies it.
   * `primarySilent`: we take over because the primary we follow went quiet (it counts as
   * gone, like a closed link, when choosing the host set to claim over). `hosts`: claim
   * over this set (a reconfiguration) instead of looking it up.
   */
  async claim(minEpoch = 0, primarySilent = false, hosts?: NodeId[], handedOver = false): Promise<boolean> {
    if (this.stopped || this.role === 'claiming' || this.role === 'primary') return false;
    // (A claim the primary asked for is not held back by the grants we just gave that primary.)
    if (this.deferred && !handedOver) {
      this.trace(`claim deferred`);
      this.scheduleRetry();
      return false;
    }
    const before = this.role;
    this.role = 'claiming';
    this.claimFloor = minEpoch;
    this.ctx.stats.claims++;
    const ok = await this.runClaim(minEpoch, primarySilent, hosts).catch(() => false);
    if (!ok) {
      this.ctx.stats.claimsFailed++;
      if (this.role === 'claiming') this.role = before;
      this.scheduleRetry();
    }
    return ok;
  }

  private async runClaim(minEpoch: number, primarySilent: boolean, given: NodeId[] | undefined): Promise<boolean> {
    const o = this.ctx.opts;
    if (primarySilent && this.primaryHex) this.silent.set(this.primaryHex, this.ctx.clock.now());
    const hosts = given ?? (await this.claimHosts(primarySilent ? this.primaryHex : ''));
    if (this.stopped || this.role !== 'claiming') return false;
    if (!has(hosts, this.ctx.selfId)) {
      // Not ours to host: point the waiting subscribers at who should.
      this.role = 'idle';
      for (const w of this.waiting.values()) this.toPlayer(w.id, { t: 'NOT_PRIMARY', ...this.r, e: this.epoch, ...(hosts[0] ? { primary: hosts[0] } : {}) });
      this.waiting.clear();
      return false;
    }
    if (hosts.length < MIN_CERT_HOSTS) {
      // Alone (or cut off): no epoch can be certified, so nothing can be confirmed here.
      this.ctx.stats.uncertifiable++;
      this.uncertifiedUntil = this.ctx.clock.now() + o.uncertifiedMs;
      this.trace(`cannot certify: ${hosts.length} host(s)`);
      for (const w of this.waiting.values()) this.toPlayer(w.id, { t: 'NOT_PRIMARY', ...this.r, e: this.epoch, alone: true });
      this.waiting.clear();
      return false;
    }
    // A first claim (we hold no certificate) must not start a second chain beside a region
    // that already has one: the DHT's location record carries its newest certificate.
    if (!this.el.cert) await this.learnChain();
    if (this.stopped || this.role !== 'claiming') return false;
    // Above every epoch we know of, our state's included: new edits must not be shadowed.
    const known = this.el.cert;
    const e = this.el.nextEpoch(this.epoch, this.state.version.e, minEpoch);
    const rebase = this.el.mayRebase(this.ctx.clock.now(), o);
    const pend = this.el.pendFor(e);
    const terms: ClaimTerms = {
      e, primary: this.ctx.selfId, hosts, ...(known ? { prev: { e: known.e, hosts: known.hosts } } : {}), ...(rebase ? { rebase } : {}), ...(pend.length ? { pend } : {}),
    };
    if (certShapeFault(terms)) {
      this.trace(`claim e${e}: ${certShapeFault(terms)}`);
      return false;
    }
    const before = { promised: this.el.promised, promisedTo: this.el.promisedTo };
    this.el.promised = e;
    this.el.promisedTo = this.ctx.selfHex;
    await this.persist().catch(() => {});
    if (this.el.promised !== e || this.role !== 'claiming') {
      this.trace(`claim e${e} overtaken: promised ${this.el.promised}, ${this.role}`);
      return false;
    }
    const own = await signGrant(this.ctx.signer, this.key, terms);
    // The previous hosts are asked too: their grants count for the previous set's majority,
    // and every answer's state is merged.
    const targets = new Map<string, NodeId>();
    for (const h of [...hosts, ...this.hosts, ...(known?.hosts ?? []), ...pend.flatMap((q) => q.hosts)]) if (!idEquals(h, this.ctx.selfId)) targets.set(idToHex(h), h);
    const round = new ClaimRound(terms, own, new Set(targets.keys()));
    this.round = round;
    this.trace(`claim e${e} hosts ${hosts.map((h) => idToHex(h).slice(0, 6)).join(',')}${pend.length ? ` pend ${pend.map((q) => `e${q.e}`).join(',')}` : ''}`);
    this.claimSentAt = this.ctx.clock.now();
    for (const t of targets.values()) this.toHost(t, { t: 'CLAIM', ...this.r, e, hosts, ...(known ? { known } : {}), ...(rebase ? { rebase } : {}), ...(pend.length ? { pend } : {}) });
    const deadline = this.ctx.clock.now() + o.claimTimeoutMs;
    let resends = 0;
    for (;;) {
      const now = this.ctx.clock.now();
      if (round.quorumAt === null && round.cert()) round.quorumAt = now;
      if (round.quorumAt === null && resends < 2 && now - this.claimSentAt >= (resends + 1) * o.claimResendMs) {
        resends++;
        for (const [hex, t] of targets) {
          if (round.answered.has(hex)) continue;
          // Its answer may be lost on a route through a node as dead as the primary: the DHT
          // probes our first hop (and drops it if silent), the relay dials it for a direct
          // link, and we ask once more.
          if (resends === 1) {
            this.ctx.dht.suspectRoute(t);
            this.ctx.reach(t);
          }
          this.toHost(t, { t: 'CLAIM', ...this.r, e, hosts, ...(known ? { known } : {}), ...(rebase ? { rebase } : {}), ...(pend.length ? { pend } : {}) });
        }
      }
      // The grace waits for live hosts' states, not for the silent primary we replace.
      if (round.quorumAt !== null && (round.allAnswered(this.silent) || now - round.quorumAt >= o.claimGraceMs)) break;
      if (now >= deadline || this.stopped || this.el.promised !== e || this.el.promisedTo !== this.ctx.selfHex) break;
      await new Promise<void>((resolve) => {
        const t = this.ctx.clock.setTimeout(resolve, Math.min(50, Math.max(1, deadline - now)));
        round.wake = () => {
          this.ctx.clock.clearTimeout(t);
          resolve();
        };
      });
    }
    this.round = undefined;
    const cert = round.cert();
    // Refusals raise our next epoch and name granted epochs to cover; a silent majority of
    // the previous set is evidence for a rebase, or holds our claims back (election.ts).
    this.el.afterClaim({ known, certified: !!cert, answered: round.answered, fault: round.fault() ?? undefined, learned: round.learned, highestRefusal: round.highestRefusal }, this.ctx.clock.now(), o.rebaseMs);
    this.trace(`claim e${e} ${cert ? `certified${rebase ? ' (rebase)' : ''}${known ? ` over e${known.e}` : ''}` : `failed (${round.fault() ?? 'no answer'})`} granted ${round.granted().map((g) => g.slice(0, 6)).join(',')} promised ${this.el.promised}`);
    // Hosts that said nothing may be alive on another island of a healed partition (no
    // overlay path leads there): the relay can still dial them, and one link joins the halves.
    if (!cert) for (const [hex, id] of targets) if (!round.answered.has(hex) && !this.silent.has(hex)) this.ctx.reach(id);
    if (!cert || this.el.promised !== e || this.el.promisedTo !== this.ctx.selfHex || this.stopped || this.role !== 'claiming') {
      // No certificate, and none ever: the grants die with this round. Our granters may
      // forget this epoch (else every later claim would have to cover it).
      for (const hex of round.granted()) {
        const to = targets.get(hex);
        if (to) this.toHost(to, { t: 'ABANDON', ...this.r, e });
      }
      // Our own grant for e never left this node and our claim is over: nobody can win e
      // through it, so we may follow the current primary again or grant e to another.
      if (this.el.promised === e && this.el.promisedTo === this.ctx.selfHex) {
        this.el.promised = before.promised;
        this.el.promisedTo = before.promisedTo;
      }
      // The refusals named a certificate of a later epoch whose hosts leave us out (we
      // followed a claim that lost, or the set moved on): not ours to claim; subscribers
      // that ask us are sent to its primary.
      const newer = this.el.cert;
      if (newer && newer.e >= this.epoch && newer !== known && !has(newer.hosts, this.ctx.selfId) && this.role === 'claiming') {
        this.trace(`not a host of e${newer.e}: idle`);
        this.standAside(newer);
      }
      return false;
    }
    if (this.state.size === 0) await this.fallbackToDht();
    if (this.el.promised !== e || this.stopped || this.role !== 'claiming') return false;
    this.becomePrimary(cert);
    return true;
  }

  /**
   * The host set to claim over: a fresh lookup; but when a node of the current epoch's
   * hosts is gone (its link closed, or it is the primary we replace because it went
   * silent), the lookup may wait on that dead node for seconds, so after `claimLookupMs`
   * we claim over the current hosts minus the gone ones.
   */
  private async claimHosts(silent: string): Promise<NodeId[]> {
    const lookup = this.ctx.hostSet(this.key, true);
    const known = this.hosts.filter((h) => {
      const hex = idToHex(h);
      return hex !== silent && !this.ctx.linkClosed(hex);
    });
    const majority = Math.floor(this.hosts.length / 2) + 1;
    if (known.length === this.hosts.length || known.length < majority || !has(known, this.ctx.selfId)) return lookup;
    lookup.catch(() => {});
    // The primary we replace went silent: it is the node closest to the key, so the lookup
    // almost always waits on it. Its link, merely closed, is another matter (no wait there).
    if (!silent || this.ctx.linkClosed(silent)) {
      const quick = new Promise<undefined>((resolve) => this.ctx.clock.setTimeout(() => resolve(undefined), this.ctx.opts.claimLookupMs));
      const got = await Promise.race([lookup, quick]);
      if (got) return got;
    }
    // Topped up to r with linked nodes (a link is proof of life): a set of two would be
    // stuck at the next death, since a new epoch needs a majority of the previous set.
    const extra = this.ctx.linkedNear(this.key, this.ctx.opts.replicas - known.length, new Set([...known.map(idToHex), ...this.suspects(), silent]));
    this.trace(`claim over known hosts (lookup slow)${extra.length ? ` + ${extra.length} linked` : ''}`);
    return sortByDistance([...known, ...extra], (x) => x, this.key);
  }

  /** Takes the certificate of the region's location record, if there is a valid one (bounded wait). */
  private async learnChain(): Promise<void> {
    const rec = await within(this.ctx.clock, getLocation(this.ctx.dht, this.key, this.ctx.records).catch(() => undefined), this.ctx.opts.editsFallbackMs);
    if (!rec || this.el.cert || !(await this.acceptable(rec.cert))) return;
    if (this.el.cert) return; // one came while we checked this one
    this.trace(`learned e${rec.cert.e} from the location record`);
    this.el.adoptCert(rec.cert);
  }

  /** A primary with no host-set state reads the region's edit log from the DHT. */
  private async fallbackToDht(): Promise<void> {
    const got = await within(this.ctx.clock, getEdits(this.ctx.dht, this.key, this.ctx.records).catch(() => undefined), this.ctx.opts.editsFallbackMs);
    if (got) this.state.merge(got);
  }

  private async onGrant(fromHex: string, m: ReplicationMessageOf<'GRANT'>): Promise<void> {
    const round = this.round;
    if (!round || m.e !== round.e || !round.asked(fromHex)) return void this.ctx.stats.staleFrames++;
    let entries: Entry[] = [];
    try {
      if (m.entries) entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    round.answered.add(fromHex);
    // An answer is proof of life: a primary we took for dead had only gone quiet (or released).
    this.silent.delete(fromHex);
    this.state.merge(entries);
    if (m.reqs) this.requests.import(m.reqs, this.ctx.clock.now());
    if (m.ok) {
      if (m.sig && idToHex(m.sig.id) === fromHex && (await this.ctx.certs.grantValid(this.key, round.terms, m.sig))) round.addGrant(fromHex, m.sig);
      else this.ctx.stats.badCerts++;
    } else {
      // A refusal's promise raises our next claim, but only so far: a forged huge promise must
      // not push epochs out of range.
      if (m.promised <= round.e + MAX_EPOCH_JUMP) round.highestRefusal = Math.max(round.highestRefusal, m.promised);
      // The refuser knows a newer certificate: our next claim must build on it.
      if (m.cert && succeeds(m.cert, this.el.cert) && (await this.acceptable(m.cert)) && succeeds(m.cert, this.el.cert)) {
        this.el.learnCert(m.cert);
      }
      // The refuser granted an epoch above our certificate: our next claim must win its hosts
      // too. (A lying refuser can only slow our claims, which refusing does anyway.)
      if (m.pend && m.pend.e > (this.el.cert?.e ?? 0) && m.pend.e < round.e + MAX_EPOCH_JUMP && m.pend.hosts.length >= MIN_CERT_HOSTS) {
        const q = m.pend;
        round.learned = [...round.learned.filter((x) => x.e !== q.e || !sameSet(x.hosts, q.hosts)), q].slice(-MAX_PEND);
      }
    }
    round.wake();
  }

  private becomePrimary(cert: EpochCert): void {
    this.ctx.stats.claimsWon++;
    this.trace(`primary e${cert.e} with ${this.state.size} entries`);
    this.role = 'primary';
    this.el.adoptCert(cert);
    this.epoch = cert.e;
    this.primary = this.ctx.selfId;
    this.primaryHex = this.ctx.selfHex;
    this.hosts = cert.hosts;
    this.handoffTo = '';
    this.uncertifiedUntil = -Infinity;
    const duty = (this.duty = new PrimaryDuty(this));
    duty.start();
    for (const [hex, w] of this.waiting) duty.subscribe(w.id, hex, w.since);
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

  private async onClaim(from: NodeId, fromHex: string, m: ReplicationMessageOf<'CLAIM'>): Promise<void> {
    const claim = { e: m.e, from, fromHex, hosts: m.hosts, known: m.known, rebase: m.rebase, pend: m.pend };
    this.el.dropFailedGrants(from, m.e, m.known?.e ?? 0);
    const mustRebase = this.el.mustRebase(from);
    // A refusal carries our state too (not to outsiders): a claimant that wins without our
    // vote must still hold every edit we hold. And our certificate, when the claimant's is
    // older: its next claim must build on it.
    const refuse = (why: string) => {
      this.trace(`refuse ${fromHex.slice(0, 6)} e${m.e}: ${why}`);
      // Duelling claimants starve each other (every claim leaves grants the next must cover):
      // we hold our own claims back for a closer host of the set we know, refused or not.
      // (Not for an outsider: its claims must change nothing here.)
      if (!mustRebase && (has(this.hosts, from) || (this.el.cert && has(this.el.cert.hosts, from))) && compareDistance(from, this.ctx.selfId, this.key) < 0) {
        this.el.defer(this.ctx.clock.now() + this.ctx.opts.claimTimeoutMs);
      }
      this.ctx.stats.refusals++;
      const cert = this.el.cert && (!m.known || m.known.e < this.el.cert.e) ? { cert: this.el.cert } : {};
      const open = uncovered(this.el.accepted, claim);
      const pend = open ? { pend: open } : {};
      // A large state in several refusals (each merged; the claimant counts the answer once).
      const parts = !has(this.hosts, from) || this.state.size === 0 ? [undefined] : pieces(this.allEntries());
      for (const part of parts) this.toHost(from, { t: 'GRANT', ...this.r, e: m.e, ok: false, promised: this.el.promised, ...(part ? { entries: encodeEntries(part) } : {}), ...cert, ...pend });
    };
    // (Nor is it granted: a grant would make us follow it, and its claims, one after
    // another, would keep us from ever claiming the rebase ourselves.)
    if (mustRebase) return refuse(`e${this.el.cert!.e}'s majority is gone: rebase pending`);
    // The claimant said its claim again: our grant may have been lost on the way. The same
    // promise, so the same grant (our state now, which only grew).
    const last = this.lastGrant;
    if (last && last.e === m.e && last.to === fromHex && this.el.promised === m.e && this.el.promisedTo === fromHex && sameSet(last.hosts, m.hosts)) {
      this.trace(`grant ${fromHex.slice(0, 6)} e${m.e} again`);
      return this.sendGrant(from, m.e, last.sig);
    }
    const why = grantRefusal({
      selfId: this.ctx.selfId, promised: this.el.promised, cert: this.el.cert, accepted: this.el.accepted, stateEpoch: this.state.version.e, primary: !!this.duty, handoffTo: this.handoffTo,
      following: this.role === 'backup' ? this.primaryHex : '', heardAgoMs: this.ctx.clock.now() - this.lastHeard, failoverMs: this.ctx.opts.failoverMs,
    }, claim);
    if (why) return refuse(why);
    const terms = claimTerms(claim);
    if (m.known && !(await this.acceptable(m.known))) return refuse('bad certificate');
    if (!(await this.inHostSet(from))) {
      this.ctx.stats.outsiderClaims++;
      return refuse('outsider');
    }
    // Only a claim from inside the host set holds our own claims back.
    if (!mustRebase) this.el.defer(this.ctx.clock.now() + this.ctx.opts.claimTimeoutMs);
    if (m.e <= this.el.promised || this.stopped) return refuse(`promised ${this.el.promised} (late)`);
    this.el.grant(m.e, m.hosts, from, fromHex, m.pend);
    this.handoffTo = '';
    if (this.round) this.round.wake();
    try {
      await this.persist();
    } catch {
      return; // a promise we could not store is no promise: say nothing
    }
    if (this.el.promised !== m.e || this.el.promisedTo !== fromHex) return;
    const sig = await signGrant(this.ctx.signer, this.key, terms);
    if (this.el.promised !== m.e || this.el.promisedTo !== fromHex) return;
    // We stop ordering before our state is taken: every edit we accepted travels with the grant.
    if (this.duty) this.stepDown(from, m.e);
    this.epoch = m.e;
    this.primary = from;
    this.primaryHex = fromHex;
    this.hosts = m.hosts;
    // Granting ends any claim of our own (it would only duel with the one we back).
    this.role = has(m.hosts, this.ctx.selfId) ? 'backup' : 'idle';
    this.applied = undefined;
    this.lastHeard = this.ctx.clock.now();
    this.ctx.stats.grants++;
    this.trace(`grant ${fromHex.slice(0, 6)} e${m.e}`);
    this.lastGrant = { e: m.e, to: fromHex, hosts: m.hosts, sig };
    this.sendGrant(from, m.e, sig);
    // Subscribers that waited for our own claim go to the winner.
    for (const w of this.waiting.values()) this.toPlayer(w.id, { t: 'NOT_PRIMARY', ...this.r, e: m.e, primary: from });
    this.waiting.clear();
  }

  /** Our grant of `e` with our state: a large one in several grants, each with the signature (the claimant counts it once). */
  private sendGrant(to: NodeId, e: number, sig: GrantSig): void {
    pieces(this.allEntries()).forEach((part, i) => this.toHost(to, {
      t: 'GRANT', ...this.r, e, ok: true, promised: e, entries: encodeEntries(part), sig, ...(i === 0 ? { reqs: this.requests.export(MAX_STATE_REQS) } : {}),
    }));
  }

  /**
   * To the target: the primary asks us, the closest node, to claim (it stopped ordering and
   * will grant us); we claim at least e, over its certificate. To a backup: the primary's
   * notice that `to` may claim although we heard the primary just now.
   */
  private async onHandoff(from: NodeId, fromHex: string, m: ReplicationMessageOf<'HANDOFF'>): Promise<void> {
    if (m.to) {
      // Our primary stopped ordering for `to`: give its claim time before we claim ourselves.
      if (fromHex === this.primaryHex && !this.duty) {
        this.handoffTo = idToHex(m.to);
        this.lastHeard = this.ctx.clock.now();
      }
      return;
    }
    if (this.duty || this.role === 'claiming') return;
    const cert = m.cert;
    if (cert && idEquals(cert.primary, from) && succeeds(cert, this.el.cert) && (await this.acceptable(cert))) {
      // Certified by its own primary: claim at once over its hosts with us in, no lookup (a
      // lookup under churn can take seconds, while the region has no primary).
      if (succeeds(cert, this.el.cert)) this.el.adoptCert(cert);
      this.ctx.stats.handoffs++;
      const hosts = sortByDistance([this.ctx.selfId, ...cert.hosts.filter((h) => !idEquals(h, this.ctx.selfId))], (x) => x, this.key).slice(0, this.ctx.opts.replicas);
      await this.claim(Math.min(m.e, cert.e + 1), false, hosts, true);
      return;
    }
    const hosts = await this.ctx.hostSet(this.key, true);
    if (hosts[0] && idEquals(hosts[0], this.ctx.selfId)) {
      this.ctx.stats.handoffs++;
      await this.claim(0);
    }
  }

  // ---- backup duties ---------------------------------------------------------------

  private isCurrentPrimary(fromHex: string, e: number): boolean {
    return !this.duty && this.el.cert?.e === e && this.epoch === e && fromHex === this.primaryHex;
  }

  /** Follows the certified primary of `cert` (a SYNC's sender). False when the certificate does not succeed ours. */
  private follow(from: NodeId, fromHex: string, cert: EpochCert): boolean {
    if (cert.e < this.el.promised || !succeeds(cert, this.el.cert)) {
      this.trace(`not following ${fromHex.slice(0, 6)} e${cert.e}: promised ${this.el.promised}, hold e${this.el.cert?.e ?? 0}`);
      this.refuseEpoch(from);
      return false;
    }
    if (this.duty) {
      if (cert.e <= this.epoch) return false;
      this.stepDown(from, cert.e);
    }
    if (this.role === 'claiming') {
      this.trace(`abandon claim: ${fromHex.slice(0, 6)} won e${cert.e}`);
      this.round?.wake();
    }
    const changed = this.epoch !== cert.e || this.primaryHex !== fromHex;
    this.el.adoptCert(cert);
    if (cert.e > this.el.promised || this.el.promisedTo !== fromHex) {
      this.el.promised = cert.e;
      this.el.promisedTo = fromHex;
    }
    this.epoch = cert.e;
    this.primary = from;
    this.primaryHex = fromHex;
    this.hosts = cert.hosts;
    this.role = 'backup';
    this.handoffTo = '';
    if (changed) this.applied = undefined;
    this.lastHeard = this.ctx.clock.now();
    this.primaryIdle = false;
    return true;
  }

  /** The full state with the epoch's certificate: the only frame that makes us follow a primary. */
  private async onSync(from: NodeId, fromHex: string, m: ReplicationMessageOf<'SYNC'>): Promise<void> {
    if (m.e < this.el.promised) {
      this.ctx.stats.staleFrames++;
      return this.refuseEpoch(from);
    }
    const cert = m.cert;
    if (cert.e !== m.e || !idEquals(cert.primary, from)) return void this.ctx.stats.badCerts++;
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      if (!(await this.acceptable(cert)) || this.stopped) return;
      if (!has(cert.hosts, this.ctx.selfId)) {
        // A certified primary whose set left us out: we host this region no more (and must
        // not claim it over an old set).
        if (succeeds(cert, this.el.cert) && cert.e >= this.el.promised && !this.duty && this.role !== 'claiming') {
          this.el.adoptCert(cert);
          this.standAside(cert);
        }
        return void this.ctx.stats.staleFrames++;
      }
      if (!this.follow(from, fromHex, cert)) return;
    }
    if (m.reqs) this.requests.import(m.reqs, this.ctx.clock.now());
    // Never discard what we hold (a restarted host's store): merge, and at the last piece
    // offer the primary what its SYNC lacked.
    const got = (this.syncIn ??= new Map());
    for (const x of entries) if (got.size < 1 << 22) got.set(x.key, x);
    this.state.merge(entries);
    this.lastHeard = this.ctx.clock.now();
    if (m.more) return; // a piece of a large state: the last one is acked
    this.syncIn = undefined;
    this.offerTo(from, [...got.values()]);
    this.applied = Math.max(this.applied ?? 0, m.s);
    this.lastHeard = this.ctx.clock.now();
    this.toHost(from, { t: 'ACK', ...this.r, e: m.e, to: this.applied });
    this.persist().catch(() => {});
  }

  private onReplicate(from: NodeId, fromHex: string, m: ReplicationMessageOf<'REPLICATE'>): void {
    if (m.e < this.el.promised) {
      this.ctx.stats.staleFrames++;
      return this.refuseEpoch(from);
    }
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      // A primary we do not follow yet: its SYNC carries the certificate.
      if (has(m.hosts, this.ctx.selfId)) this.requestSync(from);
      else this.ctx.stats.staleFrames++;
      return;
    }
    this.lastHeard = this.ctx.clock.now();
    this.primaryIdle = false;
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    if (this.applied === undefined || m.from > this.applied + 1) return this.requestSync(from);
    if (m.to > this.applied) this.state.merge(entries);
    this.rememberRequests(m, entries);
    this.applied = Math.max(this.applied, m.to);
    // Ack from memory; the store write follows. The primary confirms a batch once it is in
    // its own store too (primary-duty.ts), so our write is not on the edit's critical path.
    this.toHost(from, { t: 'ACK', ...this.r, e: m.e, to: this.applied });
    this.persist().catch(() => {});
  }

  /** The batch's edit requests, so that as the next primary we know them (request-log.ts). */
  private rememberRequests(m: ReplicationMessageOf<'REPLICATE'>, entries: Entry[]): void {
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
    this.toHost(primary, { t: 'SYNC_REQ', ...this.r, e: this.epoch });
  }

  private onHeartbeat(from: NodeId, fromHex: string, m: ReplicationMessageOf<'HEARTBEAT'>): void {
    if (m.e < this.el.promised) {
      this.ctx.stats.staleFrames++;
      return this.refuseEpoch(from);
    }
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      if (has(m.hosts, this.ctx.selfId)) this.requestSync(from);
      else this.ctx.stats.staleFrames++;
      return;
    }
    this.lastHeard = this.ctx.clock.now();
    this.primaryIdle = m.idle === true;
    if (m.subs) this.knownSubs = m.subs;
    if (this.applied === undefined) this.requestSync(from);
    // The answer renews the primary's lease: from now on we refuse other claimants for failoverMs / 2.
    if (m.b !== undefined) this.toHost(from, { t: 'ACK', ...this.r, e: m.e, to: this.applied ?? 0, b: m.b });
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
    if (this.el.deferred(now)) return;
    // An idle region's primary beats every idleHeartbeatMs: allow for two missed beats.
    const quiet = this.primaryIdle ? 2 * o.idleHeartbeatMs : 0;
    if (now - this.lastHeard > o.failoverMs + quiet + rank * o.claimStaggerMs) {
      // One attempt, then wait again (jittered, so duelling claimants drift apart).
      this.lastHeard = now + o.random() * o.failoverMs;
      void this.claim(0, true);
    }
  }
}
