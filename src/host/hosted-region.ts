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
// This file holds the role (its moves are role-machine.ts's), the frames' dispatch, the store
// and the primary's own moves (become primary, step down, release, new host set, handoff:
// the only places its duty starts or ends); the claimant, granter and backup sides are
// region-claimant.ts, region-granter.ts and region-backup.ts, which see the region through
// `RegionRole` (region-role.ts). The primary's work (tick, ordering, replication, leases,
// deltas, and every frame a primary answers) lives in primary-duty.ts.
import { ProofRing } from './state-proofs';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { decodeCert, encodeCert, succeeds, type CertPrev, type EpochCert } from '../region/epoch-cert';
import type { Hold } from '../region/cert-anchor';
import type { ReplicationMessageOf } from './replication-messages';
import type { HostToPlayer, PlayerToHost, SubscriptionMessageOf } from '../region/subscription-messages';
import { Election } from './election';
import { bareRefusal } from './claim-round';
import type { ReplicaFrame } from './host-wires';
import type { RegionContext } from './region-context';
import { PrimaryDuty } from './primary-duty';
import { regionName, type RegionCoord } from '../region/region-key';
import { DEDUPE_MS, RequestLog } from './request-log';
import { RegionState, type Entry, type Stamp } from '../region/region-state';
import { FanOutShare } from './fan-out-share';
import { RegionBackup } from './region-backup';
import { RegionOffers } from './region-offers';
import { RegionWriter, type StoredRecord } from './stored-copy';
import { RegionClaimant } from './region-claimant';
import { RegionGranter } from './region-granter';
import { has, type RegionRole } from './region-role';
import { RoleMachine, type Role } from './role-machine';
import { unloadable } from './idle-unload';
import { DECLINED_HANDOFF_MS, DeclinedHandoffs } from './declined-handoffs';
import { QUIET_HOST_MS, QuietHosts } from './quiet-hosts';

export type { Role } from './role-machine';

export class HostedRegion implements RegionRole {
  readonly name: string;
  /** Role, followed epoch and primary, host set: written only by the machine's moves (role-machine.ts). */
  readonly roles = new RoleMachine((move, why) => {
    this.ctx.stats.roleMovesRefused++;
    this.trace(`role move ${move} refused: ${why}`);
  });
  state = new RegionState();
  /** What we promised, the newest certificate, granted and learned epochs, rebase evidence (election.ts). */
  readonly el: Election;
  /** While we are primary, its work (primary-duty.ts): started and ended only here, beside the role machine's moves. */
  private primaryDuty: PrimaryDuty | undefined;
  /** Edit requests ordered in this region (by us as primary, or handed to us). */
  readonly requests: RequestLog;
  /**
   * The subscribers the primary we followed last named (its HEARTBEAT), or ours as we stepped
   * down: the next primary tells them of its takeover. Written only here (`heardSubs`,
   * `takeKnownSubs`, `release`).
   */
  private subsKnown: NodeId[] = [];

  get knownSubs(): readonly NodeId[] {
    return this.subsKnown;
  }

  /** Our primary named its subscribers (backup-machine.ts, from its HEARTBEAT). */
  heardSubs(ids: NodeId[]): void {
    this.subsKnown = ids;
  }

  /** The subscribers to tell of our takeover, once: our duty starts (primary-duty.ts). */
  takeKnownSubs(): NodeId[] {
    const out = this.subsKnown;
    this.subsKnown = [];
    return out;
  }
  /** Signed batches and SYNC pieces of the primaries we followed, the newest (state-proofs.ts): a claimant's evidence for our entries. */
  readonly proofs: ProofRing;
  /** Subscribers waiting for our claim to finish. */
  readonly waiting = new Map<string, { id: NodeId; since: Stamp | undefined }>();
  /** The region's items as stored (agree/region-items.ts encodes them; opaque here): read back on restart, replaced by `itemState` once items run. */
  storedItems: Uint8Array | undefined;
  itemState: (() => Uint8Array | undefined) | undefined;
  /** Our store writes, one at a time (null: no store). */
  private readonly writer: RegionWriter | undefined;
  /** Frames taken (but acks and idle beats): an unload waits for its store write and gives up if this moved meanwhile. */
  touched = 0;
  /** When the last frame but an ack or beat came. */
  lastFrameAt: number;
  /** Read back from the store at a frame after an unload (hosting-service.ts): a SUBSCRIBE to us, its stored primary, claims. */
  reloaded = false;
  private handoffTimer: unknown;
  /** Our take-back of a region we handed over and whose target did not claim it (handOff). */
  private takeBackTimer: unknown;
  /** Nodes handed the region that did not claim it (not handed it again for a while). */
  readonly declined: DeclinedHandoffs;
  /** Backups we dropped as quiet: kept out of our set until heard (quiet-hosts.ts). */
  readonly quietHosts: QuietHosts;
  stopped = false;
  private readonly claimant: RegionClaimant;
  private readonly granter: RegionGranter;
  private readonly backup: RegionBackup;
  private readonly offers: RegionOffers;
  /** As a backup in a crowd: our share of the fan-out (fan-out-share.ts). */
  readonly share: FanOutShare;

