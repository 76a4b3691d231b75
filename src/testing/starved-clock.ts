// A clock whose timers fire late, as a tab's main thread fires them while it draws frames
// in software (the failover_crash bench's editor: its 100 ms timer fired 600-1,300 ms apart
// around crashes). Time itself runs on; a timer's callback runs at the first of the thread's
// turns (every `turnMs` on the underlying clock) once it is due. Frames that reach the tab
// are handled on the underlying clock: the test asks what waits for a timer.
import type { Clock, TimerHandle } from '../core/clock';

export function starvedClock(base: Clock, turnMs: number): Clock {
  return {
    now: () => base.now(),
    setTimeout: (fn: () => void, ms: number): TimerHandle => {
      const due = base.now() + Math.max(0, ms);
      const turn = Math.ceil(due / turnMs) * turnMs;
      return base.setTimeout(fn, turn - base.now());
    },
    clearTimeout: (h: TimerHandle) => base.clearTimeout(h),
  };
}

/**
 * A saturated tab's main thread, switched on for a while: it runs long tasks back to back
 * (each `minMs`-`maxMs`, drawn at random: a software-drawn frame, a GC, a signature check),
 * and everything that comes due during one, a timer or a frame that reached the tab, runs
 * when that task ends. So each is late by 0 to `maxMs`, in the order it came due (a task's
 * end is the same for all that wait on it): timers keep their order and a link's frames
 * theirs. Outside a starved spell `turnOf` is the time itself and the clock passes straight
 * through, so a peer that is never starved runs exactly as on the underlying clock.
 */
export class StarvedTurns {
  /** Ends of the long tasks of the spells so far, in order (queries are never for a time before now). */
  private ends: number[] = [];

  constructor(
    private readonly base: Clock,
    private readonly rand: () => number,
  ) {}

  /** Starves the thread from now for `ms`: tasks of `minMs`-`maxMs` back to back (the last may run past the spell). */
  starve(ms: number, minMs = 50, maxMs = 400): void {
    const now = this.base.now();
    const from = Math.max(now, this.ends.at(-1) ?? -Infinity);
    this.ends = this.ends.filter((t) => t >= now);
    for (let t = from; t < now + ms;) {
      t += minMs + this.rand() * (maxMs - minMs);
      this.ends.push(Math.round(t));
    }
  }

  /** When something due at `t` runs: the end of the task under way then, or `t` itself outside a spell. */
  turnOf(t: number): number {
    const ends = this.ends;
    if (ends.length === 0 || t > ends.at(-1)!) return t;
    // Binary search for the first end >= t.
    let lo = 0, hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! >= t) hi = mid;
      else lo = mid + 1;
    }
    return ends[lo]!;
  }

  /** The thread's clock: a timer runs at the turn it comes due in. */
  clock(): Clock {
    return {
      now: () => this.base.now(),
      setTimeout: (fn: () => void, ms: number): TimerHandle => {
        const now = this.base.now();
        const due = now + Math.max(0, ms);
        const turn = this.turnOf(due);
        return this.base.setTimeout(fn, turn === due ? ms : turn - now);
      },
      clearTimeout: (h: TimerHandle) => this.base.clearTimeout(h),
    };
  }
}
