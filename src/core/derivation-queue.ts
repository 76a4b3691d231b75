// Derivations of node keys (one scrypt each, key-ids.ts) that wait their turn instead of
// being refused: a token bucket bounds the CPU, and a caller past it waits in line, first
// come first served, rather than having its key judged unproven. For keys whose callers are
// bounded in number by something dearer than the scrypt: the link handshake's, where each
// caller is a WebRTC connection that reached its HELLO (net/link-handshake.ts). There, a
// refusing budget let a flood of fresh keys refuse every honest dialler for as long as it
// lasted; a line lets the flood take its share of the turns, and the honest dialler waits
// behind at most the connections open at once. A caller whose connection died meanwhile
// leaves the line without spending a turn (`alive`), so the line holds only live callers.
import { realClock, type Clock, type TimerHandle } from './clock';
import { TokenBucket } from './token-bucket';

export interface DerivationQueueOptions {
  /** Turns given a second, and at once (the bucket's burst). */
  perSec: number;
  burst: number;
  /** Callers waiting at once; past it a caller is refused (`stats.refused`): a bound on memory only, above the callers that can be alive at once. */
  maxWaiting: number;
}

interface Waiter {
  alive: () => boolean;
  since: number;
  resolve: (turn: boolean) => void;
}

export class DerivationQueue {
  /** Turns given at once, after a wait; callers refused (the line full) or gone before their turn; the longest wait given (ms). */
  readonly stats = { immediate: 0, waited: 0, refused: 0, abandoned: 0, longestWaitMs: 0 };
  private readonly bucket: TokenBucket;
  private waiting: Waiter[] = [];
  private timer: TimerHandle | undefined;

  constructor(private readonly o: DerivationQueueOptions, private readonly clock: Clock = realClock) {
    // A bucket holding less than one turn would never give one: the line would wait for good.
    if (!(o.burst >= 1 && o.perSec > 0)) throw new RangeError('a derivation queue needs a burst of at least 1 and a rate above 0');
    this.bucket = new TokenBucket(o.perSec, o.burst, clock.now());
  }

  /** Callers in line now. */
  get length(): number {
    return this.waiting.length;
  }

  /**
   * Resolves true when the caller may derive one key (its turn spent), at once if nobody
   * waits and the bucket holds a turn, else in its place in line; false when the line is
   * full, or when `alive` says false as its turn comes (its turn is then given to the next).
   */
  turn(alive: () => boolean = () => true): Promise<boolean> {
    const now = this.clock.now();
    if (this.waiting.length === 0 && this.bucket.take(1, now)) {
      this.stats.immediate++;
      return Promise.resolve(true);
    }
    if (this.waiting.length >= this.o.maxWaiting) this.dropDead();
    if (this.waiting.length >= this.o.maxWaiting) {
      this.stats.refused++;
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      this.waiting.push({ alive, since: now, resolve });
      this.schedule(now);
    });
  }

  private dropDead(): void {
    const live: Waiter[] = [];
    for (const w of this.waiting) {
      if (w.alive()) live.push(w);
      else this.abandon(w);
    }
    this.waiting = live;
  }

  private abandon(w: Waiter): void {
    this.stats.abandoned++;
    w.resolve(false);
  }

  private schedule(now: number): void {
    if (this.timer !== undefined || this.waiting.length === 0) return;
    this.timer = this.clock.setTimeout(() => this.serve(), Math.max(1, this.bucket.msUntil(1, now)));
  }

  private serve(): void {
    this.timer = undefined;
    const now = this.clock.now();
    while (this.waiting.length > 0) {
      const w = this.waiting[0]!;
      if (!w.alive()) {
        this.waiting.shift();
        this.abandon(w);
        continue;
      }
      if (!this.bucket.take(1, now)) break;
      this.waiting.shift();
      this.stats.waited++;
      this.stats.longestWaitMs = Math.max(this.stats.longestWaitMs, now - w.since);
      w.resolve(true);
    }
    this.schedule(now);
  }
}
