// Worker side of WorkerTicker: dedicated workers' timers are not throttled like a hidden
// page's main-thread timers, so this is where hosting ticks are paced. Every rate's ticks
// fall on multiples of its period (from the worker's time origin), so ticks of different
// rates that fall together (40 Hz sweeps, 20 Hz ticks, 10 Hz beats) leave in one message:
// one task on the page instead of one per rate. One timer, armed for the next due tick; a
// rate aims at n * period, so it does not drift, and after a stall it skips the ticks it
// missed rather than firing a burst.
import type { TickerCommand, TickerTick } from './worker-ticker';

interface Rate { period: number; next: number }
const rates = new Map<number, Rate>();
const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<TickerCommand>) => void) | null; postMessage(m: TickerTick): void };
let handle: ReturnType<typeof setTimeout> | undefined;
/** Ticks this close together go in one message (a timer fires a little late anyway). */
const TOGETHER_MS = 2;

function arm(): void {
  clearTimeout(handle);
  let next = Infinity;
  for (const r of rates.values()) next = Math.min(next, r.next);
  if (next === Infinity) return;
  handle = setTimeout(fire, Math.max(0, next - performance.now()));
}

function fire(): void {
  const now = performance.now();
  const ids: number[] = [];
  for (const [id, r] of rates) {
    if (r.next > now + TOGETHER_MS) continue;
    ids.push(id);
    r.next += r.period;
    if (r.next <= now) r.next = firstAfter(now, r.period); // stalled (machine asleep): do not burst
  }
  if (ids.length) scope.postMessage({ ids, at: now });
  arm();
}

function firstAfter(now: number, period: number): number {
  return (Math.floor(now / period) + 1) * period;
}

scope.onmessage = (e) => {
  const m = e.data;
  if (m.op === 'start') {
    const period = 1000 / m.hz;
    rates.set(m.id, { period, next: firstAfter(performance.now(), period) });
  } else {
    rates.delete(m.id);
  }
  arm();
};
