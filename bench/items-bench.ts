// The items layer's tab figures (docs/ITEMS.md "What the tab figures measure"), between real
// Chromium tabs over real WebRTC on loopback: one tab draws (WebGL on SwiftShader), the
// others run with render=off, and one more, the collector, picks items up so the region
// (at most 6 lying items) keeps spawning. All stand in one region, whose hosts are tabs.
//
// clock_offset_error_ms_p99: every tab shares the machine's clock, so each computes its own
// error in place, at one instant, every 50 ms: its world clock's now() minus the machine
// clock (performance.timeOrigin + performance.now()), which is what a clock following the
// region's hosts must read (a host that follows nobody keeps world time = that machine
// clock). No page.evaluate round trip sits inside a sample. p99 of |error| over every
// sample of every tab after a warm-up.
// spawn_skew_ms_max: for each item spawned while the tabs watch, the moment it appeared in
// each watching tab, machine clock (play/item-appearances.ts: the drawing tab's first frame
// that drew it, the others' model switching it on); skew = latest - earliest; the max over
// items. Items some watching tab never showed are counted (items_missed), and appearances
// learned only after the item's time (items_late).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, launchBrowser, launchOptions, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { chromiumCpu, cpuReport } from './chromium-cpu';
import { frameFigures, readFrames, startFrameLog } from './items-frames';
import { median, percentile } from './stats';

const PORT = 8093;
/** Tabs whose item appearances are compared (tab 0 draws); the collector comes on top. */
const WATCHERS = 4;
const WARMUP_MS = 15_000;
const MEASURE_MS = Number(process.env.ITEMS_BENCH_MS ?? 60_000);
/** Items due this close to the end are left out (a tab may not have drawn them yet). */
const TAIL_MS = 3000;
const SAMPLE_MS = 50;

type Sample = { err: number; bound: number; rtt: number; ref: string; host: number; hostRef: string };
type Shown = { id: string; at: number; shownMs: number; late: boolean; drawn: boolean };

const standY = (p: Page, x: number, z: number) => p.evaluate(([x, z]) => {
  for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return -1;
}, [Math.floor(x), Math.floor(z)]);

async function stand(p: Page, x: number, z: number): Promise<void> {
  const y = await standY(p, x, z);
  await p.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x, y, z]);
}

/**
 * Starts sampling the tab's clock error in the page (kept there, read once at the end).
 * The machine clock is the system clock (Date.now()) at sub-millisecond precision: its
 * epoch origin read at 20 of its millisecond ticks (the largest kept: a late read errs
 * low). A page's performance.timeOrigin could in principle sit off it (Chromium fixes it
 * per page); the difference is returned and logged (0-0.1 ms so far).
 */
const startSampling = (p: Page) => p.evaluate((every) => {
  let origin = -Infinity;
  for (let prev = Date.now(), ticks = 0; ticks < 20;) {
    const w = Date.now(), t = performance.now();
    if (w === prev) continue;
    if (w === prev + 1) origin = Math.max(origin, w - t);
    prev = w;
    ticks++;
  }
  const w = window as unknown as { __clock: Sample[] };
  w.__clock = [];
  setInterval(() => {
    const c = window.voxel.items!.clock();
    const machine = origin + performance.now();
    const h = window.voxel.hosting!.clock();
    const hostErr = h.now - (origin + performance.now());
    if (w.__clock.length < 20_000) w.__clock.push({ err: c.now - machine, bound: c.bound, rtt: c.minRtt, ref: c.reference?.slice(0, 6) ?? '-', host: hostErr, hostRef: h.reference?.slice(0, 6) ?? '-' });
  }, every);
  return origin - performance.timeOrigin;
}, SAMPLE_MS);

/**
 * `ITEMS_BENCH_OTHERS=niced`: the tabs that draw nothing run in a second Chromium at a lower
 * CPU priority (nice 10), as the other players' tabs would on their own machines: the
 * drawing tab then has the CPU first on this 2-core machine. Its keys end in `_others_niced`.
 */
const OTHERS_NICED = process.env.ITEMS_BENCH_OTHERS === 'niced';
/** `ITEMS_BENCH_PACE=off`: the drawing tab never holds a frame before an item appears (play/item-frame-pacer.ts); keys end in `_pace_off`. */
const PACE_OFF = process.env.ITEMS_BENCH_PACE === 'off';
const SUFFIX = `${PACE_OFF ? '_pace_off' : ''}${OTHERS_NICED ? '_others_niced' : ''}`;

/** Chromium through `nice -n 10` (a wrapper script as its executable). */
async function launchNiced(): Promise<Browser> {
  const dir = mkdtempSync(join(tmpdir(), 'vp-nice-'));
  const exe = join(dir, 'chromium');
  writeFileSync(exe, `#!/bin/sh\nexec nice -n 10 ${CHROMIUM} "$@"\n`, { mode: 0o755 });
  return chromium.launch({ ...launchOptions(), executablePath: exe });
}