  constructor(
    readonly ctx: RegionContext,
    readonly coord: RegionCoord,
    readonly key: NodeId,
  ) {
    this.name = regionName(coord);
    this.requests = new RequestLog(DEDUPE_MS);
    this.proofs = new ProofRing();
    this.declined = new DeclinedHandoffs(DECLINED_HANDOFF_MS);
    this.quietHosts = new QuietHosts(QUIET_HOST_MS);
    this.share = new FanOutShare(ctx, { rx: coord.rx, rz: coord.rz }, () => !this.duty && this.role === 'backup');
    this.el = new Election(ctx.selfId);
    this.claimant = new RegionClaimant(this);
    this.granter = new RegionGranter(this);
    this.backup = new RegionBackup(this);
    this.offers = new RegionOffers(this);
    if (ctx.store) this.writer = new RegionWriter(coord.rx, coord.rz, ctx.store, () => this.record(), () => ctx.stats.storeFailures++);
    this.lastFrameAt = ctx.clock.now();
  }

  get role(): Role {
    return this.roles.role;
  }
  get duty(): PrimaryDuty | undefined {
    return this.primaryDuty;
  }
  /** When our last claim went out (region-claimant.ts): each grant of it holds our lease as an ack of a frame sent then would. */
  get claimSentAt(): number {
    return this.claimant.claimSentAt;
  }
  /** Until then, edits are answered 'uncertified': our last claim found too few hosts (region-claimant.ts). */
  get uncertifiedUntil(): number {
    return this.claimant.uncertifiedUntil;
  }
  get epoch(): number {
    return this.roles.epoch;
  }
  get primary(): NodeId | undefined {
    return this.roles.primary;
  }
  get primaryHex(): string {
    return this.roles.primaryHex;
  }
  get hosts(): NodeId[] {
    return this.roles.hosts;
  }
  get lastHeard(): number {
    return this.roles.lastHeard;
  }
  get applied(): number | undefined {
    return this.roles.applied;
  }
  get handoffTo(): string {
    return this.roles.handoffTo;
  }

  /** Whether the region may be unloaded now (idle-unload.ts has the rule). */
  unloadable(now: number): boolean {
    const view = { stopped: this.stopped, role: this.role, waiting: this.waiting.size, writing: this.writer?.writing ?? 0, lastFrameAt: this.lastFrameAt, primaryReady: this.duty?.unloadReady, primaryUnloads: this.backup.primaryUnloads };
    return unloadable(view, now, !!this.ctx.store, this.ctx.opts);
  }

  /** Nothing worth a store record: no block, no promise, no certificate. */
  get blank(): boolean {
    return this.state.size === 0 && this.el.promised === 0 && !this.el.cert && !this.itemState && !this.storedItems;
  }

  /** Nodes recently taken for dead because they went silent (their links may still look open). */
  suspects(): string[] {
    return this.claimant.suspects();
  }

  struck(id: NodeId): boolean {
    return this.claimant.struck(id);
  }

  struckHosts(): NodeId[] {
    return this.claimant.struckHosts();
  }

  /** Hosts another host of the region says left it unanswered (region-claimant.ts `toldSilent`). */
  toldSilent(silent: readonly NodeId[], named?: readonly NodeId[]): void {
    this.claimant.toldSilent(silent, named);
  }

