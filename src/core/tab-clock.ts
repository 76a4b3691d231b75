// The Clock of a tab. A hidden tab's main-thread timers fire about once a second, which
// would stretch the DHT's and the hosts' heartbeats and timeouts past failover limits
// and make a background host look dead. So timers are kept here, earliest first, and fired
// by whichever comes first: one native setTimeout armed for the earliest (precise while
// visible), or a sweep on each tick of the worker ticker (not throttled when hidden).
//
// One native timer for all of them, not one each: a hosting tab keeps hundreds of timers
// (heartbeats, RPC and claim timeouts, retries), and every native timer is a task of its own
// plus a call into the browser to arm and clear it; timers due together now run in one task,
// so the frames they send also leave in one data-channel write (webrtc-link.ts batches per task).
import type { Clock, TimerHandle } from './clock';
import type { Ticker } from './ticker';
import { TimerHeap } from './timer-heap';

interface Timer {
  due: number;
  /** Order of arming: timers due at the same time fire in the order they were set. */
  seq: number;
  fn: () => void;
  done: boolean;
}

/** Sweeps per second: the resolution of timers while the tab is hidden. */
export const TAB_CLOCK_SWEEP_HZ = 40;

/** Whether the page is hidden, and news of a change (a page's: ui/page-visibility.ts). */
export interface PageVisibility {
  readonly hidden: boolean;
  onChange(fn: () => void): void;
}

const before = (a: Timer, b: Timer): boolean => a.due < b.due || (a.due === b.due && a.seq < b.seq);

export class TabClock implements Clock {
  /** Earliest (due, seq) first; cleared timers stay until they reach the top. */
  private readonly heap = new TimerHeap<Timer>(before);
  private live = 0;
  private seq = 0;
  private native: ReturnType<typeof setTimeout> | undefined;
  /** When the armed native timeout is due (Infinity: none armed). */
  private nativeDue = Infinity;
  private firing = false;
  private stopSweep: (() => void) | undefined;
  private stopped = false;
  /** Timers fired by the worker sweep rather than the native timeout (hidden-tab work). */
  sweptFires = 0;
  /** Native timeouts armed (the cost this clock saves: one per timer before). */
  nativeArms = 0;

  /**
   * With `visibility`, the worker sweeps only while the page is hidden: a visible page's
   * native timeout is on time, and 40 sweeps a second were 40 main-thread tasks a second of
   * a tab that hosts nothing. Without it (tests), always.
   */
  constructor(private readonly ticker: Ticker, private readonly base: { now(): number } = performance, visibility?: PageVisibility) {
    if (!visibility) {
      this.sweepWhile(true);
      return;
    }
    this.sweepWhile(visibility.hidden);
    visibility.onChange(() => this.sweepWhile(visibility.hidden));
  }

  private sweepWhile(on: boolean): void {
    if (on && !this.stopSweep && !this.stopped) this.stopSweep = this.ticker.start(TAB_CLOCK_SWEEP_HZ, () => this.run(this.now(), true));
    if (!on && this.stopSweep) {
      this.stopSweep();
      this.stopSweep = undefined;
      // Becoming visible: what the hidden page's throttled timeout holds back fires now.
      this.run(this.now(), false);
    }
  }

  now(): number {
    return this.base.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t: Timer = { due: this.now() + Math.max(0, ms), seq: this.seq++, fn, done: false };
    this.heap.push(t);
    this.live++;
    if (!this.firing && t.due < this.nativeDue) this.arm();
    return t;
  }

  clearTimeout(handle: TimerHandle): void {
    const t = handle as Timer | undefined;
    if (!t || t.done) return;
    t.done = true;
    this.live--;
    // Cleared timers wait in the heap for their turn; when they are most of it, rebuild.
    if (this.heap.size > 64 && this.live < this.heap.size / 2) this.heap.retain((x) => !x.done);
  }

  get pending(): number {
    return this.live;
  }

  stop(): void {
    this.stopped = true;
    this.stopSweep?.();
    this.stopSweep = undefined;
    clearTimeout(this.native);
    this.nativeDue = Infinity;
  }

  /** Fires every live timer due by `until`, earliest first, then arms the native timeout for the next. */
  private run(until: number, swept: boolean): void {
    if (this.firing) return;
    this.firing = true;
    // A timer set by one that fires now runs in a later task, as a native one would.
    const setBefore = this.seq;
    try {
      for (let top = this.heap.peek(); top && top.due <= until && top.seq < setBefore; top = this.heap.peek()) {
        this.heap.pop();
        if (top.done) continue;
        top.done = true;
        this.live--;
        if (swept) this.sweptFires++;
        try {
          top.fn();
        } catch (e) {
          // Each timer was its own task: one that throws must not hold back the others.
          queueMicrotask(() => {
            throw e;
          });
        }
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  }

  /** The native timeout for the earliest live timer (re-armed only when that changes). */
  private arm(): void {
    while (this.heap.peek()?.done) this.heap.pop();
    const next = this.heap.peek()?.due ?? Infinity;
    if (next === this.nativeDue) return;
    clearTimeout(this.native);
    this.nativeDue = next;
    if (next === Infinity) return;
    this.nativeArms++;
    // A native timeout may fire a little before `now()` reaches its due: it fires what it was armed for.
    this.native = setTimeout(() => {
      this.nativeDue = Infinity;
      this.run(Math.max(this.now(), next), false);
    }, Math.max(0, next - this.now()));
  }
}
