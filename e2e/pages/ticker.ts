// Test-only page script: runs the hosting WorkerTicker next to a plain main-thread
// setInterval at the same rate and records every tick, so a test can count each while
// the page is hidden. Exposed as window.vpTicker.
import { WorkerTicker } from '../../src/app/worker-ticker';

export interface TickCounts {
  worker: number;
  main: number;
  /** Ticks while document.visibilityState was 'hidden'. */
  workerHidden: number;
  mainHidden: number;
}

export interface VpTicker {
  start(hz: number): void;
  stop(): void;
  /** Counts of ticks at or after `sinceMs` (performance.now() clock). */
  counts(sinceMs: number): TickCounts;
  now(): number;
  visibility(): DocumentVisibilityState;
  /** Visibility changes seen: [performance.now(), state]. */
  changes(): [number, string][];
  workerFallback(): boolean;
}

declare global {
  interface Window {
    vpTicker: VpTicker;
  }
}

const worker: [number, boolean][] = [];
const main: [number, boolean][] = [];
const changes: [number, string][] = [];
const ticker = new WorkerTicker();
let stops: (() => void)[] = [];
document.addEventListener('visibilitychange', () => changes.push([performance.now(), document.visibilityState]));

window.vpTicker = {
  start(hz) {
    const hidden = () => document.visibilityState === 'hidden';
    stops.push(ticker.start(hz, () => worker.push([performance.now(), hidden()])));
    const h = setInterval(() => main.push([performance.now(), hidden()]), 1000 / hz);
    stops.push(() => clearInterval(h));
  },
  stop() {
    for (const s of stops) s();
    stops = [];
  },
  counts(since) {
    const w = worker.filter(([t]) => t >= since), m = main.filter(([t]) => t >= since);
    return { worker: w.length, main: m.length, workerHidden: w.filter(([, h]) => h).length, mainHidden: m.filter(([, h]) => h).length };
  },
  now: () => performance.now(),
  visibility: () => document.visibilityState,
  changes: () => changes.slice(),
  workerFallback: () => ticker.stats.fallback,
};
document.getElementById('log')!.textContent = 'ticker test page ready';