  /** Our primary may soon be taken for dead: the hosts we would claim over are pinged now (region-claimant.ts). */
  pingAhead(): void {
    this.claimant.pingAhead();
  }

  /** How long to wait before our next claim (region-claimant.ts retryDelay): `first` unless claims of ours failed lately. */
  claimRetryDelay(first: number): number {
    return this.claimant.retryDelay(first);
  }

  /**
   * GENERATE: become primary of the next epoch if the host set certifies it (region-claimant.ts).
   * `primarySilent`: we take over because the primary we follow went quiet. `hosts`: claim
   * over this set (a reconfiguration) instead of looking it up.
   */
  claim(minEpoch = 0, primarySilent = false, hosts?: NodeId[], handedOver = false): Promise<boolean> {
    return this.claimant.claim(minEpoch, primarySilent, hosts, handedOver);
  }

  wakeClaim(): void {
    this.claimant.wake();
  }

  learnFork(fork: EpochCert): void {
    this.claimant.learnFork(fork);
  }

  giveWay(mayGrant?: (promised: number) => boolean): boolean {
    return this.claimant.giveWay(mayGrant);
  }

  /** Backups: called every heartbeat period; takes over when the primary went quiet (region-backup.ts). */
  watch(primaryLinkClosed = false): void {
    this.backup.watch(primaryLinkClosed);
  }

  /** Whether our own claims are held back (someone else's claim is being considered). */
  get deferred(): boolean {
    return this.el.deferred(this.ctx.clock.now());
  }

  /** Restores what the host store kept (a reloaded tab). The certificate was checked when it was first taken. */
  restore(entries: Entry[], promised: number, promisedTo: string, cert?: Uint8Array, accepted?: CertPrev[], learnt?: { promised: number; promisedTo?: string }): void {
    this.state.merge(entries);
    const c = cert ? decodeCert(cert) : undefined;
    this.el.restore(promised, promisedTo, c, accepted, !!c && succeeds(c, this.el.cert), learnt);
    this.roles.restored(Math.max(this.state.version.e, this.el.cert?.e ?? 0), this.el.cert?.hosts);
  }

  /** Highest epoch granted or claimed (election.ts). */
  get promised(): number {
    return this.el.promised;
  }

  /** The newest valid certificate we know of this region (ours as primary). */
  get cert(): EpochCert | undefined {
    return this.el.cert;
  }

  /** The certificates we held before `cert`, oldest first (undefined: none). */
  get chain(): EpochCert[] | undefined {
    return this.el.chainAbove(0);
  }

  /** A certificate whose hosts leave us out: we host this region no more and point askers at its primary. */
  standAside(c: EpochCert, hold: Hold): void {
    this.roles.stoodAside(c, hold);
  }

  stop(): void {
    this.stopped = true;
    this.duty?.stop();
    this.primaryDuty = undefined;
    this.share.stop();
    this.claimant.stop();
    this.ctx.clock.clearTimeout(this.handoffTimer);
    this.ctx.clock.clearTimeout(this.takeBackTimer);
    this.claimant.wake();
  }

  trace(what: string): void {
    this.ctx.trace?.(this.name, `${this.ctx.selfHex.slice(-4)} ${what}`);
  }

  /** To another host of the region (replication-messages.ts). */
  toHost(to: NodeId, msg: ReplicaFrame): void {
    this.ctx.wires.replicas.send(to, msg);
  }

  /** To a player (subscription-messages.ts). */
  toPlayer(to: NodeId, msg: HostToPlayer): void {
    this.ctx.wires.players.send(to, msg);
  }

  get regionFields() {
    return { rx: this.coord.rx, rz: this.coord.rz };
  }

  /** Every entry this host holds (for grants and the store). */
  allEntries(): Entry[] {
    return this.duty ? this.duty.allEntries() : this.state.all();
  }

  /** Writes what changed of the region to the host store (stored-copy.ts); resolves once durable (coalescing writes). */
  persist(): Promise<void> {
    return this.writer?.persist() ?? Promise.resolve();
  }

