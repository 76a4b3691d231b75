// The line of derivations (derivation-queue.ts): the burst at once, then one turn per
// 1/perSec in order of arrival; a caller gone before its turn spends none; a full line refuses.
import { describe, expect, it } from 'vitest';
import { DerivationQueue } from './derivation-queue';
import { VirtualClock } from './virtual-clock';

describe('DerivationQueue', () => {
  it('gives the burst at once, then turns at its rate, first come first served, never refusing a caller in line', async () => {
    const clock = new VirtualClock();
    const q = new DerivationQueue({ perSec: 10, burst: 3, maxWaiting: 100 }, clock);
    const order: number[] = [];
    const at: number[] = [];
    const turns = Array.from({ length: 8 }, (_, i) => q.turn().then((ok) => {
      expect(ok).toBe(true);
      order.push(i);
      at[i] = clock.now();
    }));
    await clock.advance(0);
    expect(order).toEqual([0, 1, 2]);
    expect(q.length).toBe(5);
    await clock.advance(1000);
    await Promise.all(turns);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // One turn each 100 ms after the burst: the 8th is 5 turns past it.
    expect(at[7]).toBe(500);
    expect(q.stats).toMatchObject({ immediate: 3, waited: 5, refused: 0, abandoned: 0, longestWaitMs: 500 });
  });

  it('a caller gone before its turn leaves the line without spending one; the next is served in its place', async () => {
    const clock = new VirtualClock();
    const q = new DerivationQueue({ perSec: 10, burst: 1, maxWaiting: 100 }, clock);
    expect(await q.turn()).toBe(true);
    let alive = true;
    const gone = q.turn(() => alive);
    const next = q.turn();
    alive = false;
    await clock.advance(100);
    expect(await gone).toBe(false);
    expect(await next).toBe(true);
    expect(clock.now()).toBe(100);
    expect(q.stats.abandoned).toBe(1);
  });

  it('a full line refuses a newcomer, after dropping the callers gone', async () => {
    const clock = new VirtualClock();
    const q = new DerivationQueue({ perSec: 1, burst: 1, maxWaiting: 2 }, clock);
    expect(await q.turn()).toBe(true);
    let alive = true;
    void q.turn(() => alive);
    void q.turn();
    expect(await q.turn()).toBe(false);
    expect(q.stats.refused).toBe(1);
    alive = false;
    const third = q.turn();
    expect(q.length).toBe(2);
    await clock.advance(2000);
    expect(await third).toBe(true);
    expect(q.stats).toMatchObject({ immediate: 1, refused: 1, abandoned: 1, waited: 2 });
  });
});
