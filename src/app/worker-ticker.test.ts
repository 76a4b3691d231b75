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
    tick: (id) => w.onmessage?.({ data: { id, at: 0 } } as MessageEvent),
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
    expect(w.sent).toEqual([{ op: 'start', id: 1, hz: 20 }, { op: 'start', id: 2, hz: 5 }]);
    w.tick(1); w.tick(1); w.tick(2);
    expect([a, b, t.stats.ticks, t.stats.errors, errors.length]).toEqual([2, 1, 3, 2, 2]);
    stopA();
    w.tick(1);
    expect(a).toBe(2);
    expect(w.sent.at(-1)).toEqual({ op: 'stop', id: 1 });
    stopB();
    t.dispose();
    expect(w.terminated).toBe(true);
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