  /** What a store write takes of the region (at the moment it starts). */
  private record(): StoredRecord {
    const items = this.itemState?.() ?? this.storedItems;
    return {
      entries: this.allEntries(),
      meta: {
        ...(items ? { items } : {}), promised: this.el.promised, promisedTo: this.el.promisedTo,
        ...(this.el.cert ? { cert: encodeCert(this.el.cert) } : {}), ...(this.el.accepted.length ? { accepted: this.el.accepted } : {}),
        ...(this.el.learnt ? { learnt: { promised: this.el.learnt.promised, ...(this.el.learnt.promisedTo ? { promisedTo: this.el.learnt.promisedTo } : {}) } } : {}),
      },
    };
  }

  /** When, as a backup, we last heard the primary we follow (-Infinity in other roles). */
  get primaryHeardAt(): number {
    return this.role === 'backup' ? this.backup.primaryHeardAt : -Infinity;
  }

  /** We follow a primary that said it released its epoch (backup-machine.ts `released`): we claim by rank, whatever our own stalls. */
  get primaryReleased(): boolean {
    return this.role === 'backup' && this.backup.primaryReleased;
  }

  /** We follow a primary heard within the silence it is allowed (backup-machine.ts `primaryHeardLately`: its pace, not a fixed failoverMs). */
  primaryAlive(): boolean {
    return this.role === 'backup' && this.backup.primaryHeardLately(this.ctx.clock.now());
  }

  /**
   * A certificate from the wire: for this region, validly signed, and anchored
   * (cert-anchor.ts) in the certificate we hold (a later one needs a majority of our hosts'
   * grants, directly or through `chain`, the sender's earlier certificates; else hosts near
   * the key as we see them; with none, or only a learnt one, we learn it below the cap).
   * Says how we then hold it (cert-anchor.ts `Hold`); counts what fails. `via`: the node
   * (hex) that sent it, whose derivation budget a granter's key not met before spends
   * (core/derivation-budget.ts): charged to nobody in particular, an attacker's junk
   * certificates spent the budget every honest CLAIM, SYNC and HANDOFF needed.
   */
  async acceptable(c: EpochCert, chain?: readonly EpochCert[], via?: string): Promise<Hold | false> {
    // A primary whose lease holds takes a later certificate only if a majority of its own
    // hosts granted it (directly or through `chain`): every epoch after ours needs such a
    // majority, and they grant no claim while they hear us (primary-lease.ts), so nothing
    // later can exist that did not chain from ours. Nearness (rule 2) is for readers that
    // missed epochs; a live primary has not, and two attacker ids near the key must not
    // depose it (docs/TRUST.md rule 7, (a)). The same for a backup of that certificate
    // through a failover, from its primary's last word until its own claim starts (the claim
    // forgets the primary's voice) or rebaseMs passed: a refusal of that claim may carry a
    // certificate of epochs we missed, or a rebase over us, and must count then. Before, a
    // backup's window ended failoverMs / 2 after the last beat: during the failover an
    // attacker's node of the set and one more id among the nearest handed it a certificate
    // of their own (rule 2), its claim then needed their grants, and the region had no
    // primary.
    const known = this.el.cert, now = this.ctx.clock.now();
    const following = this.role === 'backup' && this.epoch === known?.e && now - this.lastHeard < this.ctx.opts.rebaseMs;
    const live = !!this.duty?.leaseHeld() || following;
    const fault = await this.ctx.certs.hold(this.key, c, { known, learnt: !!this.el.learnt, chain, fresh: 'learn', live, via });
    if (fault !== 'anchored' && fault !== 'learnt') {
      this.ctx.stats.badCerts++;
      this.trace(`bad certificate e${c.e}: ${fault}${fault === 'unanchored' ? ` hosts ${c.hosts.map((h) => idToHex(h).slice(0, 4)).join(',')} grants ${c.grants.map((g) => idToHex(g.id).slice(0, 4)).join(',')} near ${this.ctx.tableNear(this.key, 8).map((h) => idToHex(h).slice(0, 4)).join(',')}` : ''}`);
      return false;
    }
    return fault;
  }

  /** Our certificate is learnt and a majority of its hosts is far from the key as we see it (election.ts `replaces`). */
  learntFar(): boolean {
    return !!this.el.learnt && !!this.el.cert && this.ctx.certs.farSet(this.key, this.el.cert.hosts);
  }

  // ---- frames ---------------------------------------------------------------------

