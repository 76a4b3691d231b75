// The pace at which this client sends a region's edits to its hosts: a token bucket per
// region under the rate the primary allows each player (region/edit-rate.ts), and, past it,
// the edits wait here in the order they were made and go one by one as tokens come.
//
// Why here and not at the host: the edits a player made while its region had no primary
// (and those sent to a primary that had died) go to the next primary together when the
// region attaches, and a burst beyond the primary's rate was refused 'rate' (the
// failover_crash bench: 62 such refusals in 20 crashes at 10 edits a second). The host
// cannot tell that backlog from a flood: nothing in an EDIT says when it was made that the
// player could not forge, so a rule that let through "a backlog that was within rate when
// made" would let a hostile player send any flood as one. The host's rule stays as it was;
// the honest client keeps under it.
//
// Under it with a margin (submitted-edits.ts EDIT_PACE): a primary's bucket for us starts full
// with its duty (each new epoch) and is charged only by edits that left here for that duty,
// so it holds at least what ours holds, unless edits reach it closer together than they left
// (a link's delay that eases, a busy primary that reads several at once, or orders them at
// one tick); the margin covers that much. Ours starts again with each new duty too
// (`restart`): charged for the sends to the primaries before it (the dead one's included),
// a failover's backlog after a second re-attach in a row went out at the sustained pace,
// one edit every 60 ms, while the new primary's bucket was full.
import type { Clock, TimerHandle } from '../core/clock';
import { TokenBucket } from '../core/token-bucket';

export interface EditPace {
  /** Edits a second, sustained. */
  perSec: number;
  /** Edits that may go at once after a quiet while. */
  burst: number;
}

/** Regions whose buckets are kept while full (a full bucket is as good as none). */
const MAX_BUCKETS = 64;

export class EditPacer {
  private readonly buckets = new Map<string, TokenBucket>();
  /** Held edits (request ids) per region, in the order they were held. */
  private readonly held = new Map<string, Set<number>>();
  private timer: TimerHandle | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly pace: EditPace,
    /** Sends held edit `r` now (its token spent); called in the order the region's edits were held. */
    private readonly release: (r: number) => void,
  ) {}

  /** True when edit `r` of `region` may go now (a token spent); else it is held until `release(r)`. */
  admit(region: string, r: number): boolean {
    this.poll();
    const now = this.clock.now();
    const ids = this.held.get(region);
    if (ids) {
      // Behind the region's held edits, never ahead: a later edit of a block must not overtake an earlier one.
      ids.add(r);
      return false;
    }
    const b = this.bucket(region, now);
    if (b.take(1, now)) return true;
    this.held.set(region, new Set([r]));
    this.wake(now + b.msUntil(1, now));
    return false;
  }

  /** Edit `r` of `region` waits no more (settled, or to be sent again to another host). */
  drop(region: string, r: number): void {
    const ids = this.held.get(region);
    if (ids?.delete(r) && ids.size === 0) this.held.delete(region);
  }

  /** Every edit of `region` waits no more. */
  dropRegion(region: string): void {
    this.held.delete(region);
  }

  /**
   * The region's edits go to a new primary duty from now on, whose rate for us starts full
   * (the host keeps it per duty: host/commit-pipeline.ts makes an edit-validator.ts for each):
   * the region's bucket starts full again, less `spent` edits sent to that host lately, and
   * nothing of the region is held (the caller sends its edits again, in order).
   */
  restart(region: string, spent: number): void {
    this.held.delete(region);
    this.buckets.delete(region);
    const now = this.clock.now();
    this.bucket(region, now).take(Math.min(spent, this.pace.burst), now);
  }

  /** Whether edit `r` of `region` is held. */
  holds(region: string, r: number): boolean {
    return this.held.get(region)?.has(r) ?? false;
  }

  /**
   * Sends the held edits whose tokens came, if our timer is late: a tab busy drawing fires
   * its timers hundreds of ms late (the failover_crash bench's editor: 600-1,300 ms apart),
   * and the part of a failover's backlog past the burst waited for that late timer. Called
   * on every edit and every answer (submitted-edits.ts), events a busy tab still handles.
   */
  poll(): void {
    if (this.timer === undefined || this.clock.now() < this.timerAt) return;
    this.clock.clearTimeout(this.timer);
    this.flush();
  }

  close(): void {
    this.held.clear();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private bucket(region: string, now: number): TokenBucket {
    let b = this.buckets.get(region);
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) {
        for (const [name, old] of this.buckets) if (!this.held.has(name) && old.msUntil(this.pace.burst, now) === 0) this.buckets.delete(name);
      }
      this.buckets.set(region, (b = new TokenBucket(this.pace.perSec, this.pace.burst, now)));
    }
    return b;
  }

  private wake(at: number): void {
    if (at >= this.timerAt) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => this.flush(), Math.max(0, at - this.clock.now()));
  }

  private flush(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [region, ids] of this.held) {
      const b = this.bucket(region, now);
      for (const r of ids) {
        if (!b.take(1, now)) break;
        ids.delete(r);
        this.release(r);
      }
      if (ids.size === 0) this.held.delete(region);
      else next = Math.min(next, now + b.msUntil(1, now));
    }
    if (next < Infinity) this.wake(next);
  }
}
