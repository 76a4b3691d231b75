import { describe, expect, it } from 'vitest';
import { StallGuard } from './stall-guard';

describe('StallGuard', () => {
  it('judges at every regular check, and not for settleMs after a stall of our own', () => {
    const g = new StallGuard({ stallMs: 300, settleMs: 200 });
    let t = 0;
    for (; t <= 1000; t += 25) expect(g.check(t)).toBe(true);
    t += 900; // the tab slept 900 ms: queued heartbeats have not been read yet
    expect(g.check(t)).toBe(false);
    expect(g.check(t + 25)).toBe(false);
    expect(g.check(t + 175)).toBe(false);
    expect(g.check(t + 200)).toBe(true);
    expect(g.stalls).toBe(1);
    // Gaps under stallMs (a busy but live loop) are no stall.
    expect(g.check(t + 450)).toBe(true);
    expect(g.stalls).toBe(1);
  });

  it('settled: says the same without counting, and sees a stall the checks have not run since', () => {
    const g = new StallGuard({ stallMs: 300, settleMs: 200 });
    expect(g.settled(0)).toBe(true); // no check yet
    let t = 0;
    for (; t <= 1000; t += 25) g.check(t);
    t -= 25;
    expect(g.settled(t + 10)).toBe(true);
    // The tab slept 1.5 s; a primary's beat runs before the checks' tick in the task that woke it.
    expect(g.settled(t + 1500)).toBe(false);
    expect(g.stalls).toBe(0);
    g.check(t + 1500);
    expect(g.settled(t + 1600)).toBe(false);
    g.check(t + 1625);
    g.check(t + 1700);
    expect(g.settled(t + 1700)).toBe(true);
  });
});