  onFrame(from: NodeId, fromHex: string, m: ReplicaFrame | PlayerToHost): void {
    if (this.stopped) return;
    // An ack of our epoch, or a SYNC_REQ, shows that its sender hosts; other frames bring a
    // node dropped as quiet back on trust (quiet-hosts.ts). Not a refusal of our claim that
    // names nothing (claim-round.ts `bareRefusal`): a backup that acks nothing but refuses
    // every claim was dropped as quiet, brought back by its refusal at the next re-check and
    // dropped again, an epoch each.
    if ((m.t === 'ACK' || m.t === 'SYNC_REQ') && m.e === this.epoch) {
      this.quietHosts.hosts(fromHex);
      this.claimant.hosting(fromHex);
      // An ack of our epoch as primary: it follows our SYNC, so it hosts (declined-handoffs.ts `hosted`).
      if (m.t === 'ACK' && this.duty) this.declined.hosted(fromHex, this.ctx.clock.now());
    }
    else if (!(m.t === 'GRANT' && bareRefusal(m))) this.quietHosts.heard(fromHex, this.ctx.clock.now());
    // Beats and acks keep a region loaded as little as they keep it busy (an idle primary beats on).
    if (m.t !== 'ACK' && m.t !== 'HEARTBEAT') this.lastFrameAt = this.ctx.clock.now();
    if (m.t !== 'ACK' && !(m.t === 'HEARTBEAT' && (m.idle || m.unload))) this.touched++;
    // While we are primary, what a primary answers (EDIT, ACK, SUBSCRIBE, MOVE ... of its
    // epoch) goes straight to its duty (primary-duty.ts `onFrame`); the rest comes below.
    if (this.duty?.onFrame(from, fromHex, m)) return;
    switch (m.t) {
      case 'SUBSCRIBE':
        return this.onSubscribe(from, fromHex, m);
      case 'EDIT':
        this.toPlayer(from, { t: 'REJECT', ...this.regionFields, r: m.r, reason: this.editRefusal() });
        this.redirect(from);
        return;
      case 'UNSUBSCRIBE':
      case 'MOVE':
      case 'SAY':
      case 'FEED_LOST':
        return;
      case 'POSITIONS_LOST':
        this.share.lost(fromHex);
        return;
      case 'FEED':
        if (this.followed(fromHex, m.e)) this.share.onFeed(from, fromHex, m);
        else this.ctx.stats.staleFrames++;
        return;
      case 'RELAY':
        if (this.followed(fromHex, m.e)) this.share.onRelay(m);
        else this.ctx.stats.staleFrames++;
        return;
      case 'CLAIM':
        void this.granter.onClaim(from, fromHex, m);
        return;
      case 'GRANT':
        void this.claimant.onGrant(from, fromHex, m);
        return;
      case 'SYNC':
        void this.backup.onSync(from, fromHex, m);
        return;
      case 'REPLICATE':
        this.backup.onReplicate(from, fromHex, m);
        // In a crowd: the batch to our share of the subscribers at once, pending (as the primary does to its own).
        if (this.followed(fromHex, m.e)) this.share.onReplicate(m);
        return;
      case 'HEARTBEAT':
        this.backup.onHeartbeat(from, fromHex, m);
        if (!m.release && this.followed(fromHex, m.e)) this.share.onBeat(m);
        return;
      case 'ACK':
      case 'SYNC_REQ':
        this.ctx.stats.staleFrames++;
        return;
      case 'HANDOFF':
        void this.granter.onHandoff(from, fromHex, m);
        return;
      case 'ABANDON':
        // Only the claimant could assemble its certificate, so its word that none exists is
        // enough (a lying host of the set could fork: it is trusted like any certified primary).
        // (Also an epoch we hold only because a later claim we granted covered it.)
        this.granter.forget(m.e, fromHex);
        // The hosts it says sent its claim nothing, of those the claim we granted named (unclaiming-hosts.ts).
        if (m.silent) this.toldSilent(m.silent, this.el.accepted.find((q) => q.e === m.e && !!q.p && idEquals(q.p, from))?.hosts ?? []);
        if (this.el.abandon(m.e, from)) {
          // Our grant of e was the last thing we promised: it falls back (election.ts
          // `undoGrant` says why that is safe), and we follow whom we followed before it. A
          // claim that failed because its primary was alive leaves that primary its backups;
          // kept at e, we refused the live primary's frames and claimed over it ourselves.
          // Only when the claimant says the primary it took for dead answered it (`alive`):
          // after a claim over a silent set the claimant's followers claim in turn, as before.
          if (m.alive && !this.duty && this.roles.grantUndoable(m.e, fromHex) && this.el.undoGrant(m.e, fromHex)) {
            this.roles.grantAbandoned(m.e, fromHex);
            this.ctx.stats.grantsUndone++;
            this.trace(`e${m.e} abandoned by ${fromHex.slice(0, 6)}: promised ${this.el.promised} again, ${this.role}${this.primaryHex ? ` of ${this.primaryHex.slice(0, 6)} e${this.epoch}` : ''}`);
          }
          // The claimant we followed since our grant never became primary: it is nobody's
          // voice to keep other claimants off ("primary alive"), nor to hold our own watch.
          else if (this.role === 'backup' && m.e === this.epoch && fromHex === this.primaryHex && !this.duty) this.roles.forgetPrimaryVoice();
          void this.persist().catch(() => {});
        } else this.ctx.stats.staleFrames++;
        return;
      case 'REFUSE':
        return this.onRefuse(from, fromHex, m);
      case 'OFFER':
        this.offers.onOffer(from, m);
        return;
    }
  }

