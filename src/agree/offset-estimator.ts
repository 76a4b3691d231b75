// The offset of a reference clock (the region hosts' world clock) from ours, by the
// thesis's timer exchange (2.4.2): we send at t0, the reference answers its reading r, we
// receive at t1; the reference's clock now reads r + (t1 - t0) / 2. Whatever the split of
// the round trip between the two ways, the reading was taken between t0 and t1, so one
// sample's offset is off by at most half its round trip: a sample is an interval.
//
// Over several samples: every sample's interval, carried forward to now with the drift
// and widened by how little we know of the drift, still holds the true offset, so their
// intersection does; the estimate is its middle and the bound its half-width. The
// minimum-RTT samples make the narrowest intervals and so decide the intersection; the
// others cost nothing. Drift is tracked from the best early and the best late sample.
//
// Assumptions, stated because the bound rests on them: the two clocks drift apart by at
// most MAX_DRIFT (crystals are within ~100 ppm each), and drift changes slowly
// (DRIFT_WANDER). When samples contradict each other (the intersection is empty: a clock
// was stepped or suspended), the history is dropped and counted.

/** Largest drift between two clocks we assume (200 ppm: two crystals of 100 ppm each). */
export const MAX_DRIFT = 2e-4;
/** How far the drift may wander from a straight line over a sampling window. */
export const DRIFT_WANDER = 2e-5;
/** Samples kept (at one every 2 s, about a minute). */
export const MAX_SAMPLES = 32;
/** Samples are dropped whose round trip is longer (they bound nothing useful). */
export const MAX_RTT_MS = 5000;
/** The estimate's middle is taken over the samples at most this many times as wide as the narrowest (aged to now). */
export const NARROW_FACTOR = 2;
/** The drift is estimated only over at least this long (shorter, it is mostly noise). */
const MIN_DRIFT_SPAN_MS = 10_000;

export interface TimeSample {
  /** Our clock at send and at receive; the reference's reading in between. */
  t0: number;
  t1: number;
  remote: number;
}

export interface OffsetEstimate {
  /** Reference clock minus ours, at the local time asked. */
  offset: number;
  /** |true offset - offset| <= bound under the stated assumptions. */
  bound: number;
  /** Tracked drift (reference ms per our ms, minus 1), 0 until measurable. */
  drift: number;
  samples: number;
  minRtt: number;
}

interface Kept {
  mid: number; // local time the reading is placed at
  offset: number;
  half: number; // half the round trip
}

export class OffsetEstimator {
  private kept: Kept[] = [];
  readonly stats = { samples: 0, tooSlow: 0, contradictions: 0 };

  add(s: TimeSample): void {
    const rtt = s.t1 - s.t0;
    if (!(rtt >= 0 && rtt <= MAX_RTT_MS) || !Number.isFinite(s.remote)) {
      this.stats.tooSlow++;
      return;
    }
    this.stats.samples++;
    const mid = (s.t0 + s.t1) / 2;
    // A reading anywhere in [t0, t1]: half a round trip either way, plus what the drift adds over it.
    this.kept.push({ mid, offset: s.remote - mid, half: rtt / 2 + (MAX_DRIFT * rtt) / 2 });
    if (this.kept.length > MAX_SAMPLES) this.kept.shift();
    if (this.intersect(mid) === undefined) {
      this.stats.contradictions++;
      this.kept = this.kept.slice(-1);
    }
  }

  /**
   * The estimate at local time `now`; undefined before any sample. The offset is the middle
   * of the narrowest samples alone (those at most NARROW_FACTOR times as wide as the
   * narrowest, as aged to now: the minimum-RTT filter), kept inside the intersection of all;
   * the bound is its distance to the far end of that intersection. Why not the middle of
   * the whole intersection: a wide sample is mostly a reply that waited (a busy page), whose
   * interval holds the truth near one end; one such end can clip an aged narrow sample on
   * one side only and pull the middle off by half its aging.
   */
  estimate(now: number): OffsetEstimate | undefined {
    const iv = this.intersect(now);
    if (!iv) return undefined;
    const narrow = this.intersect(now, NARROW_FACTOR) ?? iv;
    const offset = Math.max(iv.lo, Math.min(iv.hi, (narrow.lo + narrow.hi) / 2));
    return {
      offset,
      bound: Math.max(offset - iv.lo, iv.hi - offset),
      drift: iv.drift,
      samples: this.kept.length,
      minRtt: 2 * Math.min(...this.kept.map((k) => k.half)),
    };
  }

  /**
   * The offset interval at `now` all kept samples agree on, or undefined when they do not;
   * with `within`, only the samples at most `within` times as wide (aged to now) as the narrowest.
   */
  private intersect(now: number, within = Infinity): { lo: number; hi: number; drift: number } | undefined {
    if (this.kept.length === 0) return undefined;
    const { drift, slack } = this.driftAt();
    const aged = this.kept.map((k) => ({ c: k.offset + drift * (now - k.mid), h: k.half + (slack + DRIFT_WANDER) * Math.abs(now - k.mid) }));
    const widest = within * Math.min(...aged.map((a) => a.h));
    let lo = -Infinity, hi = Infinity;
    for (const { c, h } of aged) {
      if (h > widest) continue;
      lo = Math.max(lo, c - h);
      hi = Math.min(hi, c + h);
    }
    return lo <= hi ? { lo, hi, drift } : undefined;
  }

  /**
   * The drift from the narrowest sample of the older half to the narrowest of the newer
   * half, and how far off it can be (their half-widths over the span); until that is
   * tighter than MAX_DRIFT, no drift and MAX_DRIFT of slack.
   */
  private driftAt(): { drift: number; slack: number } {
    const k = this.kept;
    const span = k.length >= 4 ? k[k.length - 1]!.mid - k[0]!.mid : 0;
    if (span < MIN_DRIFT_SPAN_MS) return { drift: 0, slack: MAX_DRIFT };
    const best = (xs: Kept[]) => xs.reduce((a, b) => (b.half < a.half ? b : a));
    const half = k.length >> 1;
    const a = best(k.slice(0, half));
    const b = best(k.slice(half));
    const dt = b.mid - a.mid;
    const slack = (a.half + b.half) / dt;
    if (dt <= 0 || slack >= MAX_DRIFT) return { drift: 0, slack: MAX_DRIFT };
    const drift = Math.max(-MAX_DRIFT, Math.min(MAX_DRIFT, (b.offset - a.offset) / dt));
    return { drift, slack };
  }
}
