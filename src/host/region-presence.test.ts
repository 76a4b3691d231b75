import { describe, expect, it } from 'vitest';
import { MAX_PLAYERS, type PlayerFrame } from '../region/subscription-messages';
import { MAX_TRACKED_PLAYERS, RegionPresence } from './region-presence';

const player = (n: number, x = 1): PlayerFrame => ({ id: new Uint8Array(20).fill(n & 0xff), name: `p${n}`, x, y: 70, z: 2, yaw: 0, pitch: 0 });

describe('region presence', () => {
  it('sends the list only when it changed, and again for a new subscriber', () => {
    const p = new RegionPresence(3000);
    expect(p.take(0)).toBeUndefined();
    p.report('a', player(1), 0);
    expect(p.take(10)?.map((q) => q.name)).toEqual(['p1']);
    expect(p.take(20)).toBeUndefined();
    p.resend();
    expect(p.take(30)?.map((q) => q.name)).toEqual(['p1']);
    p.report('a', player(1, 5), 40);
    expect(p.take(50)?.[0]?.x).toBe(5);
  });

  it('drops a player silent for longer than the TTL, and says so once', () => {
    const p = new RegionPresence(3000);
    p.report('a', player(1), 0);
    p.report('b', player(2), 2000);
    p.take(2000);
    p.checkExpiry(2500);
    expect(p.take(2500)).toBeUndefined();
    p.checkExpiry(3001);
    expect(p.take(3001)?.map((q) => q.name)).toEqual(['p2']);
    expect(p.size).toBe(1);
  });

  it('names at most MAX_PLAYERS per frame and tracks at most MAX_TRACKED_PLAYERS, forgetting the longest silent', () => {
    const p = new RegionPresence(60_000);
    for (let i = 0; i < MAX_TRACKED_PLAYERS + 10; i++) p.report(`h${i}`, player(i), i);
    expect(p.size).toBe(MAX_TRACKED_PLAYERS);
    expect(p.take(5000)?.length).toBe(MAX_PLAYERS);
    // h10 reports again: it is now the most recent, and h11 the next to go.
    p.report('h10', player(10), 6000);
    p.report('new', player(7), 6001);
    expect(p.size).toBe(MAX_TRACKED_PLAYERS);
    const names = new Set(p.take(6002)!.map((q) => q.name));
    expect(names.has('p11')).toBe(false);
  });
});