  /** From the primary we follow as a backup, in its epoch. */
  private followed(fromHex: string, e: number): boolean {
    return !this.duty && this.role === 'backup' && e === this.epoch && fromHex === this.primaryHex;
  }

  private editRefusal(): 'uncertified' | 'busy' | 'not-primary' {
    if (this.ctx.clock.now() < this.uncertifiedUntil) return 'uncertified';
    return this.role === 'claiming' ? 'busy' : 'not-primary';
  }

  /** Sends the primary every entry we hold that `theirs` lacks or holds older (region-offers.ts). */
  offerTo(primary: NodeId, theirs?: Entry[]): void {
    this.offers.offerTo(primary, theirs);
  }

  private redirect(to: NodeId): void {
    const primary = this.role === 'backup' || this.role === 'idle' ? this.primary : undefined;
    this.toPlayer(to, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.epoch, ...(primary ? { primary } : {}) });
  }

  /** A SUBSCRIBE while we are not primary (a primary's duty answers its own). */
  private onSubscribe(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'SUBSCRIBE'>): void {
    if (this.role === 'claiming') return this.wait(from, fromHex, m.since);
    // Read back after an unload, with a certificate naming us its primary: the player came
    // from the location record to us, and no one else holds the region loaded to answer.
    const ours = this.reloaded && this.role === 'idle' && !!this.el.cert && idEquals(this.el.cert.primary, this.ctx.selfId);
    if (this.primaryAlive() || !(m.host || ours)) return this.redirect(from);
    this.reloaded = false;
    // We found too few hosts just now: say so at once instead of claiming again.
    if (this.ctx.clock.now() < this.uncertifiedUntil && this.role === 'idle') {
      return this.toPlayer(from, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.epoch, alone: true });
    }
    this.wait(from, fromHex, m.since);
    if (this.role === 'backup') this.ctx.stats.subscribeClaims++;
    void this.claim(0, this.role === 'backup');
  }

  /** A subscriber waits for our claim; past `maxSubscribers` waiting, a new one hears `full`. */
  private wait(from: NodeId, fromHex: string, since: Stamp | undefined): void {
    if (!this.waiting.has(fromHex) && this.waiting.size >= this.ctx.opts.maxSubscribers) {
      this.ctx.stats.subscribersRefused++;
      return this.toPlayer(from, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.epoch, full: true });
    }
    this.waiting.set(fromHex, { id: from, since });
  }

  /** A backup that promised a later epoch refuses our replication: with too few left to confirm anything, we step down. */
  private onRefuse(from: NodeId, fromHex: string, m: ReplicationMessageOf<'REFUSE'>): void {
    if (!this.duty || m.e <= this.epoch || !has(this.hosts, from)) return void this.ctx.stats.staleFrames++;
    if (this.duty.refusedBy(fromHex)) this.stepDown(m.primary, m.e);
  }

  /** Our claim won `cert`: primary from now on; the duty starts and the subscribers that waited for our claim subscribe. */
  becomePrimary(cert: EpochCert): void {
    if (!this.roles.becamePrimary(cert, this.ctx.selfId)) return;
    const duty = (this.primaryDuty = new PrimaryDuty(this));
    duty.start();
    for (const [hex, w] of this.waiting) duty.subscribe(w.id, hex, w.since);
    this.waiting.clear();
  }

  stepDown(next: NodeId | undefined, e: number): void {
    this.ctx.stats.stepDowns++;
    this.trace(`step down e${e}`);
    this.duty?.stepDown(next, e);
    this.primaryDuty = undefined;
    this.roles.steppedDown(this.ctx.clock.now());
  }

  /**
   * We are primary no longer, without a successor yet: a handoff or a host-set change under
   * way (a backup with no primary: our own claim follows), or `idle` when no majority
   * answered us for backupQuietMs (primary-lease.ts `unanswered`): our backups, hearing
   * no beat, claim; we grant them like any host, and their SYNC makes us a backup again.
   * (Claiming ourselves from there, possibly still cut off, contends with them; tried, it
   * left a region with no primary after a partition healed: docs/HOSTING.md.)
   */
  release(why: string, role: 'backup' | 'idle' = 'backup'): void {
    this.ctx.stats.stepDowns++;
    this.trace(`release e${this.epoch}: ${why}`);
    this.subsKnown = this.duty?.release() ?? [];
    this.primaryDuty = undefined;
    this.roles.released(role, this.ctx.clock.now());
  }

  /**
   * A membership change is an epoch change: the primary claims the next epoch over the new
   * host set (its backups grant it; the previous set's majority signs too), so a primary can
   * never refill its set with other nodes and go on confirming in an epoch that was replaced.
   */
  reconfigure(hosts: NodeId[], why: string): void {
    if (!this.duty || this.stopped) return;
    this.ctx.stats.reconfigs++;
    const e = this.epoch, old = this.hosts;
    this.release(`hosts ${hosts.map((h) => idToHex(h).slice(0, 6)).join(',')} (${why})`);
    // Not held back by others' claims: we were the primary, our backups grant us first, and
    // while we wait they would take our silence for a death and claim without us.
    void this.claim(e + 1, false, hosts, true).then((ok) => {
      if (!ok) this.reconfigureFailed(old, hosts);
    });
  }

  /**
   * Our claim over a re-checked set `tried` did not certify, and nobody else's claim won
   * meanwhile (we follow no primary): we claim over `old`, the set we were primary of, whose
   * majority was alive (host-set-check.ts `setHosts`) and follows us. The new hosts that sent
   * the claim nothing are noted quiet, so the next re-check does not name them again until a
   * frame of the region comes from them. Before, the region stayed without a primary: its
   * re-check had named near nodes that answer pings and host nothing (2 of the 3 in sybil_1k
   * seed 3, region 3,1), that claim could not reach their majority, and the backups' claims
   * after the silence went over the same nodes.
   */
  private reconfigureFailed(old: NodeId[], tried: NodeId[]): void {
    if (this.stopped || this.duty || this.role !== 'backup' || this.primaryHex) return;
    const added = new Set(tried.filter((h) => !has(old, h)).map(idToHex));
    const silent = this.claimant.silentInLast.filter((hex) => added.has(hex));
    for (const hex of silent) this.noteQuiet(hex);
    this.trace(`hosts ${tried.map((h) => idToHex(h).slice(0, 6)).join(',')} did not certify${silent.length ? ` (${silent.map((h) => h.slice(0, 6)).join(',')} silent)` : ''}: claiming over ${old.map((h) => idToHex(h).slice(0, 6)).join(',')} again`);
    void this.claim(0, false, old, true);
  }

  /**
   * Whether `id` is not to be handed the region now: it was handed it lately and did not
   * claim it (declined-handoffs.ts), or it was the primary and its silence made us claim
   * lately (region-claimant.ts `replacedLately`): a starved tab nearest the key, handed the
   * region back while still slow, claimed late and its backups took the region again, two
   * more failovers for one slow spell; or we dropped it as quiet lately and it has not hosted
   * with us since (quiet-hosts.ts `droppedLately`); or it left a claim of ours or a handoff
   * unanswered and has not answered us since (unclaiming-hosts.ts): after its strike's time it
   * may be named a backup again, and handed the region once it answered as one.
   */
  declinedHandoff(id: NodeId): boolean {
    const now = this.ctx.clock.now();
    return this.declined.declined(id, now) || this.claimant.replacedLately(idToHex(id)) || this.quietHosts.droppedLately(id, now) || this.claimant.struck(id);
  }

  quietHost(id: NodeId): boolean {
    return this.quietHosts.quiet(id, this.ctx.clock.now());
  }

  noteQuiet(hex: string, dropped = false, neverAnswered = false): void {
    if (dropped) this.claimant.droppedQuiet(hex, neverAnswered);
    if (dropped) this.quietHosts.dropped(hex, this.ctx.clock.now());
    else this.quietHosts.note(hex, this.ctx.clock.now());
  }

  /**
   * A closer node joined: we stop ordering, and it claims the next epoch with our certificate;
   * we and our backups grant it. `hostedWithUs`: it is a host of our set that answered us as
   * one (host-set-check.ts), whose claim we take the region back from if it does not come.
   */
  handOff(to: NodeId, hostedWithUs = false): void {
    if (!this.duty || !this.el.cert) return;
    // The certificate goes with the ones before it: a node restarted from an older store
    // holds an epoch the handed one does not chain from directly, and walks the links (rule 1).
    const cert = this.el.cert, chain = this.el.chainAbove(0), e = this.epoch + 1, backups = this.duty.backups();
    this.ctx.stats.handoffs++;
    this.duty.stepDown(to, this.epoch);
    this.release(`handoff to ${idToHex(to).slice(0, 6)}`);
    const hex = idToHex(to);
    this.roles.handedOffTo(hex);
    for (const b of backups) this.toHost(b, { t: 'HANDOFF', ...this.regionFields, e, to });
    // Said again until its claim reaches us or we take the region back (a lost notice cost a
    // failover's wait: e.g. a joiner whose hosting starts just after its links open).
    const standing = () => !this.stopped && !this.duty && this.handoffTo === hex && this.el.promised < e;
    const notify = (n: number) => {
      if (!standing()) return;
      this.toHost(to, { t: 'HANDOFF', ...this.regionFields, e, cert, ...(chain ? { chain } : {}) });
      if (n < 3) this.handoffTimer = this.ctx.clock.setTimeout(() => notify(n + 1), this.ctx.opts.heartbeatMs << n);
    };
    this.ctx.clock.clearTimeout(this.handoffTimer);
    this.ctx.clock.clearTimeout(this.takeBackTimer);
    notify(0);
    // A host of our set that answered us as one sent us no claim (our grant of it would have
    // raised our promise to e): we take the region back before any backup claims past us,
    // claiming above e over our own set through the claim path every claimant takes (the
    // target's own claim of e, should it still come, never meets ours at one epoch; the
    // claim notes the target declined: declined-handoffs.ts). Our backups still follow us
    // and grant us although the handoff stands (grant-rules.ts). Before, the region waited for
    // its backups' failover while we claimed too: a node near the key that acked our frames and
    // never claimed what it was handed left the region without a primary for a failover's wait
    // at every handoff (hosting-handoff-hostile.test.ts). Nor is it named a backup until a frame
    // of the region comes from it (quiet-hosts.ts): named, it cost an epoch then and another
    // when the set's fill dropped it as quiet.
    // Not from a node outside our set: it has had no frame of ours to answer, and our backups
    // claim past it as before (a node near the key that never answered us is not handed the
    // region at all: host-set-check.ts handOffTo). Taken back from such a node, a primary of a
    // chain its set began from nothing after a whole-world restart handed the region at each
    // re-check to the nearer nodes that hold the older chain and took it back each time, its
    // set closed to them, while they made a primary of their own (two primaries:
    // hosting-restart.test.ts seed 21); released, its backups' claims took those nodes in and
    // the chains met.
    if (!hostedWithUs) return;
    this.takeBackTimer = this.ctx.clock.setTimeout(() => {
      if (!standing() || this.role !== 'backup') return;
      this.noteQuiet(hex);
      this.trace(`take back past e${e}: ${hex.slice(0, 6)} did not claim`);
      this.ctx.stats.handoffsTakenBack++;
      void this.claim(e + 1, false, this.hosts);
    }, this.ctx.opts.failoverMs / 2);
  }
}
