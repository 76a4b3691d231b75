import { describe, expect, it } from 'vitest';
import { percentile } from '../core/percentile';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { DriftingClock } from '../testing/drifting-clock';
import type { ClockMessage } from './clock-probe';
import { WorldClock } from './world-clock';

interface Net {
  lo: number;
  hi: number;
  jitterMean: number;
  loss: number;
}

/** A host (the reference), a peer following it and a peer following that peer, on drifting clocks over asymmetric jittery lossy links. */
function world(seed: number, net: Net) {
  const rand = seededRandom(seed);
  const truth = new VirtualClock();
  const base = new Map<string, number>();
  const clocks = new Map<string, WorldClock>();
  const send = (from: string) => (to: string, msg: ClockMessage) => {
    const k = `${from}>${to}`;
    if (!base.has(k)) base.set(k, net.lo + rand() * (net.hi - net.lo)); // each direction its own latency
    if (rand() < net.loss) return;
    truth.setTimeout(() => clocks.get(to)?.receive(from, msg), base.get(k)! - Math.log(1 - rand()) * net.jitterMean);
  };
  const make = (id: string, refs: string[]) => {
    const local = new DriftingClock(truth, rand() * 1e6, (rand() - 0.5) * 2e-4);
    const c = new WorldClock({ local, base: 1.7e12 - local.now(), send: send(id), references: () => refs });
    clocks.set(id, c);
    c.start();
    return c;
  };
  return { truth, host: make('host', []), peer: make('peer', ['host']), far: make('far', ['peer']) };
}

function measure(seed: number, net: Net, ms = 90_000) {
  const w = world(seed, net);
  const errors: number[] = [], bounds: number[] = [];
  let violations = 0;
  const check = () => {
    for (const c of [w.peer, w.far]) {
      const s = c.status();
      if (!Number.isFinite(s.bound)) continue;
      const err = Math.abs(c.now() - w.host.now());
      errors.push(err);
      bounds.push(s.bound);
      if (err > s.bound + 1e-9) violations++;
    }
    w.truth.setTimeout(check, 250);
  };
  w.truth.setTimeout(check, 250);
  // World events set 2 s ahead by the host's clock: the true moments each clock fires them.
  const skews: number[] = [];
  for (let t = 5000; t + 3000 < ms; t += 5000) {
    w.truth.setTimeout(() => {
      const at = w.host.now() + 2000;
      const fired: number[] = [];
      for (const c of [w.host, w.peer, w.far]) c.at(at, () => { fired.push(w.truth.now()); if (fired.length === 3) skews.push(Math.max(...fired) - Math.min(...fired)); });
    }, t);
  }
  w.truth.advanceSync(ms);
  return { errors, bounds, violations, skews, status: w.peer.status() };
}

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
    waiting.stop();
  });
});
