// A rate limit each sender has of its own: one token bucket (token-bucket.ts) per key (a
// player, a node, an editor). The keys come from the network, and an attacker holds as many
// as it likes (new node ids and player keys cost it little), so the map is bounded: past
// `maxKeys` the key used least recently is forgotten. A forgotten key comes back with a full
// bucket, so the bound is to sit above the keys honest traffic keeps busy at once; what a
// flood of new keys wins is a burst each, which a limit over all senders (where there is
// one) or the price of a key bounds, never memory.
import { TokenBucket } from './token-bucket';

export class KeyedRateLimit {
  /** In order of last use: the first is the one to forget. */
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly ratePerSec: number,
    private readonly burst: number,
    private readonly maxKeys: number,
  ) {}

  /** True (and the tokens spent) when `key` has `n` tokens at time `now` (ms); a key not seen (or forgotten) starts full. */
  take(key: string, now: number, n = 1): boolean {
    let b = this.buckets.get(key);
    this.buckets.delete(key); // re-inserted last: the map stays in order of last use
    b ??= new TokenBucket(this.ratePerSec, this.burst, now);
    this.buckets.set(key, b);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    return b.take(n, now);
  }

  /** Keys held (at most `maxKeys`). */
  get size(): number {
    return this.buckets.size;
  }
}
