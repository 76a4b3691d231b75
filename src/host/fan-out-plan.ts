// Who sends a crowded region's subscribers their frames (no single host carries a crowd).
// Past SHARE_ABOVE subscribers, each subscriber is served by one host of the set, chosen
// by its id: the primary itself, or a backup that relays to it what the
// primary gives the backup once (fan-out-share.ts: POSITIONS from the FEED, each committed
// DELTA from a RELAY, and a HEARTBEAT at each of the primary's beats). Only a backup that
// answered one of the primary's frames of this duty within SHARE_QUIET_MS (beats go 10 a
// second) gets a share: not one that does not follow us yet (a new backup before its SYNC
// drops our FEED), nor one that may be dead, whose subscribers are served again within
// about that time; meanwhile the
// primary's own beat, which reaches every subscriber every ALL_BEATS_EVERY-th beat
// (primary-heartbeat.ts), keeps them attached and shows them the deltas they missed. The
// primary also serves a subscriber itself for a while:
// - HANDOVER_MS after moving it to a backup (the backup starts once the FEED naming it
//   arrives; until then the subscriber would miss deltas and beats);
// - RESCUE_MS after it re-subscribed saying it missed frames (a gap in its deltas, or
//   silence: its relay may be dead or cut off from it), so a dead relay costs its
//   subscribers their frames only until their silence shows (the client's `SILENCE_MS`), not
//   until the primary finds the backup quiet.
// Duplicates are harmless: deltas apply once by seq, beats carry no state, and POSITIONS
// streams are kept per sending host.
import { idToHex, type NodeId } from '../core/node-id';

/** What the plan reads of the primary's duty (primary-duty.ts; not DutyShared, which names the plan). */
export interface FanOutTerms {
  readonly ctx: { readonly selfHex: string };
  readonly subscribers: ReadonlyMap<string, { id: NodeId }>;
  /** The certificate's hosts but us. */
  backups(): NodeId[];
}

/** Past this many subscribers, backups serve a share of them. */
export const SHARE_ABOVE = 24;
/** The primary goes on serving a subscriber it moved to a backup this long. */
export const HANDOVER_MS = 1000;
/** A subscriber that said it missed frames is served by the primary itself this long. */
export const RESCUE_MS = 3000;
/** A backup that answered no beat for this long gets no share (the host set keeps it until backupQuietMs). */
export const SHARE_QUIET_MS = 500;
/**
 * The primary's share of the subscribers, against a backup's 1: on top of its share it sends
 * the FEEDs, the replication, the keepalives' snapshots and every subscriber's beat now and
 * then, and it serves the subscribers looking in from next door (about 80 kB/s in a crowd of
 * 200, measured), so an even split made it the busiest peer. 0.75 left it ~55 kB/s above the
 * backups there once their positions cost less (312 against 256). At 0.6, with PENDINGs
 * riding in POSITIONS and lost streams no longer restarted, a backup was
 * the busiest (250.9 and 259.9 kB/s in two runs, ~3.3 kB/s a subscriber) and the
 * primary at most 235.
 */
export const PRIMARY_WEIGHT = 0.7;
/** Every this many beats, the primary's beat goes to every subscriber, relayed or not. */
export const ALL_BEATS_EVERY = 4;
/**
 * Up to this many subscribers, the primary sends each PENDING itself, at once and alone, to
 * every subscriber it holds a link to, also to those a backup serves (the backup's copy,
 * riding in its next POSITIONS, is a harmless duplicate). A PENDING is the latency path of an
 * edit to every observer: relayed it is three legs and up to a tick (primary, backup,
 * subscriber), ridden a tick more, and at 50 ms one way the 150 ms target fits two legs only
 * (docs/HOSTING.md "Pending edits"). It is
 * small (~50 bytes an edit); what a crowd shares out is the positions. A random walk of two
 * players a region gives ~18 subscribers a region, a few past SHARE_ABOVE; a crowd (100, 200)
 * is far past this, and keeps its PENDINGs riding and relayed.
 */
