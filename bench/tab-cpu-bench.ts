// tab_cpu_ms_per_s_*: what a tab costs in CPU, by what it does (where the time goes). Five Chromium tabs in one world, each its own browser context (its own renderer
// process and identity):
// - member: the player page with `?hosting=off&render=off`, a DHT node that hosts nothing
//   and plays nothing in the shared world (its world is local);
// - hosting (three tabs): host.html, the page that only hosts; with the replicas at 3 each is
//   primary or backup of every region the walker stands in or sees;
// - playing: the player page with `?hosting=play&render=off`, playing in the shared world
//   without hosting, its player walking (a teleport every 50 ms along a square at 4 blocks/s:
//   a new position for each of MOVE's 20 a second, region/move-rate.ts; it falls between
//   teleports, so at one every 100 ms its MOVEs went ~18 a second too, with half the steps).
// Each tab's main-thread time comes from DevTools `Performance.getMetrics` (TaskDuration: all
// tasks of the renderer's main thread; ScriptDuration: JavaScript of them) read at the start
// and the end of MEASURE_MS after WARMUP_MS; the figure is ms of it per second of wall time.
// Workers (the tick worker, proofs of work at start) are not in it; the Chromium processes'
// CPU by type from /proc (chromium-cpu.ts) is printed beside, whole-browser.
// Figures: tab_cpu_ms_per_s_{member,hosting,playing} (TaskDuration; hosting: the median of
// the three host tabs), tab_cpu_script_ms_per_s_* (ScriptDuration), tab_cpu_hosting_max,
// tab_cpu_hosting_regions (regions the median host holds as primary or backup at the end).
// Target: a member or an idle host under 20 ms/s.
// TAB_CPU_PROFILE=1: then profiles one tab of each kind for PROFILE_MS (DevTools Profiler,
// bench/cpu-profile.ts) and prints the functions with the most self time.
// Run: `npm run bench -- tab_cpu` (~1.5 minutes), or `npx vite build && bash scripts/netns.sh
// npx tsx bench/tab-cpu-bench.ts`.
import type { Browser, CDPSession, Page } from 'playwright-core';
import { launchBrowser, newContext } from '../e2e/browser';
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
interface Metrics { task: number; script: number; at: number; net: Record<string, number> }

async function open(browser: Browser, kind: Kind, url: string, until: string): Promise<Tab> {
  const ctx = await newContext(browser);
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
  // The DHT's counters (src/dht/stats.ts, flattened by net-api.ts): frames by type, signatures.
  // And the hosting layer's frames sent by channel and type ('app_out_replica_HEARTBEAT').
  const net = await t.page.evaluate(() => {
    const app = (window.voxelHost?.hosting ?? window.voxel.hosting)?.stats() ?? {};
    const out = Object.fromEntries(Object.entries(app).filter(([k]) => k.startsWith('out_')).map(([k, n]) => [`app_${k}`, n]));
    return { ...((window.voxelHost?.net ?? window.voxel.net)?.stats() ?? {}), ...out };
  });
  return { task: get('TaskDuration'), script: get('ScriptDuration'), at: performance.now(), net };
}

/** Per second between two readings, of every counter that moved, highest first. */
function netRates(a: Metrics, b: Metrics): [string, number][] {
  const s = (b.at - a.at) / 1000;
  return Object.keys(b.net)
    .map((k): [string, number] => [k, Math.round(((b.net[k]! - (a.net[k] ?? 0)) / s) * 10) / 10])
    .filter(([, r]) => r !== 0)
    .sort((x, y) => y[1] - x[1]);
}

/** The traffic lines of one tab: frames by type, routed messages by inner type, channels, signatures. */
function trafficText(rates: [string, number][]): string {
  const group = (prefix: string) => rates.filter(([k]) => k.startsWith(prefix)).map(([k, r]) => `${k.slice(prefix.length)} ${r}`).join(', ');
  const one = (k: string) => rates.find(([n]) => n === k)?.[1] ?? 0;
  return `frames in/s {${group('framesInByType_')}}; out/s {${group('framesOutByType_')}}; bytes in/s ${one('bytesIn')}, out/s ${one('bytesOut')}; `
    + `routed sent/s {${group('routedSentByType_')}}; delivered/s {${group('routedDeliveredByType_')}}; forwarded/s ${one('routedForwarded')}; `
    + `signed/s ${one('routedSigned')}, verified/s ${one('routedVerified')}; channels sent/s {${group('channel_sent_')}}, received/s {${group('channel_received_')}}; `
    + `hosting frames sent/s {${group('app_out_')}}; `
    + `rpc/s ${one('rpcSent')}, lookups/s ${one('lookups')}, lookup rpc/s ${one('lookupRpcs')}`;
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
    // Walking: a square of 48 blocks a side around the spawn, 0.2 blocks every 50 ms,
    // flying above the ground (teleport: the session's own path for a move).
    await player.page.evaluate(() => {
      const p0 = window.voxel.player();
      let d = 0;
      setInterval(() => {
        d = (d + 0.2) % 192;
        const side = Math.floor(d / 48), f = d % 48;
        const [dx, dz] = [[f, 0], [48, f], [48 - f, 48], [0, 48 - f]][side]!;
        void window.voxel.teleport(p0.x - 24 + dx!, 140, p0.z - 24 + dz!);
      }, 50);
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
    const rates = tabs.map((t, i) => netRates(before[i]!, after[i]!));
    for (const [i, t] of tabs.entries()) console.error(`tab_cpu: ${t.kind} traffic: ${trafficText(rates[i]!)}`);
    /** A counter's rate at the tab of a kind (hosting: the median of the host tabs). */
    const rateOf = (kind: Kind, ...keys: string[]) => median(tabs.flatMap((t, i) => (t.kind === kind ? [keys.reduce((sum, k) => sum + (rates[i]!.find(([n]) => n === k)?.[1] ?? 0), 0)] : [])));
    const traffic = Object.fromEntries((['member', 'hosting', 'playing'] as const).flatMap((k) => [
      [`tab_dht_frames_per_s_${k}`, Math.round(rateOf(k, 'framesIn', 'framesOut') * 10) / 10],
      [`tab_dht_kbytes_per_s_${k}`, Math.round(rateOf(k, 'bytesIn', 'bytesOut') / 100) / 10],
      [`tab_dht_signs_per_s_${k}`, rateOf(k, 'routedSigned')],
      [`tab_dht_verifies_per_s_${k}`, rateOf(k, 'routedVerified')],
    ]));
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
      ...traffic,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchTabCpu()));
}
