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
