import { describe, expect, it } from 'vitest';
import { percentile } from '../core/percentile';
import { VirtualClock } from '../core/virtual-clock';
import { runClockSim } from '../testing/clock-sim';
import { ClockProbe } from './clock-probe';
import { EventClock } from './event-clock';
import { OffsetEstimator } from './offset-estimator';

describe('clock sync (seeded, asymmetric jittery links, drifting clocks)', () => {
  it('the offset error stays within the stated bound, and the bound is a few ms', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const r = runClockSim({ seed, peers: 3, durationMs: 90_000 });
      expect(r.violations).toBe(0);
      expect(r.errors.length).toBeGreaterThan(900);
      // The bound is half the best round trip plus drift: the links' own asymmetry sets it.
      expect(percentile(r.bounds, 0.5)).toBeLessThan(60);
      expect(percentile(r.errors, 0.99)).toBeLessThan(40);
    }
  });

  it('peers fire a world event at the same true moment, within their bounds', () => {
    const r = runClockSim({ seed: 3, peers: 3, latencyMinMs: 1, latencyMaxMs: 3, jitterMeanMs: 0.5 });
    expect(r.skews.length).toBeGreaterThan(15);
    expect(Math.max(...r.skews)).toBeLessThan(17); // one frame
  });
});

describe('OffsetEstimator', () => {
  it('a busy page: one prompt sample, then replies that waited 25 ms behind frames; the aged prompt one still sets the estimate (minimum-RTT filter)', () => {
    const e = new OffsetEstimator();
    const truth = 1000; // the reference reads local + 1000
    e.add({ t0: 0, t1: 2, remote: 1 + truth }); // read in the middle of a 2 ms round trip
    for (let t = 1000; t <= 20_000; t += 1000) e.add({ t0: t, t1: t + 25, remote: t + 0.5 + truth }); // read 0.5 ms after sending, reply waited
    const est = e.estimate(20_025)!;
    expect(Math.abs(est.offset - truth)).toBeLessThan(0.6); // the whole intersection's middle: 2.5 ms off
    expect(Math.abs(est.offset - truth)).toBeLessThanOrEqual(est.bound);
    expect(est.minRtt).toBeCloseTo(2, 2);
  });


  it('the RTT/2 rule of the thesis: reply 5, round trip 6 -> the reference reads 8', () => {
    const e = new OffsetEstimator();
    e.add({ t0: 0, t1: 6, remote: 5 }); // in ms rather than s (MAX_RTT_MS)
    const est = e.estimate(6)!;
    expect(est.offset + 6).toBeCloseTo(8, 6);
    expect(est.bound).toBeGreaterThanOrEqual(3);
  });

  it('the narrowest sample wins; a contradiction (a stepped clock) drops the history', () => {
    const e = new OffsetEstimator();
    e.add({ t0: 0, t1: 100, remote: 1050 });
    e.add({ t0: 200, t1: 210, remote: 1205 });
    expect(e.estimate(210)!.bound).toBeLessThan(6);
    e.add({ t0: 300, t1: 310, remote: 9000 });
    expect(e.stats.contradictions).toBe(1);
    expect(e.estimate(310)!.offset).toBeCloseTo(9000 - 305, 0);
    e.add({ t0: 400, t1: 300, remote: 0 });
    expect(e.stats.tooSlow).toBe(1);
  });
});

describe('ClockProbe', () => {
  it('takes only replies to open requests', () => {
    const p = new ClockProbe();
    const req = p.request(0) as { n: number };
    expect(p.reply({ n: req.n + 5, now: 1 }, 10)).toBe(false);
    expect(p.reply({ n: req.n, now: 1 }, 10)).toBe(true);
    expect(p.reply({ n: req.n, now: 1 }, 10)).toBe(false); // replayed
    expect(p.stats).toEqual({ requests: 1, replies: 1, unasked: 2 });
  });
});

describe('EventClock', () => {
  it('slews instead of jumping while an event is pending, never runs backwards then, never fires early', () => {
    const local = new VirtualClock(1000);
    let target = 0;
    const ev = new EventClock({ local, target: () => ({ offset: target }) });
    expect(ev.now()).toBe(1000);
    let firedAt = NaN;
    ev.at(3000, () => (firedAt = ev.now()));
    target = -500; // the estimate moves back half a second
    let last = ev.now();
    while (Number.isNaN(firedAt)) {
      local.advanceSync(10);
      if (!Number.isNaN(firedAt)) break;
      const t = ev.now();
      expect(t).toBeGreaterThanOrEqual(last);
      last = t;
    }
    expect(firedAt).toBeGreaterThanOrEqual(3000);
    expect(firedAt).toBeLessThan(3001);
    // The world ran at 0.95 of the local rate: 2,000 world ms took ~2,105 local ms (a jump would have taken 2,500).
    expect(local.now()).toBeGreaterThanOrEqual(3105);
    expect(local.now()).toBeLessThan(3116);
    // Nothing pending and still off by more than STEP_MS: it steps.
    ev.now();
    expect(ev.offset).toBe(-500);
  });
});
