import { describe, expect, it } from 'vitest';
import type { Ticker } from '../core/ticker';
import { TabClock } from './tab-clock';

/** A ticker we step by hand, and a time we set: stands in for a hidden tab whose timers stall. */
function setup() {
  let tick: (() => void) | undefined;
  const ticker: Ticker = { start: (_hz, fn) => ((tick = fn), () => (tick = undefined)) };
  const time = { t: 0, now: () => time.t };
  return { clock: new TabClock(ticker, time), time, tick: () => tick?.() };
}

describe('TabClock', () => {
  it('fires a due timer from the worker sweep even when its native timeout has not run', () => {
    const { clock, time, tick } = setup();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('a'), 60_000);
    clock.setTimeout(() => fired.push('b'), 100_000);
    time.t = 70_000;
    tick();
    expect(fired).toEqual(['a']);
    expect(clock.sweptFires).toBe(1);
    tick();
    expect(fired).toEqual(['a']); // once only
    clock.stop();
  });

  it('never fires a cleared timer, and the native timeout fires when visible', async () => {
    const { clock, time, tick } = setup();
    const fired: number[] = [];
    const h = clock.setTimeout(() => fired.push(1), 10);
    clock.clearTimeout(h);
    time.t = 1000;
    tick();
    clock.setTimeout(() => fired.push(2), 5);
    await new Promise((r) => setTimeout(r, 30));
    expect(fired).toEqual([2]);
    expect(clock.pending).toBe(0);
    clock.stop();
  });
});
