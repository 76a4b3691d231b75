// The backup's duty for one region as a pure state machine: which REPLICATE, HEARTBEAT and
// SYNC frames it takes from the primary it follows, in what order it applies them, when it
// has a gap (and asks for a SYNC, at most once a heartbeat period), what it acks, and when
// the primary's silence means it claims the region. Pure: no clock, wire, store or crypto.
// Each input takes the time and returns what to send or write as plain data
// (`BackupEffect`s, in order); the shell (region-backup.ts) performs them, and owns what
// changes the role (checking a SYNC's certificate, following its primary, standing aside).
// It reads and writes the region's follow record (plain fields: `FollowRecord`) and reads
// its promise and whom it follows live (`FollowTerms`). What it applies obeys the world's
// rules as an edit, an OFFER and a claimant's merge of its grants do (`decode`).
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { tryDecodeWithinRules, type Entry, type RegionState } from '../region/region-state';
import type { HostOptions, HostStats } from './host-options';
import type { ReplicationMessageOf } from './replication-messages';
import { requestTag, type RequestLog } from './request-log';
import type { FollowMoves } from './role-machine';
import { PrimaryPace, type PaceOptions } from './primary-pace';
import type { EpochCert } from '../region/epoch-cert';
import type { ProofRing } from './state-proofs';

/** What the machine reads and writes of its region: plain fields and data. */
export interface FollowRecord {
  /** The primary's subscribers, as its HEARTBEAT named them (told of a takeover; the region owns the list). */
  heardSubs(ids: NodeId[]): void;
  readonly state: RegionState;
  readonly requests: RequestLog;
  /** The certificate of the primary we follow, and the signed batches and SYNC pieces we keep as evidence for a claimant (state-proofs.ts). */
  readonly cert: EpochCert | undefined;
  readonly proofs: ProofRing;
}

/** What the machine reads of the region's election side, live. */
export interface FollowTerms {
  /** Highest epoch we granted or claimed: frames of a lower one are refused. */
  readonly promised: number;
  /** Whether `fromHex` is the primary we follow, in epoch `e` (and we are not primary ourselves). */
  isCurrentPrimary(fromHex: string, e: number): boolean;
}

export type BackupOptions = Pick<HostOptions, 'heartbeatMs' | 'failoverMs' | 'idleHeartbeatMs' | 'claimStaggerMs'> & Partial<Omit<PaceOptions, 'failoverMs'>>;

/** What the shell must do, in this order. */
export type BackupEffect =
  /** REFUSE to `to`: we promised a later epoch. */
  | { t: 'refuse'; to: NodeId }
  /** SYNC_REQ to `to`: we have a gap (or no state of its epoch yet). */
  | { t: 'sync-req'; to: NodeId }
  /** ACK to `to`: we hold (in memory) up to seq `applied` of epoch e; `b`: the heartbeat answered. */
  | { t: 'ack'; to: NodeId; e: number; applied: number; b?: number }
  /** Write the region to our store (after the ack: the primary confirms from its own store). */
  | { t: 'persist' }
  /** OFFER the primary what its SYNC lacked of ours. */
  | { t: 'offer'; to: NodeId; entries: Entry[] };

/** Entries of a SYNC in pieces kept at most (the pieces' frames are bounded already). */
const MAX_SYNC_ENTRIES = 1 << 22;

