// A token bucket: `ratePerSec` tokens refill per second up to `burst`; `take(n, now)`
// spends n if there are that many. Rate limits per editor, per link and per relay socket.
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly ratePerSec: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  /** True (and the tokens spent) when `n` tokens are there at time `now` (ms), and `keep` more left after them. */
  take(n: number, now: number, keep = 0): boolean {
    this.tokens = this.level(now);
    this.at = now;
    if (this.tokens < n + keep) return false;
    this.tokens -= n;
    return true;
  }

  /** Milliseconds from `now` until `n` tokens are there (0: they are now; Infinity: more than the burst). Spends nothing. */
  msUntil(n: number, now: number): number {
    if (n > this.burst) return Infinity;
    const tokens = this.level(now);
    return tokens >= n ? 0 : Math.ceil(((n - tokens) / this.ratePerSec) * 1000);
  }

  private level(now: number): number {
    return Math.min(this.burst, this.tokens + (Math.max(0, now - this.at) / 1000) * this.ratePerSec);
  }
}
