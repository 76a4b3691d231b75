// What limits a drawing tab's frame rate on this machine (the spawn skew between tabs is
// the drawing tab's frame interval). Each case opens real Chromium tabs (WebGL on
// SwiftShader, as in every bench), lets them settle, then counts the drawing tab's
// requestAnimationFrame intervals for MEASURE_MS and the CPU its browser's processes used
// meanwhile, by process type (the GPU process is where SwiftShader draws).
// Cases: the drawing tab alone (one-tab mode, no network) at the items bench's viewport
// and render distance, smaller and larger viewports, a shorter render distance, a page
// that draws nothing but a cleared canvas (the frame pipeline alone), and the items
// bench's set-up (the drawing tab among four networked render=off tabs).
import { loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { chromiumCpu, cpuReport } from './chromium-cpu';
import { median, percentile } from './stats';

const PORT = 8094;
const SETTLE_MS = 5000;
const MEASURE_MS = Number(process.env.DRAW_RATE_MS ?? 10_000);

type Case = { name: string; width: number; height: number; url: (base: string) => string; idleTabs: number };

const game = (q: string) => (base: string) => `${base}?${q}#world=draw-rate&seed=draw-rate`;
const CASES: Case[] = [
  { name: 'clear_canvas', width: 480, height: 300, url: () => '', idleTabs: 0 },
  { name: 'alone_480x300_rd2', width: 480, height: 300, url: game('net=off&rd=2'), idleTabs: 0 },
  { name: 'alone_240x150_rd2', width: 240, height: 150, url: game('net=off&rd=2'), idleTabs: 0 },
  { name: 'alone_480x300_rd1', width: 480, height: 300, url: game('net=off&rd=1'), idleTabs: 0 },
  { name: 'alone_960x600_rd2', width: 960, height: 600, url: game('net=off&rd=2'), idleTabs: 0 },
  { name: 'with_4_tabs_480x300_rd2', width: 480, height: 300, url: game('rd=2&spawnms=2000'), idleTabs: 4 },
];

// Strings, as tsx would wrap a named function inside them in a helper the page does not have.
const countFrames = (p: Page, ms: number) => p.evaluate(`new Promise((resolve) => {
  const ts = [];
  const from = performance.now();
  requestAnimationFrame(function tick(t) {
    ts.push(t);
    if (performance.now() - from < ${ms}) requestAnimationFrame(tick);
    else resolve(ts);
  });
})`) as Promise<number[]>;

/** A full-page WebGL canvas cleared to a new colour every frame: the frame pipeline with no scene. */
const CLEAR_CANVAS = `(() => {
  const c = document.createElement('canvas');
  c.width = innerWidth; c.height = innerHeight;
  document.body.style.margin = '0';
  document.body.appendChild(c);
  const gl = c.getContext('webgl2');
  requestAnimationFrame(function tick(t) {
    gl.clearColor((t / 1000) % 1, 0.5, 0.5, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    requestAnimationFrame(tick);
  });
})()`;

async function runCase(browser: Browser, base: string, c: Case): Promise<Record<string, number>> {
  const pages: Page[] = [];
  const isGame = !c.name.startsWith('clear');
  try {
    pages.push(await openInFreshContext(browser, isGame ? c.url(base) : undefined, { label: c.name, ...(isGame ? { until: c.idleTabs ? PAGE_UP.hosting : PAGE_UP.voxel, ready: true, timeoutMs: 60_000 } : {}), viewport: { width: c.width, height: c.height } }));
    if (!isGame) await pages[0]!.evaluate(CLEAR_CANVAS);
    for (let i = 0; i < c.idleTabs; i++) {
      pages.push(await openInFreshContext(browser, `${base}?rd=2&spawnms=2000&render=off#world=draw-rate&seed=draw-rate`, { label: `${c.name} idle ${i}`, until: PAGE_UP.hosting, ready: true, timeoutMs: 60_000 }));
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const before = chromiumCpu();
    const ts = await countFrames(pages[0]!, MEASURE_MS);
    const after = chromiumCpu();
    const gaps = ts.slice(1).map((t, i) => t - ts[i]!);
    const secs = (ts.at(-1)! - ts[0]!) / 1000;
    const { text, cores: cpu } = cpuReport(before, after, secs);
    const fps = gaps.length / secs;
    console.error(`draw rate ${c.name}: ${fps.toFixed(1)} fps, interval p50 ${median(gaps).toFixed(1)} p90 ${percentile(gaps, 90).toFixed(1)} max ${Math.max(...gaps).toFixed(1)} ms; CPU cores (processes) ${text}; load ${loadavg()[0]!.toFixed(2)}`);
    return {
      [`draw_rate_${c.name}_fps`]: fps,
      [`draw_rate_${c.name}_interval_ms_p90`]: percentile(gaps, 90),
      [`draw_rate_${c.name}_gpu_cores`]: cpu('gpu-process'),
      [`draw_rate_${c.name}_renderer_cores`]: cpu('renderer'),
    };
  } finally {
    for (const p of pages) await p.context().close().catch(() => {});
  }
}

export async function benchDrawRate(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  try {
    const out: Record<string, number> = {};
    const only = process.env.DRAW_RATE_CASES?.split(',');
    for (const c of CASES) if (!only || only.includes(c.name)) Object.assign(out, await runCase(browser, `${server.url}`, c));
    return out;
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchDrawRate()));
}
