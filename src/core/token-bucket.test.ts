import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('allows a burst, then the refill rate', () => {
    const b = new TokenBucket(10, 5, 0);
    for (let i = 0; i < 5; i++) expect(b.take(1, 0)).toBe(true);
    expect(b.take(1, 0)).toBe(false);
    expect(b.take(1, 50)).toBe(false); // half a token
    expect(b.take(1, 100)).toBe(true);
    expect(b.take(1, 10_000)).toBe(true); // refilled, capped at the burst
    for (let i = 0; i < 4; i++) expect(b.take(1, 10_000)).toBe(true);
    expect(b.take(1, 10_000)).toBe(false);
  });

  it('spends n tokens at once, or none', () => {
    const b = new TokenBucket(1000, 3000, 0);
    expect(b.take(2500, 0)).toBe(true);
    expect(b.take(1000, 0)).toBe(false);
    expect(b.take(500, 0)).toBe(true);
    expect(b.take(1000, 1000)).toBe(true);
  });

  it('a clock that steps back refills nothing', () => {
    const b = new TokenBucket(10, 1, 1000);
    expect(b.take(1, 1000)).toBe(true);
    expect(b.take(1, 500)).toBe(false);
  });

  it('says how long until n tokens are there, spending none', () => {
    const b = new TokenBucket(20, 2, 0);
    expect(b.msUntil(1, 0)).toBe(0);
    expect(b.take(2, 0)).toBe(true);
    expect(b.msUntil(1, 0)).toBe(50);
    expect(b.msUntil(1, 30)).toBe(20);
    expect(b.msUntil(2, 30)).toBe(70);
    expect(b.msUntil(3, 30)).toBe(Infinity);
    expect(b.take(1, 49)).toBe(false);
    expect(b.take(1, 50)).toBe(true);
  });
});
