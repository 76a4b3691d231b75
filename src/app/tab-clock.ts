// The Clock of a tab. A hidden tab's main-thread timers fire about once a second, which
// would stretch the DHT's and the hosts' heartbeats and timeouts past failover limits
// and make a background host look dead. So every timer is armed twice: a native
// setTimeout (precise while visible) and a sweep on each tick of the worker ticker
// (not throttled when hidden); whichever comes first fires it, once.
import type { Clock, TimerHandle } from '../core/clock';
import type { Ticker } from '../core/ticker';

interface Timer {
  due: number;
  fn: () => void;
  native: ReturnType<typeof setTimeout>;
  done: boolean;
}

/** Sweeps per second: the resolution of timers while the tab is hidden. */
export const TAB_CLOCK_SWEEP_HZ = 40;

export class TabClock implements Clock {
  private readonly timers = new Set<Timer>();
  private readonly stopSweep: () => void;
  /** Timers fired by the worker sweep rather than their own timeout (hidden-tab work). */
  sweptFires = 0;

  constructor(ticker: Ticker, private readonly base: { now(): number } = performance) {
    this.stopSweep = ticker.start(TAB_CLOCK_SWEEP_HZ, () => this.sweep());
  }

  now(): number {
    return this.base.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t: Timer = { due: this.now() + ms, fn, done: false, native: undefined as unknown as ReturnType<typeof setTimeout> };
    t.native = setTimeout(() => this.fire(t), ms);
    this.timers.add(t);
    return t;
  }

  clearTimeout(handle: TimerHandle): void {
    const t = handle as Timer | undefined;
    if (!t || t.done) return;
    t.done = true;
    clearTimeout(t.native);
    this.timers.delete(t);
  }

  get pending(): number {
    return this.timers.size;
  }

  stop(): void {
    this.stopSweep();
  }

  private sweep(): void {
    const now = this.now();
    for (const t of [...this.timers]) {
      if (t.due <= now) {
        this.sweptFires++;
        this.fire(t);
      }
    }
  }

  private fire(t: Timer): void {
    if (t.done) return;
    t.done = true;
    clearTimeout(t.native);
    this.timers.delete(t);
    t.fn();
  }
}
