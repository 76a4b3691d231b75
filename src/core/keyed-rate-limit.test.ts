import { describe, expect, it } from 'vitest';
import { KeyedRateLimit } from './keyed-rate-limit';

describe('KeyedRateLimit', () => {
  it('gives each key its own bucket', () => {
    const l = new KeyedRateLimit(1, 2, 10);
    expect(l.take('a', 0)).toBe(true);
    expect(l.take('a', 0)).toBe(true);
    expect(l.take('a', 0)).toBe(false);
    expect(l.take('b', 0)).toBe(true); // a's spending leaves b full
    expect(l.take('a', 1000)).toBe(true); // refilled at the rate
    expect(l.take('a', 1000)).toBe(false);
  });

  it('holds at most maxKeys, whatever number of keys comes', () => {
    const l = new KeyedRateLimit(1, 1, 100);
    for (let i = 0; i < 10_000; i++) l.take(`k${i}`, 0);
    expect(l.size).toBe(100);
  });

  it('forgets the key used least recently, not the oldest', () => {
    const l = new KeyedRateLimit(1, 1, 2);
    expect(l.take('a', 0)).toBe(true);
    expect(l.take('b', 0)).toBe(true);
    expect(l.take('a', 0)).toBe(false); // a used again: b is now the least recent
    expect(l.take('c', 0)).toBe(true); // b forgotten
    expect(l.take('a', 0)).toBe(false); // a kept, still empty
    expect(l.take('b', 0)).toBe(true); // b came back full
  });

  it('spends n tokens at once', () => {
    const l = new KeyedRateLimit(10, 5, 4);
    expect(l.take('a', 0, 4)).toBe(true);
    expect(l.take('a', 0, 2)).toBe(false);
  });
});
