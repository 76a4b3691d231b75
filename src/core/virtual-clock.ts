// A deterministic virtual clock for tests and the simulator: timers fire in the order of
// (time, insertion), so equal-time timers fire in the order they were set and a run is
// reproducible. They sit in one FIFO queue per instant, the instants in a binary heap: a
// simulation sets most of its timers (each message's delivery) for a few hundred distinct
// milliseconds ahead, so a timer costs a push and a shift, and the heap holds instants,
// not timers (one heap of all timers was most of the hosting simulation's clock cost).
// `advance` drains pending promise continuations between distinct instants, so async code
// (RPCs awaiting replies) behaves as it would on the real clock, only without waiting.
import type { Clock, TimerHandle } from './clock';
import { TimerHeap } from './timer-heap';

interface Timer {
  at: number;
  fn: (() => void) | null;
}

/** The timers of one instant, in the order they were set; `head`: the next to fire. */
interface Instant {
  timers: Timer[];
  head: number;
}

/** Yields to the macrotask queue so every queued microtask (promise continuation) runs. */
const drainMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class VirtualClock implements Clock {
  /** Instants that hold timers, earliest first. */
  private readonly times = new TimerHeap<number>((a, b) => a < b);
  private readonly instants = new Map<number, Instant>();
  private time: number;
  private live = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t: Timer = { at: this.time + Math.max(0, ms || 0), fn };
    let q = this.instants.get(t.at);
    if (!q) {
      this.instants.set(t.at, (q = { timers: [], head: 0 }));
      this.times.push(t.at);
    }
    q.timers.push(t);
    this.live++;
    return t;
  }

  clearTimeout(handle: TimerHandle): void {
    const t = handle as Timer | undefined;
    if (t && t.fn) {
      t.fn = null; // lazy deletion: skipped when its instant comes
      this.live--;
    }
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.live;
  }

  /** Runs every timer due up to now + ms (synchronously; promise continuations do not run between timers). */
  advanceSync(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const t = this.peekLive();
      if (!t || t.at > end) break;
      this.fire(t);
    }
    this.time = end;
  }

  /** Runs every timer due up to now + ms, draining microtasks after each distinct instant. */
  async advance(ms: number): Promise<void> {
    await this.runUntil(() => false, ms);
  }

  /**
   * Advances until `done()` holds (checked after each instant) or `maxMs` of virtual time
   * passed. Returns true when `done()` held.
   */
  async runUntil(done: () => boolean, maxMs = Infinity): Promise<boolean> {
    const end = this.time + maxMs;
    await drainMicrotasks();
    if (done()) return true;
    for (;;) {
      const t = this.peekLive();
      if (!t || t.at > end) break;
      const at = t.at;
      // Fire everything due at this instant, then let promise continuations run.
      for (;;) {
        const u = this.peekLive();
        if (!u || u.at !== at) break;
        this.fire(u);
      }
      await drainMicrotasks();
      if (done()) return true;
    }
    if (end !== Infinity) this.time = end;
    return done();
  }

  /** Fires `t`, the first live timer of the earliest instant (peekLive's answer). */
  private fire(t: Timer): void {
    this.instants.get(t.at)!.head++;
    this.time = Math.max(this.time, t.at);
    const fn = t.fn!;
    t.fn = null;
    this.live--;
    fn();
  }

  /** The next timer to fire, or undefined; drops cleared timers and spent instants on the way. */
  private peekLive(): Timer | undefined {
    for (let at = this.times.peek(); at !== undefined; at = this.times.peek()) {
      const q = this.instants.get(at)!;
      while (q.head < q.timers.length && q.timers[q.head]!.fn === null) q.head++;
      if (q.head < q.timers.length) return q.timers[q.head];
      this.instants.delete(at);
      this.times.pop();
    }
    return undefined;
  }
}