export async function benchItems(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const others = OTHERS_NICED ? await launchNiced() : browser;
  try {
    const pages: Page[] = [];
    for (let i = 0; i <= WATCHERS; i++) {
      const url = `${server.url}?rd=2&spawnms=2000${i === 0 ? (PACE_OFF ? '&pace=off' : '') : '&render=off'}#world=items-bench&seed=items-bench`;
      pages.push(await openInFreshContext(i === 0 ? browser : others, url, { label: `tab ${i}`, until: PAGE_UP.hosting, ready: true, timeoutMs: 60_000, ...(i === 0 ? { viewport: { width: 480, height: 300 } } : {}) }));
    }
    const collector = pages[WATCHERS]!;
    // Everyone near the middle of tab 0's region, so every item of it lies within view (48 blocks).
    const me = await pages[0]!.evaluate(() => window.voxel.player());
    const [rx, rz] = [Math.floor(me.x / 64), Math.floor(me.z / 64)];
    const [cx, cz] = [rx * 64 + 32, rz * 64 + 32];
    for (let i = 0; i <= WATCHERS; i++) await stand(pages[i]!, cx + i + 0.5, cz + 0.5);
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const origins = await Promise.all(pages.map(startSampling));
    const ids = await Promise.all(pages.map((p) => p.evaluate(() => window.voxel.net!.id().slice(0, 6))));
    console.error(`items bench: tabs ${ids.join(', ')}; system clock origin minus performance.timeOrigin per tab ${origins.map((o) => o.toFixed(2)).join(', ')} ms`);
    await startFrameLog(pages[0]!);
    const frames0 = await pages[0]!.evaluate(() => window.voxel.stats().frames);
    const cpu0 = chromiumCpu();
    /** When the collector went for each item and saw it taken (ms after its `at`, machine clock). */
    const taken = new Map<string, { at: number; went: number; owned: number }>();
    const from = Date.now();
    // The collector takes lying items (so new ones spawn), then goes back to the middle.
    while (Date.now() - from < MEASURE_MS) {
      const free = await collector.evaluate((r) => window.voxel.items!.inView().filter((i) => i.owner === null && `${Math.floor(i.x / 64)},${Math.floor(i.z / 64)}` === r), `${rx},${rz}`);
      const take = free[0];
      if (!take) { await collector.waitForTimeout(1000); continue; }
      const went = Date.now();
      await collector.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [take.x, take.y, take.z]);
      await collector.waitForFunction((id) => !!window.voxel.items!.item(id)?.owner, take.id, { timeout: 10_000, polling: 100 }).catch(() => {});
      taken.set(take.id, { at: take.at, went: went - take.at, owned: Date.now() - take.at });
      await stand(collector, cx + WATCHERS + 0.5, cz + 0.5);
    }
    const to = Date.now();
    const clocks = await Promise.all(pages.map((p) => p.evaluate(() => (window as unknown as { __clock: Sample[] }).__clock)));
    const shown = await Promise.all(pages.slice(0, WATCHERS).map((p) => p.evaluate(() => window.voxel.items!.appearances())));
    // The drawing tab's frame rate over the run (its frames bound the skew from below).
    const fps = ((await pages[0]!.evaluate(() => window.voxel.stats().frames)) - frames0) / ((Date.now() - from) / 1000);
    const rounds = await pages[0]!.evaluate(() => window.voxel.items!.clock());
    console.error(`items bench: the drawing tab's probe rounds sent in an idle period ${rounds.roundsIdle}, after waiting in vain ${rounds.roundsLate}, held past a frame an item first showed in ${rounds.roundsDeferred}; frames held so that one falls on an item's time ${rounds.framesHeld}`);
    const frameLog = await readFrames(pages[0]!);
    const drawn = shown[0]!.filter((a) => a.drawn && !a.late && a.at >= from + 1000 && a.at <= to - TAIL_MS);
    const cpu = cpuReport(cpu0, chromiumCpu(), (Date.now() - from) / 1000);
    console.error(`items bench: Chromium CPU cores (processes) while measured ${cpu.text}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const out = { ...figures(clocks, shown, from, to, fps), ...frameFigures(frameLog, drawn), spawn_drawing_tab_frames_held: rounds.framesHeld };
    await explainMissed(pages.slice(0, WATCHERS), shown, from, to, taken);
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [`${k}${SUFFIX}`, v]));
  } finally {
    if (others !== browser) await others.close();
    await browser.close();
    await server.close();
  }
}

function figures(clocks: Sample[][], shown: Shown[][], from: number, to: number, fps: number): Record<string, number> {
  const errs = clocks.flat().map((s) => Math.abs(s.err));
  // The drawing tab apart: a reply to it waits behind its frames, which no probe can tell from a clock offset (docs/ITEMS.md).
  const idleErrs = clocks.slice(1).flat().map((s) => Math.abs(s.err));
  const drawErrs = clocks[0]!.map((s) => Math.abs(s.err));
  const perTab = clocks.map((c) => percentile(c.map((s) => Math.abs(s.err)), 99));
  const over = clocks.map((c) => c.filter((s) => Math.abs(s.err) > s.bound).length);
  const refs = clocks.map((c) => [...new Set(c.map((s) => s.ref))].join('/'));
  const mid = clocks.map((c) => median(c.map((s) => s.err)));
  const hostErr = clocks.map((c) => percentile(c.map((s) => Math.abs(s.host)), 99));
  const hostRefs = clocks.map((c) => [...new Set(c.map((s) => s.hostRef))].join('/'));
  const byItem = new Map<string, Shown[]>();
  let late = 0;
  for (const tab of shown) for (const a of tab) {
    if (a.at < from + 1000 || a.at > to - TAIL_MS) continue;
    const key = `${a.id}@${a.at}`;
    byItem.set(key, [...(byItem.get(key) ?? []), a]);
    if (a.late) late++;
  }
  const skews: number[] = [];
  const idleSkews: number[] = [];
  // How long after its `at` (world time = machine clock here) the drawing tab showed each item: its clock's error plus the wait for its next frame.
  const drawnAfter: number[] = [];
  let missed = 0;
  for (const seen of byItem.values()) {
    if (seen.length < shown.length) {
      missed++;
      console.error(`items bench: ${seen[0]!.id} (at ${seen[0]!.at.toFixed(0)}) shown in ${seen.length} of ${shown.length} watching tabs, drawn in ${seen.filter((a) => a.drawn).length}`);
      continue;
    }
    const spread = (xs: Shown[]) => Math.max(...xs.map((a) => a.shownMs)) - Math.min(...xs.map((a) => a.shownMs));
    skews.push(spread(seen));
    for (const a of seen) if (a.drawn) drawnAfter.push(a.shownMs - a.at);
    idleSkews.push(spread(seen.filter((a) => !a.drawn)));
  }
  console.error(`items bench: clock |error| p99 per tab ${perTab.map((e) => e.toFixed(2)).join(', ')} ms (tab 0 draws, last is the collector); bound p50 per tab ${clocks.map((c) => median(c.map((s) => s.bound)).toFixed(2)).join(', ')}; minRtt p50 ${clocks.map((c) => median(c.map((s) => s.rtt)).toFixed(1)).join(', ')}; error p50 ${mid.map((e) => e.toFixed(2)).join(', ')}; samples over the bound ${over.join(', ')}; followed ${refs.join(', ')}; host clocks |error| p99 ${hostErr.map((e) => e.toFixed(2)).join(', ')} following ${hostRefs.join(', ')}; skews ${skews.map((s) => s.toFixed(1)).join(' ')}; drawing tab ${fps.toFixed(0)} fps`);
  return {
    clock_offset_error_ms_p99: percentile(errs, 99),
    clock_offset_error_ms_max: Math.max(...errs),
    clock_offset_error_ms_p99_idle_tabs: percentile(idleErrs, 99),
    clock_offset_error_ms_p99_drawing_tab: percentile(drawErrs, 99),
    clock_samples: errs.length,
    spawn_skew_ms_max: skews.length ? Math.max(...skews) : NaN,
    spawn_skew_ms_p50: median(skews),
    spawn_skew_ms_max_idle_tabs: idleSkews.length ? Math.max(...idleSkews) : NaN,
    spawn_drawing_tab_fps: fps,
    spawn_drawing_tab_after_at_ms_p50: median(drawnAfter),
    spawn_drawing_tab_after_at_ms_max: drawnAfter.length ? Math.max(...drawnAfter) : NaN,
    spawn_items: skews.length,
    spawn_items_missed: missed,
    spawn_items_late: late,
  };
}

/** What each watching tab knows of an item some of them never showed, and its refusal counters. */
async function explainMissed(pages: Page[], shown: Shown[][], from: number, to: number, taken: Map<string, { at: number; went: number; owned: number }>): Promise<void> {
  const keys = shown.map((tab) => new Set(tab.map((a) => `${a.id}@${a.at}`)));
  const all = new Map(shown.flat().filter((a) => a.at >= from + 1000 && a.at <= to - TAIL_MS).map((a) => [`${a.id}@${a.at}`, a]));
  for (const [key, a] of all) {
    if (keys.every((k) => k.has(key))) continue;
    const t = taken.get(a.id);
    console.error(`items bench: ${key}: the collector went for it ${t ? `${t.went.toFixed(0)} ms after its at and saw it taken ${t.owned.toFixed(0)} ms after (at ${t.at})` : 'never'}`);
    const views = await Promise.all(pages.map((p) => p.evaluate((id) => ({ item: window.voxel.items!.item(id), stats: window.voxel.items!.stats() }), a.id)));
    views.forEach((v, i) => console.error(`items bench: ${key} in tab ${i}: ${keys[i]!.has(key) ? 'shown' : 'MISSED'}; knows ${JSON.stringify(v.item)}; counters ${JSON.stringify(v.stats)}`));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchItems()));
}
