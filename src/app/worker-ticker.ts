// A Ticker (src/core/ticker.ts) for tabs: browsers throttle a hidden tab's main-thread
// timers to about one wake-up a second (and to one a minute after a few minutes), which
// would starve a chunk host's 20 Hz tick; a dedicated worker's timers are not throttled
// that way, and its messages wake the page's main thread. So the worker keeps the time and
// posts a message per tick; the page runs the tick function.
// e2e/hidden-host.test.ts measures both in a hidden Chromium tab.
import { clockTicker, type Ticker } from '../core/ticker';
import { realClock } from '../core/clock';

export type TickerCommand = { op: 'start'; id: number; hz: number } | { op: 'stop'; id: number };
/** The rates (their ids) whose ticks fell due together. */
export interface TickerTick { ids: number[]; at: number }

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

/** The tick sources of one rate: one worker timer (or fallback timer) runs them all in one task. */
interface RateGroup {
  hz: number;
  /** The worker's timer id for this group. */
  wid: number;
  runs: Map<number, () => void>;
  stopFallback?: () => void;
}

/**
 * Sources of one rate share one timer and one message: a hosting tab ticks every region it
 * is primary of at 20 Hz, and one message per region per tick was a main-thread task each
 * (7 regions: 140 tasks a second); in one task, the frames the regions send to a peer also
 * leave in one data-channel write (webrtc-link.ts batches per task).
 */
export class WorkerTicker implements Ticker {
  readonly stats: WorkerTickerStats = { ticks: 0, errors: 0, fallback: false };
  private worker: TickerWorkerLike | null = null;
  private readonly groups = new Map<number, RateGroup>();
  private readonly byWid = new Map<number, RateGroup>();
  private nextId = 1;
  private readonly fallback = clockTicker(realClock);

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
    let g = this.groups.get(hz);
    if (!g) {
      g = { hz, wid: this.nextId++, runs: new Map() };
      this.groups.set(hz, g);
      this.byWid.set(g.wid, g);
      const w = this.ensureWorker();
      if (w) w.postMessage({ op: 'start', id: g.wid, hz });
      else g.stopFallback = this.fallback.start(hz, () => this.runGroup(g!));
    }
    g.runs.set(id, run);
    const group = g;
    return () => {
      if (!group.runs.delete(id) || group.runs.size > 0) return;
      // The last source of this rate: its timer goes.
      this.groups.delete(hz);
      this.byWid.delete(group.wid);
      group.stopFallback?.();
      if (!group.stopFallback) this.worker?.postMessage({ op: 'stop', id: group.wid });
    };
  }

  /** Stops every source and the worker. */
  dispose(): void {
    for (const g of this.groups.values()) g.stopFallback?.();
    this.groups.clear();
    this.byWid.clear();
    this.worker?.terminate();
    this.worker = null;
  }

  private runGroup(g: RateGroup): void {
    // A source stopped by an earlier one in this tick does not run.
    for (const [id, run] of [...g.runs]) if (g.runs.has(id)) run();
  }

  private ensureWorker(): TickerWorkerLike | null {
    if (this.worker || this.stats.fallback) return this.worker;
    try {
      const w = this.createWorker();
      w.onmessage = (e) => {
        for (const id of e.data.ids) {
          const g = this.byWid.get(id);
          if (g) this.runGroup(g);
        }
      };
      w.onerror = (e) => {
        // A worker that fails to load: move every running rate to main-thread timers.
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
    // The groups keep their ids: their stop functions now stop the fallback timers.
    for (const g of this.groups.values()) if (!g.stopFallback) g.stopFallback = this.fallback.start(g.hz, () => this.runGroup(g));
  }
}
