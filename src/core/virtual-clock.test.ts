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

  it('fires in (time, set order) with timers set and cleared while firing, as a sorted list would', () => {
    // The reference: every timer kept in a list, the earliest (time, then set order) fired next.
    const rand = seededRandom(7);
    const c = new VirtualClock();
    const fired: number[] = [];
    const ref: { at: number; seq: number; id: number; live: boolean }[] = [];
    const handles = new Map<number, unknown>();
    let seq = 0;
    const set = (id: number, ms: number): void => {
      const at = c.now() + ms;
      const entry = { at, seq: seq++, id, live: true };
      ref.push(entry);
      handles.set(id, c.setTimeout(() => {
        fired.push(id);
        // A third of the timers set more, some at this very instant; a tenth clear a random one.
        if (id < 3000 && rand() < 0.33) set(id * 2 + 1000, Math.floor(rand() * 3) * (rand() < 0.5 ? 0 : 7));
        if (rand() < 0.1) {
          const victim = ref[Math.floor(rand() * ref.length)]!;
          if (victim.live) {
            victim.live = false;
            c.clearTimeout(handles.get(victim.id));
          }
        }
      }, ms));
    };
    for (let i = 0; i < 500; i++) set(i, Math.floor(rand() * 40));
    c.advanceSync(1000);
    // Replay the reference: timers fire in (at, seq) order, each as it was set at its firing.
    const order = [...ref].sort((a, b) => a.at - b.at || a.seq - b.seq);
    const expected = order.filter((e) => fired.includes(e.id)).map((e) => e.id);
    expect(fired.length).toBeGreaterThan(500);
    expect(fired).toEqual(expected);
    expect(c.pending).toBe(0);
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