export class BackupMachine {
  /** Our primary's last beat said the region is idle (it beats slowly). */
  private primaryIdle = false;
  /**
   * Our primary's last beat said it unloads the region (host-options.ts unloadAfterMs): its
   * silence from then on is no death, and we unload too (hosted-region.ts `unloadable`).
   */
  primaryUnloads = false;
  /**
   * The primary (hex) and epoch whose last beat said it released the epoch (`release`): it
   * orders nothing more, and its silence from then on is no slowness to wait out (`released`).
   */
  private releasedBy: { hex: string; e: number } | undefined;
  private lastSyncReq = -Infinity;
  /**
   * Our last claim's start, jittered (`claimed`): the next waits as long from it as from the
   * primary's last beat. Apart from lastHeard, which stays the truth about the primary: the
   * grant rule "primary alive" reads it, and a failed claimant that took its jitter for the
   * primary's voice refused the next claimant (the closer one's at once after a duel).
   */
  private claimedAt = -Infinity;
  /** Entries of the SYNC arriving in pieces (compared with ours at its last piece). */
  private syncIn: Map<number, Entry> | undefined;
  private out: BackupEffect[] = [];
  /** How slow our primary was lately: how long its silence must last (primary-pace.ts). */
  private readonly pace: PrimaryPace;
  /** Whether our primary, silent since `from`, answers at the transport (primary-transport.ts; the shell sets it): its silence is allowed slowPrimaryMaxMs. */
  transportAlive: (now: number, from: number) => boolean = () => false;
  /** Whether our primary, silent since `from`, left a probe sent after that unanswered (primary-transport.ts; the shell sets it): dead at failoverMs, whatever its pace. */
  transportDeaf: (from: number) => boolean = () => false;

  constructor(
    private readonly self: NodeId,
    private readonly rec: FollowRecord,
    /** When we last heard the primary and what we applied of its epoch (role-machine.ts). */
    private readonly heard: FollowMoves,
    private readonly terms: FollowTerms,
    private readonly o: BackupOptions,
    private readonly stats: Pick<HostStats, 'staleFrames' | 'badCerts' | 'entriesAgainstRules'>,
  ) {
    this.pace = new PrimaryPace({ slowPrimaryFactor: 1, slowPrimaryMaxMs: o.failoverMs, slowPrimaryHalfLifeMs: 10_000, ...o });
  }

  /** A REPLICATE: applied in order from the primary we follow; a gap asks for a SYNC. */
  replicate(from: NodeId, fromHex: string, m: ReplicationMessageOf<'REPLICATE'>, now: number): BackupEffect[] {
    if (!this.fromOurPrimary(from, fromHex, m, now)) return this.drain();
    this.heardPrimary(now);
    this.primaryIdle = false;
    this.primaryUnloads = false;
    const entries = this.decode(m.entries);
    if (!entries) return this.drain();
    const applied = this.heard.applied;
    if (applied === undefined || m.from > applied + 1) {
      this.requestSync(from, now);
      return this.drain();
    }
    if (m.to > applied) {
      this.rec.state.merge(entries);
      // Kept as it came, unchecked: a claimant checks it if it ever needs it.
      if (m.sig) this.rec.proofs.keep({ e: m.e, f: m.from, t: m.to, b: m.entries, s: m.sig }, this.rec.cert);
    }
    this.rememberRequests(m, entries, now);
    this.heard.appliedUpTo(Math.max(applied, m.to));
    // Ack from memory; the store write follows. The primary confirms a batch once it is in
    // its own store too (commit-machine.ts), so our write is not on the edit's critical path.
    this.out.push({ t: 'ack', to: from, e: m.e, applied: this.heard.applied! }, { t: 'persist' });
    return this.drain();
  }

  /** A HEARTBEAT from the primary we follow: it is alive; its numbered beats are answered (the lease). */
  heartbeat(from: NodeId, fromHex: string, m: ReplicationMessageOf<'HEARTBEAT'>, now: number): BackupEffect[] {
    if (!this.fromOurPrimary(from, fromHex, m, now)) return this.drain();
    if (m.release) {
      this.released(fromHex, m.e, now);
      return this.drain();
    }
    this.heardPrimary(now);
    this.primaryIdle = m.idle === true;
    this.primaryUnloads = m.unload === true;
    if (m.subs) this.rec.heardSubs(m.subs);
    if (this.heard.applied === undefined) this.requestSync(from, now);
    // The answer renews the primary's lease: from now on we refuse other claimants for failoverMs / 2.
    if (m.b !== undefined) this.out.push({ t: 'ack', to: from, e: m.e, applied: this.heard.applied ?? 0, b: m.b });
    return this.drain();
  }

