// A lone peer keeps looking for others: while `lonely()` holds, `search()` runs with
// backoff (1 s, doubling to 30 s, each wait times a jitter factor), until a search makes
// the peer not lonely; it starts over at the first wait the next time the peer is alone
// (`poke()`: the last link closed, the relay came back). DOM-free; clock and jitter injected.
import type { Clock, TimerHandle } from '../core/clock';

/** First wait before a search, once alone. */
const FIRST_WAIT_MS = 1000;
/** Longest wait between two searches. */
const MAX_WAIT_MS = 30_000;

export interface PeerFinderArgs {
  clock: Clock;
  /** True while the peer has nobody (no live link). */
  lonely: () => boolean;
  /** One search (ask the relay and known contacts for peers, dial them); errors are counted. */
  search: () => Promise<void> | void;
  /** Factor applied to each wait (default 0.75 to 1.25, uniform). */
  jitter?: () => number;
}

export class PeerFinder {
  /** Searches run, and of them those that threw. */
  searches = 0;
  failures = 0;
  private waitMs = FIRST_WAIT_MS;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private searching = false;

  constructor(private readonly args: PeerFinderArgs) {}

  /** The next wait before a search (before jitter). */
  get nextWaitMs(): number {
    return this.waitMs;
  }

  /** Something changed (a link closed, the relay is back): if alone, search again soon, from the first wait. */
  poke(): void {
    if (this.stopped) return;
    this.waitMs = FIRST_WAIT_MS;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.args.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.args.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || !this.args.lonely()) return;
    const factor = this.args.jitter ? this.args.jitter() : 0.75 + Math.random() * 0.5;
    this.timer = this.args.clock.setTimeout(() => void this.run(), this.waitMs * factor);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    if (this.stopped || this.searching) return;
    if (!this.args.lonely()) {
      this.waitMs = FIRST_WAIT_MS;
      return;
    }
    this.searching = true;
    this.searches++;
    try {
      await this.args.search();
    } catch {
      this.failures++;
    } finally {
      this.searching = false;
    }
    this.waitMs = Math.min(MAX_WAIT_MS, this.waitMs * 2);
    this.schedule();
  }
}
