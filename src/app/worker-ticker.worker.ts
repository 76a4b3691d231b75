// Worker side of WorkerTicker: dedicated workers' timers are not throttled like a hidden
// page's main-thread timers, so this is where hosting ticks are paced. One self-correcting
// timer per started tick source: it aims at start + n * period, so ticks do not drift, and
// after a stall it skips missed ticks rather than firing a burst.
import type { TickerCommand, TickerTick } from './worker-ticker';

interface Timer { period: number; next: number; handle: ReturnType<typeof setTimeout> | undefined }
const timers = new Map<number, Timer>();
const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<TickerCommand>) => void) | null; postMessage(m: TickerTick): void };

function arm(id: number, t: Timer): void {
  t.handle = setTimeout(() => {
    if (timers.get(id) !== t) return;
    const now = performance.now();
    if (now - t.next > 4 * t.period) t.next = now; // stalled (machine asleep): do not burst
    t.next += t.period;
    scope.postMessage({ id, at: now });
    arm(id, t);
  }, Math.max(0, t.next - performance.now()));
}

scope.onmessage = (e) => {
  const m = e.data;
  if (m.op === 'start') {
    const period = 1000 / m.hz;
    const t: Timer = { period, next: performance.now() + period, handle: undefined };
    timers.set(m.id, t);
    arm(m.id, t);
  } else {
    const t = timers.get(m.id);
    if (t) clearTimeout(t.handle);
    timers.delete(m.id);
  }
};