  /**
   * A SYNC's checks before its certificate's: below our promise it is refused; a certificate
   * not of its epoch or not naming its sender is bad; entries that do not decode make it
   * stale. `entries` when it may go on (to the certificate check, unless it comes from the
   * primary we follow), else undefined.
   */
  syncCheck(from: NodeId, m: ReplicationMessageOf<'SYNC'>): { entries: Entry[] | undefined; effects: BackupEffect[] } {
    let entries: Entry[] | undefined;
    if (m.e < this.terms.promised) {
      this.stats.staleFrames++;
      this.out.push({ t: 'refuse', to: from });
    } else if (m.cert.e !== m.e || !idEquals(m.cert.primary, from)) this.stats.badCerts++;
    else entries = this.decode(m.entries);
    return { entries, effects: this.drain() };
  }

  /** We follow a new primary (its SYNC's certificate succeeded ours): heard now, at its normal beat. */
  followed(now: number): void {
    this.pace.reset();
    this.releasedBy = undefined;
    this.heardPrimary(now);
    this.primaryIdle = false;
    this.primaryUnloads = false;
  }

  /**
   * A piece of a SYNC from the primary we follow (possibly just now): merged, never replacing
   * what we hold (a restarted host's store); at the last piece we offer the primary what its
   * SYNC lacked, and ack.
   */
  syncPiece(from: NodeId, m: ReplicationMessageOf<'SYNC'>, entries: Entry[], now: number): BackupEffect[] {
    if (m.reqs) this.rec.requests.import(m.reqs, now);
    const got = (this.syncIn ??= new Map());
    for (const x of entries) if (got.size < MAX_SYNC_ENTRIES) got.set(x.key, x);
    this.rec.state.merge(entries);
    if (m.sig) this.rec.proofs.keep({ e: m.e, f: 0, t: m.s, b: m.entries, s: m.sig }, this.rec.cert);
    this.heardPrimary(now);
    if (m.more) return this.drain(); // a piece of a large state: the last one is acked
    this.syncIn = undefined;
    const applied = Math.max(this.heard.applied ?? 0, m.s);
    this.heard.appliedUpTo(applied);
    this.out.push({ t: 'offer', to: from, entries: [...got.values()] }, { t: 'ack', to: from, e: m.e, applied }, { t: 'persist' });
    return this.drain();
  }

  /**
   * Called every heartbeat period while we are a backup: whether the primary's silence
   * (failoverMs, two idle beats when it said it was idle, plus claimStaggerMs per rank
   * among the other hosts, so backups do not all claim at once) means we claim now. A
   * closed link to it counts as failoverMs of silence. Our claims may be held back
   * (`deferred`: someone else's claim is being considered).
   */
  claimDue(now: number, hosts: readonly NodeId[], primary: NodeId | undefined, primaryLinkClosed: boolean, deferred: (now: number) => boolean): boolean {
    // A primary that unloaded the region is silent on purpose: the next subscriber's claim wakes it.
    if (this.primaryUnloads) return false;
    if (primaryLinkClosed) {
      this.heard.silentSince(now - this.o.failoverMs);
      this.claimedAt = Math.min(this.claimedAt, now - this.o.failoverMs);
      this.primaryIdle = false;
    }
    if (deferred(now)) return false;
    return this.silence(now) > this.allowed(now, hosts, primary, primaryLinkClosed);
  }

