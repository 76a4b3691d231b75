// tab_join_ms: a new Chromium tab to its first DHT lookup answered (6 tabs, loopback).
// tab_route_ms_p50: one-way latency of a routed message between tabs with no direct link.
// Tabs run with rendering off and a link budget of 4 (below the 5 of a full mesh), so
// routed pairs exist. Each tab has its own browser context (its own identity).
import type { Page } from 'playwright-core';
import { launchBrowser } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { median, percentile } from './stats';

const TABS = 6;
const PORT = 8096;
const MESSAGES_PER_PAIR = 20;

type Net = NonNullable<Window['voxel']['net']>;
const call = <T>(p: Page, fn: (net: Net, arg: unknown) => T | Promise<T>, arg?: unknown): Promise<T> =>
  p.evaluate(([f, a]) => new Function('net', 'arg', `return (${f})(net, arg)`)(window.voxel.net, a), [fn.toString(), arg] as const) as Promise<T>;

export async function benchTabs(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const joins: number[] = [];
  const tabs: Page[] = [];
  try {
    for (let i = 0; i < TABS; i++) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      const t0 = Date.now();
      await page.goto(`${server.url}?render=off&rd=2&hosting=off&links=4#world=bench-net`);
      await page.waitForFunction(() => window.voxel?.net !== undefined, null, { timeout: 30_000, polling: 5 });
      // First lookup answered: a random target, at least one other node in the answer.
      await page.waitForFunction(async () => {
        const hex = Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, '0')).join('');
        const own = window.voxel.net!.id();
        return (await window.voxel.net!.lookup(hex)).some((id) => id !== own);
      }, null, { timeout: 30_000, polling: 5 }).catch((e: Error) => { if (i > 0) throw e; });
      if (i > 0) joins.push(Date.now() - t0);
      tabs.push(page);
    }
    await new Promise((r) => setTimeout(r, 2000)); // let link budgets settle
    const ids = await Promise.all(tabs.map((p) => call(p, (n) => n.id())));
    const latencies: number[] = [];
    for (let a = 0; a < TABS; a++) {
      const linked = await call(tabs[a]!, (n) => n.links().map((l) => l.id));
      for (let b = 0; b < TABS; b++) {
        if (a === b || linked.includes(ids[b]!)) continue;
        for (let m = 0; m < MESSAGES_PER_PAIR; m++) {
          await call(tabs[a]!, (n, arg) => {
            const [to, tag] = arg as [string, string];
            n.send(to, `${tag}|${performance.timeOrigin + performance.now()}`);
          }, [ids[b], `lat-${a}-${b}-${m}`]);
          await new Promise((r) => setTimeout(r, 20));
        }
        const got = await call(tabs[b]!, (n, tag) => n.received().filter((r) => r.msg.startsWith(tag as string)), `lat-${a}-${b}-`);
        for (const r of got) latencies.push(r.at - Number(r.msg.split('|')[1]));
      }
    }
    if (latencies.length === 0) throw new Error('every pair had a direct link: no routed latency measured');
    return {
      tab_join_ms: median(joins),
      tab_route_ms_p50: median(latencies),
      tab_route_ms_p99: percentile(latencies, 99),
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchTabs()));
}
