// Whether a source has spent less than its fair share of a rate shared by many sources
// lately: the rate over the sources that asked within the last one to two windows of
// WINDOW_MS, against what it spent in the same time. What shares a budget fairly without a
// queue (derivation-budget.ts): a source past its share waits behind one that is not, so
// sources that ask without end split the rate among them and a source that asks little
// still gets its share, however many the others are. O(1) a call; sources bounded (least
// recently used forgotten: one forgotten comes back having spent nothing, and the count of
// sources asking may then read one high for a window, sharing a little less to each).
import { LruMap } from './lru-map';

/** One window of the count (ms): a share is judged over the last one to two of them. */
export const WINDOW_MS = 1000;

interface Spend {
  /** The window this entry's `cur` is of. */
  w: number;
  /** Spent in window w, and in the one before it. */
  cur: number;
  prev: number;
  /** Asked in window w, and in the one before it. */
  askedCur: boolean;
  askedPrev: boolean;
}

export class FairShare {
  private readonly spends: LruMap<string, Spend>;
  private w = -Infinity;
  /** Sources that asked in the current window. */
  private askedCur = 0;
  /** Sources that asked in the current window or the one before. */
  private asking = 0;

  constructor(
    private readonly ratePerSec: number,
    maxSources: number,
  ) {
    this.spends = new LruMap(maxSources);
  }

  /** Notes that `source` asks at `now` (ms), and says whether it spent less than its share of the rate lately. */
  within(source: string, now: number): boolean {
    const e = this.entry(source, now);
    if (!e.askedCur) {
      e.askedCur = true;
      this.askedCur++;
      if (!e.askedPrev) this.asking++;
    }
    if (this.asking <= 1) return true; // alone: nobody to share with
    const span = (WINDOW_MS + now - this.w * WINDOW_MS) / 1000;
    return e.cur + e.prev < (this.ratePerSec * span) / this.asking;
  }

  /** Notes one spent by `source` at `now`. */
  spent(source: string, now: number): void {
    this.entry(source, now).cur++;
  }

  private entry(source: string, now: number): Spend {
    const w = Math.floor(now / WINDOW_MS);
    if (w !== this.w) {
      this.asking = w === this.w + 1 ? this.askedCur : 0;
      this.askedCur = 0;
      this.w = w;
    }
    const e = this.spends.use(source, () => ({ w, cur: 0, prev: 0, askedCur: false, askedPrev: false }));
    if (e.w !== w) {
      const next = e.w === w - 1;
      e.prev = next ? e.cur : 0;
      e.askedPrev = next && e.askedCur;
      e.cur = 0;
      e.askedCur = false;
      e.w = w;
    }
    return e;
  }
}