  /**
   * Whether to ping the hosts we would claim over now (region-claimant.ts `pingAhead`): the
   * primary's silence is within failoverMs / 2 of its allowance, once per silence. Their
   * answers spare the claim, if it comes, the round trip of its own ping; a primary heard
   * meanwhile costs a ping per host, and the claim waits exactly as long as before.
   */
  pingDue(now: number, hosts: readonly NodeId[], primary: NodeId | undefined): boolean {
    // Only for a primary whose state we hold: before its SYNC it may still be claiming (a
    // region with no state reads the DHT's edit log first), and its silence is no news.
    if (this.primaryUnloads || this.heard.applied === undefined) return false;
    const from = Math.max(this.heard.lastHeard, this.claimedAt);
    if (this.pingedFor === from || this.silence(now) <= this.allowed(now, hosts, primary, false) - this.o.failoverMs / 2) return false;
    this.pingedFor = from;
    return true;
  }

  /**
   * Our primary's last beat said it released its epoch: no majority of its hosts answered
   * it for backupQuietMs (primary-lease.ts `unanswered`), so it stopped ordering and waits,
   * idle, for a backup's claim, which it grants. Waiting out its silence as a slow
   * primary's (up to slowPrimaryMaxMs, and on a starved tab longer: the stall guard judges
   * no silence right after a stall of our own, hosting-service.ts) left a starved world
   * seconds without a primary (5.4 s from the release to the first claim). So its silence
   * counts as failoverMs already, as a closed link's does: the closest backup claims at
   * once and the others claimStaggerMs apart by rank (`allowed`), and what we last heard of
   * it keeps no other claimant off (the grant rule "primary alive": it is not alive as a
   * primary). Only from the primary we follow, in its epoch, over its own authenticated
   * route (`fromOurPrimary`): no other node can say it for it.
   */
  private released(hex: string, e: number, now: number): void {
    this.releasedBy = { hex, e };
    this.primaryIdle = false;
    this.primaryUnloads = false;
    this.heard.silentSince(now - this.o.failoverMs);
    this.claimedAt = Math.min(this.claimedAt, now - this.o.failoverMs);
  }

  /** Whether the primary we follow now said it released its epoch (`released`; not one we followed before). */
  get primaryReleased(): boolean {
    const r = this.releasedBy;
    return !!r && this.terms.isCurrentPrimary(r.hex, r.e);
  }

  /** The silence `pingDue` last pinged for (when it began). */
  private pingedFor = -Infinity;

  /** How long the primary has been silent (since our last claim, if that is later: `claimed`). */
  private silence(now: number): number {
    return now - Math.max(this.heard.lastHeard, this.claimedAt);
  }

  /**
   * The silence that means we claim: failoverMs, or more for a primary that was slow lately
   * (primary-pace.ts; a closed link is death at once), two beats more when it said it was
   * idle, and claimStaggerMs per rank among the other hosts.
   */
  private allowed(now: number, hosts: readonly NodeId[], primary: NodeId | undefined, primaryLinkClosed: boolean): number {
    const others = hosts.filter((h) => !idEquals(h, primary ?? this.self));
    const rank = Math.max(0, others.findIndex((h) => idEquals(h, this.self)));
    // An idle region's primary beats every idleHeartbeatMs: allow for two missed beats.
    const quiet = this.primaryIdle ? 2 * this.o.idleHeartbeatMs : 0;
    const limit = primaryLinkClosed || this.primaryReleased ? this.o.failoverMs : this.silenceLimit(now);
    return limit + quiet + rank * this.o.claimStaggerMs;
  }

  /**
   * Whether the primary we follow counts as alive at `now`: heard within the silence it is
   * allowed (its pace, and an idle primary's two beats; no rank allowance). A player's
   * SUBSCRIBE asking us to claim is judged by this, as our own watch is: with a fixed
   * failoverMs there, a player that lost patience with a slow primary had its backups depose it.
   */
  primaryHeardLately(now: number): boolean {
    if (this.primaryReleased) return false;
    const quiet = this.primaryIdle ? 2 * this.o.idleHeartbeatMs : 0;
    return now - this.heard.lastHeard < this.silenceLimit(now) + quiet;
  }

