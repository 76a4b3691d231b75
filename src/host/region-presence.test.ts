import { describe, expect, it } from 'vitest';
import type { PlayerFrame } from '../region/subscription-messages';
import { sampleLook } from '../testing/sample-look';
import { MAX_TRACKED_PLAYERS, RegionPresence } from './region-presence';

const player = (n: number, x = 1): PlayerFrame => ({ id: new Uint8Array(20).fill(n & 0xff), look: sampleLook(`p${n}`, n % 12), x, y: 70, z: 2, yaw: 0, pitch: 0 });
const q = (p: PlayerFrame) => ({ x: Math.round(p.x), y: 0, z: 0, yaw: 0, pitch: 0 });

describe('region presence', () => {
  it('gives each player a slot of its own, kept while it reports, not reused at once', () => {
    const p = new RegionPresence(3000);
    p.report('a', player(1), 0);
    p.report('b', player(2), 0);
    p.report('a', player(1, 5), 40);
    expect(p.watched(50, q).map((w) => [w.hex, w.slot, w.q.x])).toEqual([['a', 0, 5], ['b', 1, 1]]);
    p.leave('a');
    p.report('c', player(3), 60);
    expect(p.watched(70, q).map((w) => [w.hex, w.slot])).toEqual([['b', 1], ['c', 2]]);
  });

  it('forgets a player silent for longer than the TTL', () => {
    const p = new RegionPresence(3000);
    p.report('a', player(1), 0);
    p.report('b', player(2), 2000);
    expect(p.watched(2500, q).map((w) => w.hex)).toEqual(['a', 'b']);
    expect(p.watched(3001, q).map((w) => w.hex)).toEqual(['b']);
    expect(p.size).toBe(1);
  });

  it('knows where a subscriber standing elsewhere looks from, within the TTL', () => {
    const p = new RegionPresence(3000);
    p.report('a', player(1, 9), 0);
    expect(p.viewpoint('a', 10)).toMatchObject({ x: 9, z: 2 });
    p.leave('a', { x: -4, z: 7 }, 100);
    expect(p.size).toBe(0);
    expect(p.viewpoint('a', 200)).toEqual({ x: -4, z: 7, at: 100 });
    expect(p.viewpoint('a', 3200)).toBeUndefined();
  });

  it('tracks at most MAX_TRACKED_PLAYERS, forgetting the longest silent', () => {
    const p = new RegionPresence(60_000);
    for (let i = 0; i < MAX_TRACKED_PLAYERS + 10; i++) p.report(`h${i}`, player(i), i);
    expect(p.size).toBe(MAX_TRACKED_PLAYERS);
    // h10 reports again: it is now the most recent, and h11 the next to go.
    p.report('h10', player(10), 6000);
    p.report('new', player(7), 6001);
    expect(p.size).toBe(MAX_TRACKED_PLAYERS);
    const hexes = new Set(p.watched(6002, q).map((w) => w.hex));
    expect(hexes.has('h11')).toBe(false);
    expect(hexes.has('h10')).toBe(true);
    expect(hexes.has('new')).toBe(true);
  });

  it('keeps the newest look a player sent: the same look signed again keeps the slot, an older one or none changes nothing, a first one comes at once', () => {
    const p = new RegionPresence(3000);
    const at = (look: PlayerFrame['look']): PlayerFrame => ({ ...player(1), look });
    p.report('a', at(undefined), 0);
    p.report('a', at(sampleLook('Ann', 1, 100)), 10);
    const first = p.watched(20, q)[0]!;
    expect([first.look?.n, p.renames]).toEqual(['Ann', 1]); // introduced anew with its look, no wait
    p.report('a', at(sampleLook('Ann', 1, 200)), 30);
    p.report('a', at(sampleLook('Bob', 1, 150)), 40);
    p.report('a', at(undefined), 50);
    const [w] = p.watched(60, q);
    expect([w!.slot, w!.look?.n, w!.look?.w, p.renames, p.renamesHeld]).toEqual([first.slot, 'Ann', 200, 1, 0]);
  });
});
