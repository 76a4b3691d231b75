// How slow the primary a backup follows has been lately, and so how long its silence must
// last before the backup takes it for dead. A crashed tab says nothing; a starved one (two
// tabs on a busy machine, a phone, a CPU-throttled tab) says everything late, in gaps of
// hundreds of milliseconds. With one fixed limit (failoverMs, 600 ms) two starved tabs took
// each other for dead and claimed the regions between them in turn for minutes
// (e2e/invite-render beside two CPU hogs: 82 and 86 claims, 69 and 76 failed). So a backup
// waits `factor` times the longest gap it saw between its primary's frames lately (halving
// every halfLifeMs), never less than failoverMs nor more than maxMs. A primary that always
// beat on time keeps failoverMs: a crash is taken over as fast as before. Safety does not
// move: the backups' refusal window (failoverMs / 2 after hearing the primary) and the
// primary's lease are unchanged; only when a slow primary's backups claim.
export interface PaceOptions {
  failoverMs: number;
  /** The silence allowed, in multiples of the primary's longest recent gap. */
  slowPrimaryFactor: number;
  /** Most silence allowed however slow the primary was (a dead slow primary is still taken over). */
  slowPrimaryMaxMs: number;
  /** A long gap counts half as much after this long. */
  slowPrimaryHalfLifeMs: number;
}

export class PrimaryPace {
  private last = -Infinity;
  private gap = 0;
  private gapAt = -Infinity;

  constructor(private readonly o: PaceOptions) {}

  /** A frame from the primary at `now`; `idle`: it had said it beats slowly (its gap is no slowness). */
  heard(now: number, idle: boolean): void {
    if (this.last > -Infinity && !idle) {
      const gap = now - this.last;
      if (gap > this.recentGap(now)) {
        this.gap = gap;
        this.gapAt = now;
      }
    }
    this.last = now;
  }

  /** A new primary (or epoch): its pace is unknown again. */
  reset(): void {
    this.last = -Infinity;
    this.gap = 0;
    this.gapAt = -Infinity;
  }

  /** The longest recent gap, decayed by its age. */
  recentGap(now: number): number {
    return this.gap === 0 ? 0 : this.gap * 0.5 ** ((now - this.gapAt) / this.o.slowPrimaryHalfLifeMs);
  }

  /** How long a silence means death now; `alive`: the primary answers at the transport (primary-transport.ts), so slowPrimaryMaxMs. */
  silenceLimit(now: number, alive = false): number {
    if (alive) return this.o.slowPrimaryMaxMs;
    return Math.min(this.o.slowPrimaryMaxMs, Math.max(this.o.failoverMs, this.o.slowPrimaryFactor * this.recentGap(now)));
  }
}
