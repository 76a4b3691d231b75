// tab_cpu_ms_per_s_*: what a tab costs in CPU, by what it does (issue 29 "Know where the time
// goes"). Five Chromium tabs in one world, each its own browser context (its own renderer
// process and identity):
// - member: the player page with `?hosting=off&render=off`, a DHT node that hosts nothing
//   and plays nothing in the shared world (its world is local);
// - hosting (three tabs): host.html, the page that only hosts; with the replicas at 3 each is
//   primary or backup of every region the walker stands in or sees;
// - playing: the player page with `?hosting=play&render=off`, playing in the shared world
//   without hosting, its player walking (a teleport every 100 ms along a square at 4 blocks/s).
// Each tab's main-thread time comes from DevTools `Performance.getMetrics` (TaskDuration: all
// tasks of the renderer's main thread; ScriptDuration: JavaScript of them) read at the start
// and the end of MEASURE_MS after WARMUP_MS; the figure is ms of it per second of wall time.
// Workers (the tick worker, proofs of work at start) are not in it; the Chromium processes'
// CPU by type from /proc (chromium-cpu.ts) is printed beside, whole-browser.
// Figures: tab_cpu_ms_per_s_{member,hosting,playing} (TaskDuration; hosting: the median of
// the three host tabs), tab_cpu_script_ms_per_s_* (ScriptDuration), tab_cpu_hosting_max,
// tab_cpu_hosting_regions (regions the median host holds as primary or backup at the end).
// Target (issue 29): a member or an idle host under 20 ms/s.
// TAB_CPU_PROFILE=1: then profiles one tab of each kind for PROFILE_MS (DevTools Profiler,
// bench/cpu-profile.ts) and prints the functions with the most self time.
// Run: `npm run bench -- tab_cpu` (~1.5 minutes), or `npx vite build && bash scripts/netns.sh
// npx tsx bench/tab-cpu-bench.ts`.
import type { Browser, CDPSession, Page } from 'playwright-core';
import { launchBrowser } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { chromiumCpu, cpuReport } from './chromium-cpu';
import { profilePage } from './cpu-profile';
import { median } from './stats';

const PORT = 8101;
const WORLD = '#world=tab-cpu-bench&seed=tab-cpu';
const WARMUP_MS = Number(process.env.TAB_CPU_WARMUP_MS ?? 20_000);
const MEASURE_MS = Number(process.env.TAB_CPU_MEASURE_MS ?? 40_000);
const HOSTS = 3;
const PROFILE_MS = 15_000;

type Kind = 'member' | 'hosting' | 'playing';
interface Tab { kind: Kind; page: Page; cdp: CDPSession }
interface Metrics { task: number; script: number; at: number }

async function open(browser: Browser, kind: Kind, url: string, until: string): Promise<Tab> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(`tab_cpu ${kind} pageerror`, e));
  await page.goto(url);
  await page.waitForFunction(until, null, { timeout: 60_000, polling: 100 });
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  return { kind, page, cdp };
}

async function metrics(t: Tab): Promise<Metrics> {
  const { metrics } = await t.cdp.send('Performance.getMetrics');
  const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? NaN;
  return { task: get('TaskDuration'), script: get('ScriptDuration'), at: performance.now() };
}

/** ms of main-thread time per second of wall time between two readings. */
const perSecond = (a: Metrics, b: Metrics, key: 'task' | 'script') => Math.round(((b[key] - a[key]) * 1000 * 1000) / (b.at - a.at) * 10) / 10;

export async function benchTabCpu(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const base = server.url.replace(/\/$/, '/');
  try {
    const tabs: Tab[] = [];
    for (let i = 0; i < HOSTS; i++) tabs.push(await open(browser, 'hosting', `${base}host.html${WORLD}`, 'window.voxelHost?.ready === true'));
    tabs.push(await open(browser, 'member', `${base}?render=off&rd=2&hosting=off${WORLD}`, 'window.voxel?.net !== undefined'));
    const player = await open(browser, 'playing', `${base}?render=off&rd=2&hosting=play${WORLD}`, 'window.voxel?.hosting !== undefined');
    tabs.push(player);
    await player.page.evaluate(() => window.voxel.ready());
    // Walking: a square of 48 blocks a side around the spawn, 0.4 blocks every 100 ms,
    // flying above the ground (teleport: the session's own path for a move).
    await player.page.evaluate(() => {
      const p0 = window.voxel.player();
      let d = 0;
      setInterval(() => {
        d = (d + 0.4) % 192;
        const side = Math.floor(d / 48), f = d % 48;
        const [dx, dz] = [[f, 0], [48, f], [48 - f, 48], [0, 48 - f]][side]!;
        void window.voxel.teleport(p0.x - 24 + dx!, 140, p0.z - 24 + dz!);
      }, 100);
    });
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const before = await Promise.all(tabs.map(metrics));
    const cpu0 = chromiumCpu();
    await new Promise((r) => setTimeout(r, MEASURE_MS));
    const after = await Promise.all(tabs.map(metrics));
    const report = cpuReport(cpu0, chromiumCpu(), MEASURE_MS / 1000);
    const of = (kind: Kind, key: 'task' | 'script') => tabs.flatMap((t, i) => (t.kind === kind ? [perSecond(before[i]!, after[i]!, key)] : []));
    const regions = await Promise.all(tabs.filter((t) => t.kind === 'hosting').map((t) => t.page.evaluate(() => {
      const r = window.voxelHost!.hosting.roles();
      return r.primary.length + r.backup.length;
    })));
    const live = await player.page.evaluate(() => window.voxel.hosting!.liveRegions().length);
    console.error(`tab_cpu: main-thread ms/s by tab: ${tabs.map((t, i) => `${t.kind} ${perSecond(before[i]!, after[i]!, 'task')} (script ${perSecond(before[i]!, after[i]!, 'script')})`).join(', ')}; host regions held ${regions.join(',')}; the player's live regions ${live}; Chromium cores by process type: ${report.text}`);
    if (process.env.TAB_CPU_PROFILE) {
      const kinds = (['member', 'hosting', 'playing'] as const).map((k) => tabs.find((t) => t.kind === k)!);
      const stops = await Promise.all(kinds.map((t) => profilePage(t.page)));
      await new Promise((r) => setTimeout(r, PROFILE_MS));
      for (const [i, stop] of stops.entries()) {
        const s = await stop();
        console.error(`tab_cpu: ${kinds[i]!.kind} profiled ${Math.round(s.wallMs)} ms, busy ${Math.round(s.busyMs)} ms; by self ms: ${s.functions.slice(0, 20).map(([f, ms]) => `${f} ${Math.round(ms)}`).join('; ')}`);
        console.error(`tab_cpu: ${kinds[i]!.kind} by file: ${s.files.slice(0, 6).map(([f, ms]) => `${f} ${Math.round(ms)}`).join('; ')}`);
      }
    }
    return {
      tab_cpu_ms_per_s_member: of('member', 'task')[0]!,
      tab_cpu_ms_per_s_hosting: median(of('hosting', 'task')),
      tab_cpu_ms_per_s_hosting_max: Math.max(...of('hosting', 'task')),
      tab_cpu_ms_per_s_playing: of('playing', 'task')[0]!,
      tab_cpu_script_ms_per_s_member: of('member', 'script')[0]!,
      tab_cpu_script_ms_per_s_hosting: median(of('hosting', 'script')),
      tab_cpu_script_ms_per_s_playing: of('playing', 'script')[0]!,
      tab_cpu_hosting_regions: median(regions),
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchTabCpu()));
}
