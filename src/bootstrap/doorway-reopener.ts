// A doorway (relay, PeerJS broker) that dropped or could not be reached is opened again
// with backoff, so the tab stays findable through it. Opening registers the tab's id
// there again (the connector does that), and the new connection is handed to `reopened`.
// Waits: the first is FIRST_WAIT_MS; each failed attempt, and each drop of a connection that
// lived less than STABLE_MS, doubles it up to MAX_WAIT_MS; a drop after a stable spell starts
// over at FIRST_WAIT_MS. Each wait is multiplied by a jitter factor. It never gives up: only
// `stop()` ends the attempts. DOM-free; clock, jitter and the connector injected.
import type { Clock, TimerHandle } from '../core/clock';
import type { Bootstrap } from '../net/bootstrap';
import type { DoorwaySpec } from './doorways';

/** First wait before re-opening a doorway; doubles up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 30_000;
/** A connection must stay up this long before the wait starts over (one that drops at once backs off). */
const STABLE_MS = 10_000;

export interface DoorwayReopenerArgs {
  clock: Clock;
  /** Opens the doorway and registers there; rejects when it cannot be reached. */
  open: (spec: DoorwaySpec) => Promise<Bootstrap>;
  /** A re-opened connection, to put in place of the dropped one. */
  reopened: (spec: DoorwaySpec, connection: Bootstrap) => void;
  /** An attempt failed; another follows after a longer wait. */
  failed?: (spec: DoorwaySpec, err: Error) => void;
  /** Factor applied to each wait (default 0.75 to 1.25, uniform). */
  jitter?: () => number;
}

interface Backoff {
  timer: TimerHandle | undefined;
  waitMs: number;
  openedAt: number;
}

export class DoorwayReopener {
  /** Doorway connections re-opened (after a drop or a failed first attempt). */
  reopens = 0;
  private readonly backoffs = new Map<DoorwaySpec, Backoff>();
  private stopped = false;

  constructor(private readonly args: DoorwayReopenerArgs) {}

  /** The wait before the next attempt at `spec` (before jitter). */
  nextWaitMs(spec: DoorwaySpec): number {
    return this.backoff(spec).waitMs;
  }

  /** The doorway's connection is up now (first time or again). */
  opened(spec: DoorwaySpec): void {
    this.backoff(spec).openedAt = this.args.clock.now();
  }

  /** The doorway's connection ended: open it again, after a longer wait unless it had been stable. */
  dropped(spec: DoorwaySpec): void {
    const b = this.backoff(spec);
    const stable = this.args.clock.now() - b.openedAt >= STABLE_MS;
    b.waitMs = stable ? FIRST_WAIT_MS : Math.min(MAX_WAIT_MS, b.waitMs * 2);
    this.retry(spec);
  }

  /** Tries `spec` again after the current wait (replacing an attempt already scheduled). */
  retry(spec: DoorwaySpec): void {
    if (this.stopped) return;
    const b = this.backoff(spec);
    this.args.clock.clearTimeout(b.timer);
    const factor = this.args.jitter ? this.args.jitter() : 0.75 + Math.random() * 0.5;
    b.timer = this.args.clock.setTimeout(() => {
      b.timer = undefined;
      this.attempt(spec, b);
    }, b.waitMs * factor);
  }

  /**
   * The network is back (a page's `online` event): every doorway waiting for its next
   * attempt is tried now, and its wait starts over at `firstMs`. After an outage of half a
   * minute the wait has grown to 8-30 s. (A connection not known to have dropped is left.)
   */
  retryNow(): void {
    if (this.stopped) return;
    for (const [spec, b] of this.backoffs) {
      if (b.timer === undefined) continue; // open, or an attempt under way
      this.args.clock.clearTimeout(b.timer);
      b.timer = undefined;
      b.waitMs = FIRST_WAIT_MS;
      this.attempt(spec, b);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const b of this.backoffs.values()) this.args.clock.clearTimeout(b.timer);
  }

  private attempt(spec: DoorwaySpec, b: Backoff): void {
    this.args.open(spec).then(
      (connection) => {
        if (this.stopped) return connection.close();
        this.reopens++;
        this.args.reopened(spec, connection);
      },
      (err: Error) => {
        this.args.failed?.(spec, err);
        b.waitMs = Math.min(MAX_WAIT_MS, b.waitMs * 2);
        this.retry(spec);
      },
    );
  }

  private backoff(spec: DoorwaySpec): Backoff {
    let b = this.backoffs.get(spec);
    if (!b) this.backoffs.set(spec, (b = { timer: undefined, waitMs: FIRST_WAIT_MS, openedAt: 0 }));
    return b;
  }
}
