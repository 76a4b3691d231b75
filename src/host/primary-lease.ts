// The primary's lease over its region, and the backups' liveness it is made of: which frame
// each backup last answered (heartbeat or batch, by its send time), the beats sent, and the
// backups that refused us. Pure: no clock, wire or store; the caller passes the time in and
// the host set is read live (`LeaseTerms`). docs/HOSTING.md "Leases" has the reasons.
import { idToHex, type NodeId } from '../core/node-id';
import { quorum } from '../region/epoch-cert';
import type { HostOptions } from './host-options';

/** What the lease reads of the primary's duty, live: the certificate's hosts (we count as one). */
export interface LeaseTerms {
  /** The certificate's hosts but us. */
  backups(): NodeId[];
  /** How many hosts the certificate names, us included: the lease needs a majority of them. */
  readonly hostCount: number;
}

export type LeaseOptions = Pick<HostOptions, 'leaseMs' | 'backupQuietMs' | 'confirmAcks'>;

/**
 * An answer this long after our frame went out is late: a backup on a starved tab (8 tabs on
 * 2 cores) answers in hundreds of milliseconds, one on an idle machine in tens.
 */
export const LATE_ACK_MS = 300;

/** Beats remembered by number (an ack naming an older beat renews nothing). */
const BEATS_KEPT = 32;

export class PrimaryLease {
  /** Send time of each recent heartbeat, by beat number (the lease counts from it). */
  private readonly beatSent = new Map<number, number>();
  /** Per backup (hex): the send time of the newest frame it acked (heartbeat or batch). */
  private readonly heardAt = new Map<string, number>();
  /** Per backup (hex): when we sent it the first SYNC of our duty (syncSent). */
  private readonly syncSentAt = new Map<string, number>();
  /** Per backup (hex): when it last answered a frame of ours late (`slow`). */
  private readonly lateAt = new Map<string, number>();
  /** Backups that told us they promised a later epoch (until they ack again). */
  private readonly refusing = new Set<string>();
  private startedAt = 0;

  constructor(
    private readonly terms: LeaseTerms,
    private readonly o: LeaseOptions,
  ) {}

  /**
   * Our duty starts at `now`. A granter promised us the epoch and follows us from its grant
   * on (it refuses other claimants for failoverMs / 2 after it), as after an ack of a frame
   * sent with our claim: so the lease holds from the certificate on, not from the first
   * beat's acks.
   */
  start(now: number, granters: ReadonlySet<string>, claimSentAt: number): void {
    this.startedAt = now;
    for (const b of this.terms.backups()) if (granters.has(idToHex(b))) this.heardAt.set(idToHex(b), claimSentAt);
  }

  /** We sent beat `b` at `now`. */
  beat(b: number, now: number): void {
    this.beatSent.set(b, now);
    this.beatSent.delete(b - BEATS_KEPT);
  }

  /** We sent `hex` a SYNC at `now` (only the first of our duty is kept: see `sentBefore`). */
  syncSent(hex: string, now: number): void {
    if (!this.syncSentAt.has(hex)) this.syncSentAt.set(hex, now);
  }

  /**
   * The latest send time every ack of our epoch from `hex` answers at least: our first
   * SYNC to it. Only a SYNC of ours makes a host follow our epoch (region-backup.ts
   * `follow`), so an ack of our epoch that names no beat or batch we can place (a SYNC's
   * ack, before any batch) still says it followed us from a SYNC sent then or later, and
   * it refuses other claimants for failoverMs / 2 from hearing it. Without this a new
   * primary whose claim's grants had aged past leaseMs (a loaded machine: 142 ms p50 from
   * CLAIM to certificate, up to 350) ordered nothing until a beat sent after its backup
   * followed was acked, while the first edits after a crash waited in its queue.
   */
  sentBefore(hex: string): number | undefined {
    return this.syncSentAt.get(hex);
  }

  /** When beat `b` went out (undefined when forgotten or never sent). */
  beatAt(b: number): number | undefined {
    return this.beatSent.get(b);
  }

