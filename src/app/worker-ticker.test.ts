import { describe, expect, it, vi } from 'vitest';
import { WorkerTicker, type TickerCommand, type TickerWorkerLike } from './worker-ticker';

/** A worker stand-in the test ticks by hand. */
function fakeWorker() {
  const sent: TickerCommand[] = [];
  const w: TickerWorkerLike & { sent: TickerCommand[]; tick(id: number): void; fail(): void; terminated: boolean } = {
    sent, terminated: false,
    postMessage: (m) => sent.push(m),
    onmessage: null,
    onerror: null,
    terminate: () => { w.terminated = true; },
    tick: (id) => w.onmessage?.({ data: { ids: [id], at: 0 } } as MessageEvent),
    fail: () => w.onerror?.({ message: 'boom' } as ErrorEvent),
  };
  return w;
}

describe('worker ticker', () => {
  it('starts and stops tick sources in one worker; a throwing tick does not stop it', () => {
    const w = fakeWorker();
    const errors: unknown[] = [];
    const t = new WorkerTicker(() => w, (e) => errors.push(e));
    let a = 0, b = 0;
    const stopA = t.start(20, () => { a++; throw new Error('tick failed'); });
    const stopB = t.start(5, () => b++);
    expect(w.sent.map((m) => m.op === 'start' && m.hz)).toEqual([20, 5]);
    const [fast, slow] = w.sent.map((m) => m.id);
    w.tick(fast!); w.tick(fast!); w.tick(slow!);
    expect([a, b, t.stats.ticks, t.stats.errors, errors.length]).toEqual([2, 1, 3, 2, 2]);
    stopA();
    w.tick(fast!);
    expect(a).toBe(2);
    expect(w.sent.at(-1)).toEqual({ op: 'stop', id: fast });
    stopB();
    t.dispose();
    expect(w.terminated).toBe(true);
  });

  it('runs the sources of one rate from one worker timer, in one task, until the last stops', () => {
    const w = fakeWorker();
    const t = new WorkerTicker(() => w);
    const ran: string[] = [];
    const stops = ['r1', 'r2', 'r3'].map((name) => t.start(20, () => ran.push(name)));
    // One timer in the worker for the three regions' ticks: one message, one task, per tick.
    expect(w.sent).toEqual([{ op: 'start', id: w.sent[0]!.id, hz: 20 }]);
    w.tick(w.sent[0]!.id);
    expect(ran).toEqual(['r1', 'r2', 'r3']);
    stops[1]!();
    w.tick(w.sent[0]!.id);
    expect(ran.slice(3)).toEqual(['r1', 'r3']);
    stops[0]!(); stops[2]!();
    expect(w.sent.at(-1)).toEqual({ op: 'stop', id: w.sent[0]!.id });
    // A source stopped by another in the same tick does not run.
    let stopLater = () => {};
    const order: string[] = [];
    t.start(10, () => { order.push('first'); stopLater(); });
    stopLater = t.start(10, () => order.push('second'));
    w.tick((w.sent.at(-1) as { id: number }).id);
    expect(order).toEqual(['first']);
  });

  it('rejects absurd rates', () => {
    const t = new WorkerTicker(() => fakeWorker());
    expect(() => t.start(0, () => {})).toThrow(RangeError);
    expect(() => t.start(Infinity, () => {})).toThrow(RangeError);
  });

  it('falls back to main-thread timers when the worker cannot start or fails', () => {
    vi.useFakeTimers();
    try {
      const noWorker = new WorkerTicker(() => { throw new Error('no Worker here'); }, () => {});
      let n = 0;
      const stop = noWorker.start(20, () => n++);
      vi.advanceTimersByTime(1000);
      expect(n).toBe(20);
      expect(noWorker.stats.fallback).toBe(true);
      stop();
      vi.advanceTimersByTime(1000);
      expect(n).toBe(20);

      const w = fakeWorker();
      const failing = new WorkerTicker(() => w, () => {});
      let m = 0;
      const stopM = failing.start(10, () => m++);
      w.fail();
      expect(w.terminated).toBe(true);
      vi.advanceTimersByTime(1000);
      expect(m).toBe(10);
      stopM();
      vi.advanceTimersByTime(1000);
      expect(m).toBe(10);
    } finally {
      vi.useRealTimers();
    }
  });
});
