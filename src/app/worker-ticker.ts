// A Ticker (src/core/ticker.ts) for tabs: browsers throttle a hidden tab's main-thread
// timers to about one wake-up a second (and to one a minute after a few minutes), which
// would starve a chunk host's 20 Hz tick; a dedicated worker's timers are not throttled
// that way, and its messages wake the page's main thread. So the worker keeps the time and
// posts a message per tick; the page runs the tick function.
// e2e/hidden-host.test.ts measures both in a hidden Chromium tab.
import { clockTicker, type Ticker } from '../core/ticker';
import { realClock } from '../core/clock';

export type TickerCommand = { op: 'start'; id: number; hz: number } | { op: 'stop'; id: number };
export interface TickerTick { id: number; at: number }

/** The slice of Worker used (tests may hand in a stand-in). */
export interface TickerWorkerLike {
  postMessage(m: TickerCommand): void;
  onmessage: ((e: MessageEvent<TickerTick>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
  terminate(): void;
}

export interface WorkerTickerStats {
  /** Ticks delivered, over every started source. */
  ticks: number;
  /** Tick functions that threw (the error is reported, the ticker keeps going). */
  errors: number;
  /** True when the worker could not be started and main-thread timers are used. */
  fallback: boolean;
}

function defaultWorker(): TickerWorkerLike {
  return new Worker(new URL('./worker-ticker.worker.ts', import.meta.url), { type: 'module', name: 'ticker' }) as unknown as TickerWorkerLike;
}

export class WorkerTicker implements Ticker {
  readonly stats: WorkerTickerStats = { ticks: 0, errors: 0, fallback: false };
  private worker: TickerWorkerLike | null = null;
  private readonly fns = new Map<number, { run: () => void; hz: number }>();
  private nextId = 1;
  private readonly fallback = clockTicker(realClock);
  private readonly fallbackStops = new Map<number, () => void>();

  /** `createWorker` defaults to the module worker next to this file. */
  constructor(private readonly createWorker: () => TickerWorkerLike = defaultWorker, private readonly onError: (e: unknown) => void = (e) => console.error(e)) {}

  start(hz: number, fn: () => void): () => void {
    if (!(hz > 0 && hz <= 1000)) throw new RangeError(`tick rate ${hz} Hz is out of range (0, 1000]`);
    const id = this.nextId++;
    const run = () => {
      this.stats.ticks++;
      try {
        fn();
      } catch (e) {
        this.stats.errors++;
        this.onError(e);
      }
    };
    const w = this.ensureWorker();
    if (w) {
      this.fns.set(id, { run, hz });
      w.postMessage({ op: 'start', id, hz });
    } else {
      this.fallbackStops.set(id, this.fallback.start(hz, run));
    }
    return () => {
      this.fallbackStops.get(id)?.();
      this.fallbackStops.delete(id);
      if (this.fns.delete(id)) this.worker?.postMessage({ op: 'stop', id });
    };
  }

  /** Stops every source and the worker. */
  dispose(): void {
    for (const stop of this.fallbackStops.values()) stop();
    this.fallbackStops.clear();
    this.fns.clear();
    this.worker?.terminate();
    this.worker = null;
  }

  private ensureWorker(): TickerWorkerLike | null {
    if (this.worker || this.stats.fallback) return this.worker;
    try {
      const w = this.createWorker();
      w.onmessage = (e) => this.fns.get(e.data.id)?.run();
      w.onerror = (e) => {
        // A worker that fails to load: move every running source to main-thread timers.
        this.onError(new Error(`ticker worker failed: ${e.message}`));
        this.toFallback();
      };
      this.worker = w;
    } catch (e) {
      this.onError(e);
      this.stats.fallback = true;
    }
    return this.worker;
  }

  private toFallback(): void {
    this.stats.fallback = true;
    this.worker?.terminate();
    this.worker = null;
    // The worker's ids keep working: their stop functions now stop the fallback timers.
    for (const [id, { run, hz }] of this.fns) this.fallbackStops.set(id, this.fallback.start(hz, run));
    this.fns.clear();
  }
}