  /**
   * A backup answered a frame we sent at `sent` (undefined: one we cannot place), the answer
   * reaching us at `now`: LATE_ACK_MS or more after it went out, the backup is slow (`slow`).
   */
  heard(hex: string, sent: number | undefined, now?: number): void {
    if (sent !== undefined && now !== undefined && now - sent >= LATE_ACK_MS) this.lateAt.set(hex, now);
    if (sent !== undefined && sent > (this.heardAt.get(hex) ?? -Infinity)) this.heardAt.set(hex, sent);
  }

  /**
   * Whether `hex` answered a frame we sent since our duty began, and within the last `ms`:
   * it follows us now (a share of a crowd's fan-out goes only to such a backup: fan-out-plan.ts).
   */
  following(hex: string, now: number, ms: number): boolean {
    const at = this.heardAt.get(hex);
    return at !== undefined && at >= this.startedAt && now - at <= ms;
  }

  /**
   * Whether `hex` answered a frame of ours late (LATE_ACK_MS or more) within the last `ms`: a
   * starved tab, whose quiet spells (`quiet`) are its slowness, not its death. A backup that
   * answered on time and then said nothing (a crash, a node whose hosting stopped) is not.
   */
  slow(hex: string, now: number, ms: number): boolean {
    const at = this.lateAt.get(hex);
    return at !== undefined && at >= this.startedAt && now - at <= ms;
  }

  /**
   * Whether `hex` ever answered us as a host in this duty: it granted the claim the duty began
   * with, or acked a frame of our epoch (a SYNC's ack, a beat's, a batch's). A node of our set
   * that did neither hosts nothing we know of (host-set-check.ts `handOffTo`).
   */
  hostedWithUs(hex: string): boolean {
    return this.heardAt.has(hex);
  }

  /** Any ack from `hex` (even from outside our set) ends its refusal. */
  answered(hex: string): void {
    this.refusing.delete(hex);
  }

  /** A backup promised a later epoch. True when too few backups remain to confirm edits. */
  refusedBy(hex: string): boolean {
    this.refusing.add(hex);
    const backups = this.terms.backups();
    const usable = backups.filter((b) => !this.refusing.has(idToHex(b))).length;
    return usable < Math.min(this.o.confirmAcks, backups.length) || (backups.length > 0 && usable === 0);
  }

  /**
   * Whether a majority of the certificate's hosts (we count) acked a frame we sent less than
   * leaseMs ago. Each of them refuses other claimants for failoverMs / 2 after hearing us, so
   * while this holds no other primary can exist: we may order, commit and confirm.
   */
  held(now: number): boolean {
    let n = 1;
    for (const b of this.terms.backups()) if (now - (this.heardAt.get(idToHex(b)) ?? -Infinity) < this.o.leaseMs) n++;
    return n >= quorum(this.terms.hostCount);
  }

  /**
   * A backup that answered none of our beats for backupQuietMs is taken for dead: a killed tab's
   * link stays open at our end for seconds, and a second death in that time would leave the
   * region without a majority of its certified set.
   */
  quiet(hex: string, now: number): boolean {
    return now - this.startedAt > this.o.backupQuietMs && now - (this.heardAt.get(hex) ?? this.startedAt) > this.o.backupQuietMs;
  }

  /**
   * Whether no majority of the certificate's hosts (we count) answered a beat we sent over
   * backupQuietMs ago: our lease is long gone and cannot come back by replacing the silent
   * (a new set needs the old majority's grants), and our backups, not hearing us either,
   * have had time to claim. We may be deposed and never hear it (cut off from every node:
   * our frames reach nobody), so we stop being primary (hosted-region.ts `release`) rather
   * than stay one for good. Counted from our beats, not the clock: an idle region beats
   * every idleHeartbeatMs, and an answer to the last beat is all a backup owes.
   */
  unanswered(now: number): boolean {
    let n = 1;
    for (const b of this.terms.backups()) {
      const heard = this.heardAt.get(idToHex(b)) ?? -Infinity;
      let due = Infinity; // the oldest beat sent after the newest frame it answered
      for (const at of this.beatSent.values()) if (at > heard && at < due) due = at;
      if (now - due <= this.o.backupQuietMs) n++;
    }
    return n < quorum(this.terms.hostCount);
  }
}
