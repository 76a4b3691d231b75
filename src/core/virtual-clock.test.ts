import { describe, expect, it } from 'vitest';
import { every } from './clock';
import { seededRandom } from './seeded-random';
import { VirtualClock } from './virtual-clock';

describe('VirtualClock', () => {
  it('fires timers in time order, equal times in set order, and skips cleared ones', () => {
    const c = new VirtualClock();
    const log: string[] = [];
    c.setTimeout(() => log.push('b'), 20);
    c.setTimeout(() => log.push('a'), 10);
    c.setTimeout(() => log.push('a2'), 10);
    const h = c.setTimeout(() => log.push('x'), 15);
    c.clearTimeout(h);
    c.advanceSync(15);
    expect(log).toEqual(['a', 'a2']);
    expect(c.now()).toBe(15);
    c.advanceSync(100);
    expect(log).toEqual(['a', 'a2', 'b']);
    expect(c.pending).toBe(0);
  });

  it('runs promise continuations between instants', async () => {
    const c = new VirtualClock();
    const sleep = (ms: number) => new Promise<void>((r) => c.setTimeout(r, ms));
    const log: number[] = [];
    void (async () => {
      for (let i = 0; i < 5; i++) {
        await sleep(100);
        log.push(c.now());
      }
    })();
    await c.advance(1000);
    expect(log).toEqual([100, 200, 300, 400, 500]);
    let done = false;
    void sleep(50).then(() => (done = true));
    expect(await c.runUntil(() => done)).toBe(true);
    expect(c.now()).toBe(1050);
  });

  it('drives every() and handles many timers quickly', () => {
    const c = new VirtualClock();
    let n = 0;
    const stop = every(c, 10, () => n++);
    c.advanceSync(100);
    stop();
    c.advanceSync(100);
    expect(n).toBe(10);
    const rand = seededRandom(1);
    let fired = 0;
    for (let i = 0; i < 200_000; i++) c.setTimeout(() => fired++, Math.floor(rand() * 10_000));
    c.advanceSync(10_000);
    expect(fired).toBe(200_000);
  });

  it('seededRandom is deterministic per seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const xa = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(xa);
    expect([c(), c(), c()]).not.toEqual(xa);
    expect(xa.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
