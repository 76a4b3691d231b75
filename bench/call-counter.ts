// Counts, in one page, the calls that each cost the main thread a task or a native round
// trip (timers, microtasks, worker and data-channel messages, message events received) by
// the function that made them: a CPU profile shows where time goes but not how often, and a
// loaded tab's unattributed "(program)" time grows with the number of tasks it runs
// (bench/agents.ts --count-calls).
import type { BrowserContext, Page } from 'playwright-core';

/** Installs the counters in every page the context opens (before the app's code runs). */
export async function countCalls(context: BrowserContext): Promise<void> {
  // A string, not a function: tsx compiles functions with helpers (__name) the page lacks.
  await context.addInitScript(COUNTER_SCRIPT);
}

const COUNTER_SCRIPT = `(() => {
  const counts = new Map();
  const caller = () => {
    const lines = (new Error().stack || '').split('\\n');
    // [0] "Error", [1] caller(), [2] bump(), [3] the wrapper, [4] who called it.
    const l = (lines[4] || '').trim().replace(/^at /, '').replace(/https?:\\/\\/[^/]+\\//, '').replace(/\\?[^:)]*/, '');
    return l.slice(0, 120);
  };
  const bump = (kind) => {
    const k = kind + ' ' + caller();
    counts.set(k, (counts.get(k) || 0) + 1);
  };
  const wrap = (obj, name, kind) => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function (...a) {
      bump(kind);
      return orig.apply(this, a);
    };
  };
  wrap(window, 'setTimeout', 'setTimeout');
  wrap(window, 'setInterval', 'setInterval');
  wrap(window, 'queueMicrotask', 'queueMicrotask');
  wrap(Worker.prototype, 'postMessage', 'worker.postMessage');
  wrap(MessagePort.prototype, 'postMessage', 'port.postMessage');
  wrap(RTCDataChannel.prototype, 'send', 'channel.send');
  window.__calls = () => [...counts].sort((a, b) => b[1] - a[1]);
  window.__resetCalls = () => counts.clear();
})();`;

export async function resetCalls(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { __resetCalls: () => void }).__resetCalls());
}

export async function readCalls(page: Page): Promise<[string, number][]> {
  return page.evaluate(() => (window as unknown as { __calls: () => [string, number][] }).__calls());
}
