// A fixed-rate tick source. Hosting ticks at 20 Hz even in a hidden tab, where browsers
// throttle main-thread timers to ~1 Hz; so the source is injected: the clock for Node and
// the simulator, a Web Worker's timer in a tab (src/app/worker-ticker.ts).
import { every, type Clock } from './clock';

export interface Ticker {
  /** Calls fn about `hz` times a second until the returned stop function is called. */
  start(hz: number, fn: () => void): () => void;
}

export function clockTicker(clock: Clock): Ticker {
  return { start: (hz, fn) => every(clock, 1000 / hz, fn) };
}
