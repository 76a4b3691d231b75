// A rate limit each sender has of its own: one token bucket (token-bucket.ts) per key (a
// player, a node, an editor). The keys come from the network, and an attacker holds as many
// as it likes (new node ids and player keys cost it little), so the map is bounded: past
// `maxKeys` the key used least recently is forgotten. A forgotten key comes back with a full
// bucket, so the bound is to sit above the keys honest traffic keeps busy at once; what a
// flood of new keys wins is a burst each, which a limit over all senders (where there is
// one) or the price of a key bounds, never memory.
import { TokenBucket } from './token-bucket';
import { LruMap } from './lru-map';

export class KeyedRateLimit {
  private readonly buckets: LruMap<string, TokenBucket>;

  constructor(
    private readonly ratePerSec: number,
    private readonly burst: number,
    maxKeys: number,
  ) {
    this.buckets = new LruMap(maxKeys);
  }

  /** True (and the tokens spent) when `key` has `n` tokens at time `now` (ms); a key not seen (or forgotten) starts full. */
  take(key: string, now: number, n = 1): boolean {
    return this.buckets.use(key, () => new TokenBucket(this.ratePerSec, this.burst, now)).take(n, now);
  }

  /** Keys held (at most `maxKeys`). */
  get size(): number {
    return this.buckets.size;
  }
}
