// A hosting tab in the background keeps its 20 Hz tick (docs/DESIGN-CHANGES.md "Timers of a hidden tab"):
// browsers throttle a hidden tab's main-thread timers to about 1 Hz, so hosts are paced by
// the WorkerTicker (a dedicated worker's timer). The tab is really hidden (a second tab is
// opened in front of it; Playwright cannot hide a page, see bench/hidden-tick-bench.ts) and
// a plain main-thread setInterval beside the ticker shows that the throttling is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureHiddenTickOnce, startTickerPageServer } from '../bench/hidden-tick-bench';

let server: Awaited<ReturnType<typeof startTickerPageServer>>;

beforeAll(async () => {
  server = await startTickerPageServer();
});

afterAll(async () => {
  await server?.close();
});

describe('a hidden hosting tab', () => {
  it('keeps a 20 Hz worker tick while its main-thread timers are throttled', async () => {
    const r = await measureHiddenTickOnce(server.url, { hz: 20, hiddenMs: 5000 });
    console.log(`hidden tab: worker ticker ${r.workerHz.toFixed(1)} Hz, main-thread setInterval ${r.mainHz.toFixed(1)} Hz (visible: ${r.visibleWorkerHz} / ${r.visibleMainHz} Hz)`);
    expect(r.workerFallback).toBe(false);
    expect(r.visibleWorkerHz).toBeGreaterThanOrEqual(18);
    expect(r.hiddenShare).toBe(1);
    expect(r.workerHz).toBeGreaterThanOrEqual(19);
    expect(r.workerHz).toBeLessThanOrEqual(21);
    // The control: the same tab's main-thread timer is throttled, so the tab really is hidden.
    expect(r.mainHz).toBeLessThan(5);
  });
});
