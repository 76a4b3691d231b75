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

  /** True (and the tokens spent) when `n` tokens are there at time `now` (ms). */
  take(n: number, now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.at) / 1000) * this.ratePerSec);
    this.at = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}
