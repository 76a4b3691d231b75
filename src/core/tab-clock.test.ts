import { describe, expect, it } from 'vitest';
import type { Ticker } from './ticker';
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

describe('TabClock with one native timer', () => {
  it('fires timers earliest first, same due in the order set, with one native timeout armed for many timers', async () => {
    const time = { now: () => performance.now() };
    const clock = new TabClock({ start: () => () => undefined }, time);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('c'), 30);
    for (let i = 0; i < 50; i++) clock.setTimeout(() => fired.push(`x${i}`), 40);
    clock.setTimeout(() => fired.push('a'), 5);
    clock.setTimeout(() => fired.push('b'), 5);
    await new Promise((r) => setTimeout(r, 80));
    expect(fired.slice(0, 3)).toEqual(['a', 'b', 'c']);
    expect(fired.slice(3)).toEqual(Array.from({ length: 50 }, (_, i) => `x${i}`));
    // Armed as each group became the earliest (a few more when the machine lags between dues a microsecond apart): not 53.
    expect(clock.nativeArms).toBeLessThanOrEqual(10);
    expect(clock.pending).toBe(0);
    clock.stop();
  });

  it('a timer set from a firing timer runs in a later task; one that throws does not stop the others', async () => {
    const time = { now: () => performance.now() };
    const clock = new TabClock({ start: () => () => undefined }, time);
    const fired: string[] = [];
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    clock.setTimeout(() => {
      fired.push('a');
      clock.setTimeout(() => fired.push('inner'), 0);
      queueMicrotask(() => fired.push('micro'));
      throw new Error('boom');
    }, 5);
    clock.setTimeout(() => fired.push('b'), 5);
    await new Promise((r) => setTimeout(r, 40));
    process.off('uncaughtException', onError);
    expect(fired[0]).toBe('a');
    expect(fired).toContain('b');
    expect(fired.indexOf('inner')).toBeGreaterThan(fired.indexOf('micro'));
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
    clock.stop();
  });

  it('cleared timers do not pile up: the heap is rebuilt when most of it is cleared', () => {
    const { clock } = setup();
    const hs = Array.from({ length: 1000 }, () => clock.setTimeout(() => undefined, 60_000));
    for (const h of hs.slice(0, 990)) clock.clearTimeout(h);
    expect(clock.pending).toBe(10);
    expect((clock as unknown as { heap: { size: number } }).heap.size).toBeLessThan(200);
    clock.stop();
  });
});

describe('TabClock sweeps only while the page is hidden', () => {
  it('starts the worker sweep when the page hides, stops it when it shows, and a due timer fires on showing', () => {
    let sweeps = 0;
    let tick: (() => void) | undefined;
    const ticker: Ticker = { start: (_hz, fn) => { sweeps++; tick = fn; return () => { tick = undefined; }; } };
    let hidden = false;
    const listeners: (() => void)[] = [];
    const visibility = { get hidden() { return hidden; }, onChange: (fn: () => void) => void listeners.push(fn) };
    const time = { t: 0, now: () => time.t };
    const clock = new TabClock(ticker, time, visibility);
    expect(sweeps).toBe(0); // visible: native timeouts are on time, no sweep
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('beat'), 100);
    hidden = true;
    listeners.forEach((f) => f());
    expect(tick).toBeDefined();
    time.t = 150;
    tick!(); // hidden: the worker's sweep fires it although the native timeout is throttled
    expect(fired).toEqual(['beat']);
    clock.setTimeout(() => fired.push('later'), 100);
    time.t = 400;
    hidden = false;
    listeners.forEach((f) => f()); // shown: the sweep stops, and what came due while hidden fires now
    expect(tick).toBeUndefined();
    expect(fired).toEqual(['beat', 'later']);
    clock.stop();
  });
});
