// The binary min-heap both clocks keep their timers in (TabClock: timers by (due, order set);
// VirtualClock: the instants that hold timers). One heap, so an ordering fix is made once.
// The clocks give a total order (no two entries compare equal), so the order entries leave in
// does not depend on how the heap breaks ties: a run stays reproducible.
// Entries are moved into a hole rather than swapped pairwise: half the writes per level, and
// the clocks push and pop once per timer (or instant) of a whole simulation.

export class TimerHeap<T> {
  private items: T[] = [];

  /** `before(a, b)`: whether `a` leaves the heap before `b`. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  /** The entry that leaves next, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(x: T): void {
    const h = this.items;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(x, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = x;
  }

  /** Removes and returns the entry that leaves next (undefined when empty). */
  pop(): T | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) this.siftDown(0, last!);
    return top;
  }

  /** Keeps only the entries `keep` holds for, in heap order again (for lazily deleted entries). */
  retain(keep: (x: T) => boolean): void {
    this.items = this.items.filter(keep);
    const h = this.items;
    for (let i = (h.length >> 1) - 1; i >= 0; i--) this.siftDown(i, h[i]!);
  }

  /** Places `x` at `i` or below, moving earlier children up into the hole. */
  private siftDown(i: number, x: T): void {
    const h = this.items;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.before(h[r]!, h[l]!) ? r : l;
      if (!this.before(h[m]!, x)) break;
      h[i] = h[m]!;
      i = m;
    }
    h[i] = x;
  }
}
