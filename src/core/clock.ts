// Time is injected everywhere (docs/STYLE.md, hyperdht): the tab uses the real clock, the
// simulator a virtual one, so 10,000 nodes and an hour of churn run in minutes.

export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds, monotonic within one clock. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Calls fn every `ms` on the given clock until the returned stop function is called. */
export function every(clock: Clock, ms: number, fn: () => void): () => void {
  let handle: TimerHandle;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    handle = clock.setTimeout(tick, ms);
    fn();
  };
  handle = clock.setTimeout(tick, ms);
  return () => {
    stopped = true;
    clock.clearTimeout(handle);
  };
}

/** `p`'s value, or undefined once `ms` passed on `clock` first (the wait is bounded; `p` runs on). */
export function within<T>(clock: Clock, p: Promise<T>, ms: number): Promise<T | undefined> {
  let handle: TimerHandle;
  return Promise.race([p, new Promise<undefined>((resolve) => (handle = clock.setTimeout(() => resolve(undefined), ms)))]).finally(() => clock.clearTimeout(handle));
}
