// A host that judges others' silence must first be sure it was not the one asleep. A tab
// starved of CPU (a busy laptop, a throttled background tab) stalls: when it wakes, its
// periodic silence check may run before the frames that came in meanwhile (the ticker's
// message and the data channels' are separate task queues), so every primary it follows
// looks silent for the length of its own stall, and it claims regions whose primaries are
// alive. Those claims are refused (the other hosts heard the primary), but they cost a claim
// round each and can cost the live primary its lease. So after a gap in our own checks
// longer than `stallMs`, silence is not judged until `settleMs` of waking have let the
// queued frames land (docs/HOSTING.md "Slow versus dead").
export interface StallGuardOptions {
  /** A gap between two checks longer than this is our own stall (checks come every watchMs, 25). */
  stallMs: number;
  /** After a stall, judge nothing for this long. */
  settleMs: number;
}

export class StallGuard {
  private last = -Infinity;
  private wokeAt = -Infinity;
  /** Stalls of our own seen so far. */
  stalls = 0;

  constructor(private readonly o: StallGuardOptions) {}

  /** Called at each check: whether silence may be judged now. */
  check(now: number): boolean {
    const gap = now - this.last;
    this.last = now;
    if (gap > this.o.stallMs && gap !== Infinity) {
      this.stalls++;
      this.wokeAt = now;
    }
    return now - this.wokeAt >= this.o.settleMs;
  }

  /**
   * Whether silence may be judged now, without counting a check: for a judge off the checks'
   * own tick (a primary's lease at its beat). A gap since the last check longer than stallMs
   * is a stall the checks have not seen yet (the beat ran first in the task that woke us).
   * Before any check, true: nothing says we slept.
   */
  settled(now: number): boolean {
    if (this.last === -Infinity) return true;
    return now - this.last <= this.o.stallMs && now - this.wokeAt >= this.o.settleMs;
  }
}
