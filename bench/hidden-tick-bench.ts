// hidden_host_tick_hz: the tick rate a hosting tab keeps while it is in the background,
// driven by the WorkerTicker (src/app/worker-ticker.ts); beside it, for contrast, a plain
// main-thread setInterval in the same hidden tab (hidden_main_thread_tick_hz).
//
// How a tab is made really hidden (measured with Chromium 156):
// - Playwright cannot do it: every page it drives reports visibilityState 'visible' (it
//   emulates focus on the pages it attaches to), whether another tab is brought to
//   front, the window minimised or the page created as a background target, headless or
//   headful; and its default switches (--disable-background-timer-throttling,
//   --disable-renderer-backgrounding, ...) turn the throttling off anyway.
// - Plain Chromium (our own switches only, headless) driven over the raw DevTools
//   protocol: opening a second tab in the window (PUT /json/new) hides the first one
//   ('hidden', a visibilitychange fires), and its main-thread timers drop to 1 Hz at
//   once, while a dedicated worker's timer keeps 20 Hz.
// So this file launches Chromium itself and speaks CDP over a WebSocket, nothing more.
// The page is e2e/pages/ticker.html, served by vite's dev server (test-only code stays out
// of the build). Run in the loopback-only namespace like every browser test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { CHROMIUM_ARGS, CHROMIUM_FULL, startDevServer } from '../e2e/browser';
import type { TickCounts } from '../e2e/pages/ticker';
import { median } from './stats';

export const HIDDEN_TICK_DEFAULTS = {
  /** vite dev server port for the ticker page. */
  pagePort: 8094,
  hz: 20,
  /** How long the tab is measured while hidden. */
  hiddenMs: 5000,
  runs: 3,
};

export interface HiddenTickRun {
  /** Worker-driven ticks per second while hidden. */
  workerHz: number;
  /** Main-thread setInterval ticks per second in the same hidden tab. */
  mainHz: number;
  /** Share of the measured ticks that ran while document.visibilityState was 'hidden'. */
  hiddenShare: number;
  visibleWorkerHz: number;
  visibleMainHz: number;
  workerFallback: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Serves e2e/pages/ticker.html from the repository with vite's dev server. */
export async function startTickerPageServer(port = HIDDEN_TICK_DEFAULTS.pagePort): Promise<{ url: string; close: () => Promise<void> }> {
  const vite = await startDevServer(port);
  return { url: `http://127.0.0.1:${port}/e2e/pages/ticker.html`, close: () => vite.close() };
}

/** A bare DevTools-protocol session on one page target. */
export class CdpPage {
  private nextId = 0;
  private readonly pending = new Map<number, (m: { result?: { result?: { value?: unknown }; exceptionDetails?: unknown }; error?: { message: string } }) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { id?: number };
      if (m.id !== undefined) this.pending.get(m.id)?.(m as never);
    });
  }

  static async open(wsUrl: string): Promise<CdpPage> {
    const ws = new WebSocket(wsUrl);
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    return new CdpPage(ws);
  }

  /** Evaluates an expression in the page (promises awaited) and returns its JSON value. */
  eval<T>(expression: string): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, (m) => {
        this.pending.delete(id);
        if (m.error) reject(new Error(m.error.message));
        else if (m.result?.exceptionDetails) reject(new Error(`page threw: ${JSON.stringify(m.result.exceptionDetails).slice(0, 300)}`));
        else resolve(m.result?.result?.value as T);
      });
      this.ws.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true, awaitPromise: true } }));
    });
  }

  close(): void {
    this.ws.close();
  }
}