  /**
   * How long our primary's silence must last now before we take it for dead (bar the idle
   * and rank allowances): failoverMs when its link answers nothing (proven deaf), else its
   * pace, slowPrimaryMaxMs when its link answers.
   */
  silenceLimit(now: number): number {
    const from = this.heard.lastHeard;
    if (this.transportDeaf(from)) return this.o.failoverMs;
    return this.pace.silenceLimit(now, this.transportAlive(now, from));
  }

  /**
   * The silence from which a link proven deaf means death, which the transport is watched
   * as it nears (primary-transport.ts): failoverMs for a primary beating, however slow it
   * was lately; for one that said it is idle (silent on purpose), its pace and two beats.
   */
  watchLimit(now: number): number {
    return this.primaryIdle ? this.pace.silenceLimit(now) + 2 * this.o.idleHeartbeatMs : this.o.failoverMs;
  }

  private heardPrimary(now: number): void {
    this.pace.heard(now, this.primaryIdle);
    this.heard.heard(now);
  }

  /** When we last heard the primary we follow (what claimDue measures its silence from). */
  get heardAt(): number {
    return this.heard.lastHeard;
  }

  /** We claim (claimDue said so): one attempt, then we wait again as if last heard at `until` (jittered by the shell, so duelling claimants drift apart). */
  claimed(until: number): void {
    this.claimedAt = until;
  }

  private drain(): BackupEffect[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  /**
   * A frame's entries, or undefined (counted as stale) when they do not decode. Entries
   * against the world's rules (region-state.ts obeysWorldRules: a block no edit could set,
   * the unbreakable floor) are left out and counted: a certified primary is one host of the
   * set, and what it orders must not write past the rules into our state, our store or the
   * next primary's (our grant carries our state).
   */
  private decode(bytes: Uint8Array): Entry[] | undefined {
    const got = tryDecodeWithinRules(bytes);
    if (!got) return void this.stats.staleFrames++;
    this.stats.entriesAgainstRules += got.against;
    return got.entries;
  }

  /**
   * Whether a REPLICATE or HEARTBEAT comes from the primary we follow, in its epoch. Else:
   * below our promise it is refused; from a primary we do not follow yet (it names us a
   * host) we ask for its SYNC, which carries the certificate; anything else is stale.
   */
  private fromOurPrimary(from: NodeId, fromHex: string, m: { e: number; hosts: NodeId[] }, now: number): boolean {
    if (m.e < this.terms.promised) {
      this.stats.staleFrames++;
      this.out.push({ t: 'refuse', to: from });
      // Refused, yet a word of life: from the primary we followed before our last grant, its
      // silence would count from here should that grant be abandoned.
      this.heard.formerSpoke(fromHex, now);
      return false;
    }
    if (this.terms.isCurrentPrimary(fromHex, m.e)) {
      // It released this epoch: a frame of it that comes later (by another route) is no word of life.
      if (!this.primaryReleased) return true;
      this.stats.staleFrames++;
      return false;
    }
    if (m.hosts.some((h) => idEquals(h, this.self))) this.requestSync(from, now);
    else this.stats.staleFrames++;
    return false;
  }

  /** At most one SYNC_REQ per heartbeat period: the primary answers each with the whole state. */
  private requestSync(primary: NodeId, now: number): void {
    if (now - this.lastSyncReq < this.o.heartbeatMs) return;
    this.lastSyncReq = now;
    this.out.push({ t: 'sync-req', to: primary });
  }

  /** The batch's edit requests, so that as the next primary we know them (request-log.ts). */
  private rememberRequests(m: ReplicationMessageOf<'REPLICATE'>, entries: Entry[], now: number): void {
    if (!m.reqs) return;
    const bySeq = new Map<number, Entry>();
    for (const e of entries) bySeq.set(e.s, e);
    for (const [editor, r, s] of m.reqs) {
      const e = bySeq.get(s);
      if (e) this.rec.requests.remember(requestTag(idToHex(editor), r, e.key, e.id), e, now);
    }
    this.rec.requests.prune(now);
  }
}
