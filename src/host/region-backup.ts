// The backup side of a region at one host: we follow a primary. Only a SYNC carrying a
// valid certificate that succeeds the one we hold makes us follow it; REPLICATE and
// HEARTBEAT never change whom we follow (docs/HOSTING.md, "Authority"). We take over when
// the primary goes quiet (watch). The rules of following (which frames are taken, in what
// order, gaps, acks, when to claim) are the pure backup-machine.ts; this shell feeds it the
// time, performs what it decides, checks certificates and changes the role. It reads and
// changes the region's role through `RegionRole` (region-role.ts), never the class that
// owns it.
import type { NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import type { Hold } from '../region/cert-anchor';
import type { ReplicationMessageOf } from './replication-messages';
import { BackupMachine, type BackupEffect, type FollowTerms } from './backup-machine';
import { has, RegionSide, type RegionRole } from './region-role';
import { PrimaryTransport } from './primary-transport';

/** Frames of a primary held while its SYNC's certificate is checked (RegionBackup `heldBehindSync`). */
export const HELD_BEHIND_SYNC = 32;

/** A SYNC whose certificate is being checked: its sender and epoch, the checks running, the frames held. */
interface SyncCheck {
  hex: string;
  e: number;
  running: number;
  held: (() => void)[];
}

export class RegionBackup extends RegionSide implements FollowTerms {
  private readonly machine: BackupMachine;
  /** The SYNC being checked, if any (`heldBehindSync`). */
  private checking: SyncCheck | undefined;
  /** Whether a silent primary still answers at the transport: slow, not dead (primary-transport.ts). */
  private readonly transport = new PrimaryTransport((hex) => this.ctx.transport?.(hex));

  constructor(region: RegionRole) {
    super(region);
    this.machine = new BackupMachine(region.ctx.selfId, region, region.roles, this, region.ctx.opts, region.ctx.stats);
    this.machine.transportAlive = (now, from) => this.transport.alive(now, this.region.primaryHex, from);
    this.machine.transportDeaf = (from) => this.transport.deaf(this.region.primaryHex, from);
  }

  /** Our primary said it released its epoch (backup-machine.ts `released`): its silence is judged even right after a stall of our own. */
  get primaryReleased(): boolean {
    return this.machine.primaryReleased;
  }

  /** Our primary said it unloads the region (backup-machine.ts): we unload too. */
  get primaryUnloads(): boolean {
    return this.machine.primaryUnloads;
  }

  /** The primary we follow counts as alive now (backup-machine.ts). */
  primaryHeardLately(now: number): boolean {
    return this.machine.primaryHeardLately(now);
  }

  /** When we last heard the primary we follow (a beat, a batch, its SYNC). */
  get primaryHeardAt(): number {
    return this.machine.heardAt;
  }

  get promised(): number {
    return this.el.promised;
  }

  /** We follow `fromHex`'s epoch `e` (a backup, or claiming meanwhile; not idle: `standAside` points us at a primary whose set left us out, and we take nothing from it). */
  isCurrentPrimary(fromHex: string, e: number): boolean {
    return !this.region.duty && this.region.role !== 'idle' && this.el.cert?.e === e && this.region.epoch === e && fromHex === this.region.primaryHex;
  }

  /** Follows the certified primary of `cert` (a SYNC's sender), held as `hold`. False when the certificate may not take ours' place (election.ts `supersedes`). */
  private follow(from: NodeId, fromHex: string, cert: EpochCert, hold: Hold, chain?: readonly EpochCert[]): boolean {
    if (cert.e < this.el.promiseFor(cert, hold, this.region.learntFar()) || !this.el.supersedes(cert, hold, this.region.learntFar())) {
      this.region.trace(`not following ${fromHex.slice(0, 6)} e${cert.e}: promised ${this.el.promised}, hold e${this.el.cert?.e ?? 0}`);
      this.refuseEpoch(from);
      return false;
    }
    if (this.region.duty) {
      if (cert.e <= this.region.epoch) return false;
      this.region.stepDown(from, cert.e);
    }
    if (this.region.role === 'claiming') {
      this.region.trace(`abandon claim: ${fromHex.slice(0, 6)} won e${cert.e}`);
      this.region.wakeClaim();
    }
    this.el.adoptCert(cert, chain, hold);
    if (cert.e > this.el.promised || this.el.promisedTo !== fromHex) {
      this.el.promised = cert.e;
      this.el.promisedTo = fromHex;
    }
    this.region.roles.followed(cert, from, this.ctx.clock.now(), hold);
    this.machine.followed(this.ctx.clock.now());
    return true;
  }

  /** The full state with the epoch's certificate: the only frame that makes us follow a primary. */
  async onSync(from: NodeId, fromHex: string, m: ReplicationMessageOf<'SYNC'>): Promise<void> {
    const { entries, effects } = this.machine.syncCheck(from, m);
    this.perform(effects);
    if (!entries) return;
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      const cert = m.cert;
      // (The frames held behind the check are taken in its finally, around the await: no
      // microtask turn more than before, so the simulations' events keep their order.)
      const check = this.checkFor(fromHex, m.e);
      try {
        const hold = await this.region.acceptable(cert, m.chain, fromHex);
        if (!hold || this.region.stopped) return;
        if (!has(cert.hosts, this.ctx.selfId)) {
          // A certified primary whose set left us out: we host this region no more (and must
          // not claim it over an old set).
          if (this.el.supersedes(cert, hold, this.region.learntFar()) && cert.e >= this.el.promiseFor(cert, hold, this.region.learntFar()) && !this.region.duty && this.region.role !== 'claiming') {
            this.el.adoptCert(cert, m.chain, hold);
            this.region.standAside(cert, hold);
          }
          return void this.ctx.stats.staleFrames++;
        }
        if (!this.follow(from, fromHex, cert, hold, m.chain)) return;
        this.perform(this.machine.syncPiece(from, m, entries, this.ctx.clock.now()));
        this.heardSilent(fromHex, m);
        return;
      } finally {
        this.checked(check);
      }
    }
    this.perform(this.machine.syncPiece(from, m, entries, this.ctx.clock.now()));
    this.heardSilent(fromHex, m);
  }

  /** The primary we follow named the nodes it struck (unclaiming-hosts.ts): struck here too, as we may claim or be primary after it. */
  private heardSilent(fromHex: string, m: ReplicationMessageOf<'SYNC'>): void {
    if (m.silent && this.isCurrentPrimary(fromHex, m.e)) this.region.toldSilent(m.silent);
  }

  /** The check of a SYNC from `hex` of epoch `e` begins (one record for all of its pieces). */
  private checkFor(hex: string, e: number): SyncCheck {
    const c = this.checking?.hex === hex && this.checking.e === e ? this.checking : (this.checking = { hex, e, running: 0, held: [] });
    c.running++;
    return c;
  }

  /** A check of `c` ended: once none runs, the frames held behind it are taken, in the order they came. */
  private checked(c: SyncCheck): void {
    if (--c.running > 0) return;
    if (this.checking === c) this.checking = undefined;
    if (this.region.stopped || c.held.length === 0) return;
    this.region.trace(`${c.hex.slice(0, 6)} e${c.e}: ${c.held.length} frames taken after its SYNC's check`);
    for (const take of c.held.splice(0)) take();
  }

  /**
   * Whether a frame of `hex`'s epoch `e` waits for the check of its SYNC under way (`take`
   * runs it then). A new primary's SYNC and its first batch (the edits that waited through
   * the failover) leave it moments apart; in a busy tab the SYNC's certificate check
   * (WebCrypto, off the main thread) may still run when the batch comes, which then found
   * us following nobody: we asked for a SYNC under our old epoch, which the primary does
   * not answer, and the batch was acked only after a later batch's gap asked again, or the
   * primary's RESYNC_MS (failover_crash: first batches committed ~1 s after they were
   * ordered). At most HELD_BEHIND_SYNC frames; past them as before.
   */
  private heldBehindSync(hex: string, e: number, take: () => void): boolean {
    const c = this.checking;
    if (!c || c.hex !== hex || c.e !== e || c.held.length >= HELD_BEHIND_SYNC || this.isCurrentPrimary(hex, e)) return false;
    // Once per check: a failover's timeline shows the batches that waited for it.
    if (c.held.length === 0) this.region.trace(`${hex.slice(0, 6)} e${e}: frames wait for its SYNC's check`);
    c.held.push(take);
    return true;
  }

  onReplicate(from: NodeId, fromHex: string, m: ReplicationMessageOf<'REPLICATE'>): void {
    if (this.heldBehindSync(fromHex, m.e, () => this.onReplicate(from, fromHex, m))) return;
    this.perform(this.machine.replicate(from, fromHex, m, this.ctx.clock.now()));
  }

  onHeartbeat(from: NodeId, fromHex: string, m: ReplicationMessageOf<'HEARTBEAT'>): void {
    if (this.heldBehindSync(fromHex, m.e, () => this.onHeartbeat(from, fromHex, m))) return;
    const was = this.machine.primaryReleased;
    this.perform(this.machine.heartbeat(from, fromHex, m, this.ctx.clock.now()));
    if (!was && this.machine.primaryReleased) this.region.trace(`primary ${fromHex.slice(0, 6)} released e${m.e}`);
  }

  /** Backups: called every heartbeat period; takes over when the primary went quiet. */
  watch(primaryLinkClosed = false): void {
    if (this.region.role !== 'backup' || this.region.stopped) return;
    const now = this.ctx.clock.now();
    if (!primaryLinkClosed) this.transport.watch(now, this.region.primaryHex, this.machine.heardAt, this.machine.watchLimit(now));
    if (!primaryLinkClosed && this.machine.pingDue(now, this.region.hosts, this.region.primary)) this.region.pingAhead();
    if (!this.machine.claimDue(now, this.region.hosts, this.region.primary, primaryLinkClosed, (t) => this.el.deferred(t))) return;
    const deaf = !primaryLinkClosed && this.transport.deaf(this.region.primaryHex, this.machine.heardAt) ? ', its link deaf' : '';
    this.region.trace(`primary ${this.region.primaryHex.slice(0, 6)} silent ${Math.round(now - this.machine.heardAt)} ms${primaryLinkClosed ? ' (link closed)' : ` (allowed ${Math.round(this.machine.silenceLimit(now))}${deaf})`}`);
    // One attempt, then wait again (jittered, and longer after failed claims, so duelling
    // claimants drift apart); but no later than the moment our claims may rebase, if that is
    // to come: after five failed claims the backoff put a rebase up to 12 s past rebaseMs.
    const o = this.ctx.opts, rebaseAt = this.el.rebaseAt(o);
    const next = now + this.region.claimRetryDelay(o.random() * o.failoverMs);
    this.machine.claimed(rebaseAt !== undefined && rebaseAt > now ? Math.min(next, rebaseAt + o.random() * o.claimStaggerMs - this.machine.silenceLimit(now)) : next);
    this.ctx.stats.silenceClaims++;
    void this.region.claim(0, true);
  }

  private perform(effects: readonly BackupEffect[]): void {
    for (const fx of effects) {
      switch (fx.t) {
        case 'refuse':
          this.refuseEpoch(fx.to);
          break;
        case 'sync-req':
          this.region.toHost(fx.to, { t: 'SYNC_REQ', ...this.regionFields, e: this.region.epoch });
          break;
        case 'ack':
          this.region.toHost(fx.to, { t: 'ACK', ...this.regionFields, e: fx.e, to: fx.applied, ...(fx.b !== undefined ? { b: fx.b } : {}) });
          break;
        case 'persist':
          this.region.persist().catch(() => {});
          break;
        case 'offer':
          this.region.offerTo(fx.to, fx.entries);
          break;
      }
    }
  }

  /** Says we will not follow `to` as primary: our promise is `promised`, to whom we name if we follow them. */
  private refuseEpoch(to: NodeId): void {
    const primary = this.region.primary && this.el.promisedTo === this.region.primaryHex ? { primary: this.region.primary } : {};
    this.region.toHost(to, { t: 'REFUSE', ...this.regionFields, e: this.el.promised, ...primary });
  }
}
