// A deterministic virtual clock for tests and the simulator: timers sit in a binary
// heap ordered by (time, insertion sequence), so equal-time timers fire in the order
// they were set and a run is reproducible. `advance` drains pending promise
// continuations between distinct instants, so async code (RPCs awaiting replies)
// behaves as it would on the real clock, only without waiting.
import type { Clock, TimerHandle } from './clock';

interface Timer {
  at: number;
  seq: number;
  fn: (() => void) | null;
}

/** Yields to the macrotask queue so every queued microtask (promise continuation) runs. */
const drainMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class VirtualClock implements Clock {
  private heap: Timer[] = [];
  private seq = 0;
  private time: number;
  private live = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t: Timer = { at: this.time + Math.max(0, ms || 0), seq: this.seq++, fn };
    this.push(t);
    this.live++;
    return t;
  }

  clearTimeout(handle: TimerHandle): void {
    const t = handle as Timer | undefined;
    if (t && t.fn) {
      t.fn = null; // lazy deletion: the heap drops it when it reaches the top
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

  private fire(t: Timer): void {
    this.pop();
    this.time = Math.max(this.time, t.at);
    const fn = t.fn!;
    t.fn = null;
    this.live--;
    fn();
  }

  private peekLive(): Timer | undefined {
    while (this.heap.length > 0 && this.heap[0]!.fn === null) this.pop();
    return this.heap[0];
  }

  private less(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(t: Timer): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