export const PENDING_ALONE_UP_TO = 48;

export class FanOutPlan {
  /** Backup hex -> the subscribers it serves (only backups with a share). */
  private byBackup = new Map<string, { id: NodeId; subs: NodeId[] }>();
  /** Subscribers (hex) the primary serves by the plan. */
  private mine = new Set<string>();
  /** Subscribers the primary also serves until then (handover, rescue). */
  private readonly until = new Map<string, number>();

  constructor(
    private readonly duty: FanOutTerms,
    /** A backup that answered a frame of this duty within the last `ms` (primary-lease.ts). */
    private readonly following: (hex: string, ms: number) => boolean,
  ) {}

  /** Re-plans (each tick): the live backups, the subscribers, each by its id. */
  plan(now: number): void {
    const d = this.duty;
    const backups = d.backups().filter((b) => this.following(idToHex(b), SHARE_QUIET_MS));
    const share = d.subscribers.size > SHARE_ABOVE && backups.length > 0;
    const hosts = [d.ctx.selfHex, ...backups.map(idToHex)];
    const byBackup = new Map<string, { id: NodeId; subs: NodeId[] }>();
    const mine = new Set<string>();
    for (const [hex, s] of d.subscribers) {
      const i = share ? hostFor(parseInt(hex.slice(0, 8), 16) / 2 ** 32, hosts.length) : 0;
      if (i === 0) {
        mine.add(hex);
        continue;
      }
      const b = hosts[i]!;
      let e = byBackup.get(b);
      if (!e) byBackup.set(b, (e = { id: backups[i - 1]!, subs: [] }));
      e.subs.push(s.id);
      if (this.mine.has(hex)) this.until.set(hex, Math.max(this.until.get(hex) ?? -Infinity, now + HANDOVER_MS));
    }
    for (const [hex, t] of this.until) if (t <= now || !d.subscribers.has(hex)) this.until.delete(hex);
    this.mine = mine;
    this.byBackup = byBackup;
    this.shared = share;
  }

  /** The fan-out is shared (a crowd): deltas and beats wait for the tick to ride in POSITIONS frames (player-outbox.ts). */
  shared = false;

  /** Whether we send this subscriber its deltas and beats ourselves. */
  direct(hex: string, now: number): boolean {
    return this.mine.has(hex) || (this.until.get(hex) ?? -Infinity) > now;
  }

  /**
   * The subscribers few enough (PENDING_ALONE_UP_TO) for the primary to send every PENDING
   * itself, at once, to each it holds a link to (`linked`), shared fan-out or not.
   */
  pendingAlone(): boolean {
    return this.duty.subscribers.size <= PENDING_ALONE_UP_TO;
  }

  /** Whether we send this subscriber its positions ourselves (if it stands in the region: positions-duty.ts). */
  positions(hex: string): boolean {
    return this.mine.has(hex);
  }

  /** The subscriber missed frames: we serve it ourselves for RESCUE_MS (whoever else does). */
  rescue(hex: string, now: number): void {
    if (!this.mine.has(hex)) this.until.set(hex, now + RESCUE_MS);
  }

  /** The subscribers a backup serves (none when it has no share). */
  servedBy(hex: string): NodeId[] {
    return this.byBackup.get(hex)?.subs ?? [];
  }

  /** The backups serving a share: each gets every committed delta once, to relay. */
  relays(): NodeId[] {
    return [...this.byBackup.values()].map((e) => e.id);
  }
}

/**
 * Which of `n` hosts (0: the primary, weighted PRIMARY_WEIGHT; the backups 1 each) serves the
 * subscriber at `u` in [0, 1) (from its id: a subscriber stays with its host while the set does).
 */
export function hostFor(u: number, n: number): number {
  const x = u * (PRIMARY_WEIGHT + n - 1);
  return x < PRIMARY_WEIGHT ? 0 : Math.min(n - 1, 1 + Math.floor(x - PRIMARY_WEIGHT));
}