/** Plain headless Chromium with our switches only (no Playwright defaults), on a DevTools port. */
export async function launchPlainChromium(url: string): Promise<{ port: number; proc: ChildProcess; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'vp-hidden-'));
  const proc = spawn(CHROMIUM_FULL, [...CHROMIUM_ARGS, '--headless', '--remote-debugging-port=0', `--user-data-dir=${dir}`, url], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const dispose = async () => {
    proc.kill();
    await Promise.race([exited, sleep(5000)]);
    // Its helper processes may still be writing the profile for a moment: retry, then leave it.
    for (let i = 0; i < 10; i++) {
      try {
        rmSync(dir, { recursive: true, force: true });
        return;
      } catch {
        await sleep(300);
      }
    }
  };
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      const port = Number(readFileSync(join(dir, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
      if (port > 0) return { port, proc, dispose };
    } catch {
      // not written yet
    }
    if (Date.now() > until || proc.exitCode !== null) {
      await dispose();
      throw new Error(`Chromium (${CHROMIUM_FULL}) did not open its DevTools port`);
    }
    await sleep(100);
  }
}

/** One run: the ticker page visible for a moment, then hidden behind a new tab for `hiddenMs`. */
export async function measureHiddenTickOnce(pageUrl: string, opts: Partial<typeof HIDDEN_TICK_DEFAULTS> = {}): Promise<HiddenTickRun> {
  const o = { ...HIDDEN_TICK_DEFAULTS, ...opts };
  const chrome = await launchPlainChromium(pageUrl);
  let page: CdpPage | undefined;
  try {
    const base = `http://127.0.0.1:${chrome.port}`;
    let target: { url: string; webSocketDebuggerUrl: string } | undefined;
    for (let i = 0; i < 100 && !target; i++) {
      const list = (await (await fetch(`${base}/json/list`)).json()) as { type: string; url: string; webSocketDebuggerUrl: string }[];
      target = list.find((t) => t.type === 'page' && t.url.includes('ticker'));
      if (!target) await sleep(100);
    }
    if (!target) throw new Error('the ticker page did not open');
    page = await CdpPage.open(target.webSocketDebuggerUrl);
    for (let i = 0; !(await page.eval<boolean>('typeof window.vpTicker === "object"')); i++) {
      if (i > 300) throw new Error('the ticker page did not load (window.vpTicker missing)');
      await sleep(100);
    }
    await page.eval(`window.vpTicker.start(${o.hz})`);
    await sleep(500);
    const v0 = await page.eval<number>('window.vpTicker.now()');
    await sleep(1000);
    const visible = await page.eval<TickCounts>(`window.vpTicker.counts(${v0})`);
    // A new tab in the same window: the ticker tab is now a background tab.
    const opened = await fetch(`${base}/json/new?about:blank`, { method: 'PUT' });
    if (!opened.ok) throw new Error(`could not open a second tab: HTTP ${opened.status}`);
    await sleep(300);
    const vis = await page.eval<string>('document.visibilityState');
    if (vis !== 'hidden') throw new Error(`the ticker tab stayed '${vis}' behind a new tab: cannot measure a hidden tab`);
    const h0 = await page.eval<number>('window.vpTicker.now()');
    await sleep(o.hiddenMs);
    const h1 = await page.eval<number>('window.vpTicker.now()');
    const hidden = await page.eval<TickCounts>(`window.vpTicker.counts(${h0})`);
    const secs = (h1 - h0) / 1000;
    return {
      workerHz: hidden.worker / secs,
      mainHz: hidden.main / secs,
      hiddenShare: hidden.worker ? hidden.workerHidden / hidden.worker : 0,
      visibleWorkerHz: visible.worker,
      visibleMainHz: visible.main,
      workerFallback: await page.eval<boolean>('window.vpTicker.workerFallback()'),
    };
  } finally {
    page?.close();
    await chrome.dispose();
  }
}

/** For bench/run.ts: medians over `runs` runs. */
export async function measureHiddenTickHz(opts: Partial<typeof HIDDEN_TICK_DEFAULTS> = {}): Promise<Record<string, number>> {
  const o = { ...HIDDEN_TICK_DEFAULTS, ...opts };
  const server = await startTickerPageServer(o.pagePort);
  try {
    const runs: HiddenTickRun[] = [];
    for (let i = 0; i < o.runs; i++) runs.push(await measureHiddenTickOnce(server.url, o));
    return {
      hidden_host_tick_hz: round(median(runs.map((r) => r.workerHz))),
      hidden_main_thread_tick_hz: round(median(runs.map((r) => r.mainHz))),
    };
  } finally {
    await server.close();
  }
}

const round = (x: number) => Math.round(x * 100) / 100;

// `npx tsx bench/hidden-tick-bench.ts` (inside scripts/netns.sh) prints the figures.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measureHiddenTickHz()));
}
