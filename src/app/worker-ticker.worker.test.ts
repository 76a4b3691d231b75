import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TickerCommand, TickerTick } from './worker-ticker';

describe('worker ticker, worker side', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('sends the ticks of rates that fall together in one message; a stopped rate stops', async () => {
    vi.useFakeTimers();
    const posted: TickerTick[] = [];
    vi.stubGlobal('postMessage', (m: TickerTick) => posted.push(m));
    await import('./worker-ticker.worker');
    const send = (m: TickerCommand) => (globalThis as unknown as { onmessage: (e: { data: TickerCommand }) => void }).onmessage({ data: m });
    send({ op: 'start', id: 1, hz: 40 });
    send({ op: 'start', id: 2, hz: 20 });
    send({ op: 'start', id: 3, hz: 10 });
    vi.advanceTimersByTime(1000);
    // 40 + 20 + 10 ticks in 40 messages: each 20 Hz tick rides a 40 Hz one, each 10 Hz tick both.
    const count = (id: number) => posted.filter((m) => m.ids.includes(id)).length;
    expect([count(1), count(2), count(3)]).toEqual([40, 20, 10]);
    expect(posted.length).toBe(40);
    expect(posted.filter((m) => m.ids.length === 3).length).toBe(10);
    send({ op: 'stop', id: 1 });
    send({ op: 'stop', id: 3 });
    posted.length = 0;
    vi.advanceTimersByTime(1000);
    expect(posted.length).toBe(20);
    send({ op: 'stop', id: 2 });
    posted.length = 0;
    vi.advanceTimersByTime(1000);
    expect(posted).toEqual([]);
  });
});
