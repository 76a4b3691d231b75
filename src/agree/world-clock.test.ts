import { describe, expect, it } from 'vitest';
import { percentile } from '../core/percentile';
import { VirtualClock } from '../core/virtual-clock';
import { runWorldClockSim as measure } from '../testing/world-clock-sim';
import { WorldClock } from './world-clock';

describe('WorldClock (seeded, virtual time, drifting clocks)', () => {
  it('asymmetric jittery lossy links (5-60 ms each way): the error never exceeds the stated bound, and the bound is about half the best round trip', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const r = measure(seed, { lo: 5, hi: 60, jitterMean: 8, loss: 0.05 });
      expect(r.violations).toBe(0);
      expect(r.errors.length).toBeGreaterThan(600);
      expect(percentile(r.bounds, 0.5)).toBeLessThan(125); // far is two hops away, each at most half a 120 ms round trip
      expect(r.status.samples).toBeGreaterThan(8);
      for (const s of r.skews) expect(s).toBeLessThan(125);
    }
  });

  it('loopback-like links (0.1-1 ms, 0.2 ms jitter): error p99 within 2 ms, an event fires on the same frame everywhere', () => {
    const r = measure(7, { lo: 0.1, hi: 1, jitterMean: 0.2, loss: 0.02 });
    expect(r.violations).toBe(0);
    expect(percentile(r.errors, 0.99)).toBeLessThan(2);
    expect(percentile(r.bounds, 0.99)).toBeLessThan(3);
    expect(r.skews.length).toBeGreaterThan(10);
    expect(Math.max(...r.skews)).toBeLessThan(17);
  });

  it('alone it is its own reference (bound 0); following someone who has not answered, the bound is Infinity', () => {
    const local = new VirtualClock(500);
    const alone = new WorldClock({ local, base: 1000, send: () => {}, references: () => [] });
    alone.start();
    expect(alone.now()).toBe(1500);
    expect(alone.status().bound).toBe(0);
    const waiting = new WorldClock({ local, send: () => {}, references: () => ['h'] });
    waiting.start();
    expect(waiting.status().bound).toBe(Infinity);
    waiting.receive('stranger', { t: 'TIME_REP', n: 1, now: 5 }); // not a reference: ignored
    waiting.receive('h', { t: 'TIME_REP', n: 99, now: 5 }); // answers nothing asked
    expect(waiting.stats.unasked).toBe(1);
    // Unsynchronised itself, it answers nobody's request; alone, it answers with bound 0.
    const said: unknown[] = [];
    const asked = (c: WorldClock) => c.receive('peer', { t: 'TIME_REQ', n: 7 });
    const w2 = new WorldClock({ local, send: (_to, m) => said.push(m), references: () => ['h'] });
    w2.start();
    said.length = 0;
    asked(w2);
    expect(said).toEqual([]);
    const a2 = new WorldClock({ local, base: 1000, send: (_to, m) => said.push(m), references: () => [] });
    asked(a2);
    expect(said).toEqual([{ t: 'TIME_REP', n: 7, now: 1500 }]);
    w2.stop();
    waiting.stop();
  });
});
