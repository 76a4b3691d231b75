// failover_crash_*: abrupt death of a region's primary with edits in flight. Eight Chromium
// tabs (each its own browser context, so its own identity; all but the editor with
// rendering off) stand in one region; a player tab keeps submitting edits there through
// window.voxel.setBlock, one every EDIT_EVERY_MS without waiting for the previous. The tab
// its region client is attached to as primary has its renderer crashed (DevTools
// Page.crash: no pagehide, no goodbye, links just go silent), together with a burst of
// edits, CRASHES times in a row; a fresh tab replaces each crashed one, so there are
// always eight.
// - failover_crash_ms_p50 / _max: from the crash command to the first setBlock resolving
//   (= confirmed) of an edit submitted after Playwright saw the renderer gone;
// - failover_crash_failed_samples: crashes after which no such edit was confirmed within
//   SAMPLE_TIMEOUT_MS (not in p50/max);
// - failover_crash_lost_edits: edits whose setBlock resolved but that another tab does not
//   show at the end (unless a later-submitted edit of the same block explains what it shows);
// - failover_crash_inflight_edits: edits submitted but not settled at the crash moments;
//   failover_crash_edit_errors: setBlock rejections (refused or timed out) over the run.
// If the primary is the editor itself, another tab takes over the editing first.
// Run alone: `npm run bench -- failover_crash`, or `npx vite build && bash scripts/netns.sh
// npx tsx bench/failover-bench.ts [crashes]`.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { crashReady, launchBrowser, newContext, SMALL_VIEW, withTestFps } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { PLACEABLE } from '../src/world/blocks';
import { median } from './stats';

const TABS = 8;
const PORT = 8098;
const EDIT_EVERY_MS = 100;
/** Edits submitted at the moment of each crash, on top of the steady stream. */
const BURST = 2;
/** Steady editing before each crash (the replacement tab joined, handoffs done). */
const SETTLE_MS = 1500;
const SAMPLE_TIMEOUT_MS = 20_000;
/** Reach is 8 from the eye (src/host/edit-validator.ts): stay inside with a margin. */
const REACH = 7;
const WORLD = '#world=failover-crash-bench&seed=failover';

interface Tab { page: Page; ctx: BrowserContext; id: string; crashed: boolean }
/** One submitted edit as the editor's page logged it (epoch ms; res 0 while unsettled). */
interface Logged { x: number; y: number; z: number; id: number; sub: number; res: number; err: string }

// The editing loop, installed in a page as a plain script (no bundler helpers inside).
const DRIVER = `window.__crashBench = (() => {
  const log = [];
  let spots = [], ids = [], next = 0, n = 0, timer = 0;
  const submit = () => {
    const [x, y, z] = spots[next++ % spots.length];
    const cur = window.voxel.getBlock(x, y, z);
    let id = ids[n++ % ids.length];
    if (id === cur) id = ids[n++ % ids.length];
    const e = { x, y, z, id, sub: Date.now(), res: 0, err: '' };
    log.push(e);
    window.voxel.setBlock(x, y, z, id).then(
      // Resolved is not confirmed: an edit no certified primary took is kept tentative.
      (r) => { e.res = Date.now(); if (r && r.confirmed === false) e.err = 'Tentative: kept, not confirmed'; },
      (err) => { e.res = Date.now(); e.err = String((err && err.name) || 'Error') + ': ' + String((err && err.message) || err); },
    );
  };
  return {
    start(s, i, from, everyMs) { spots = s; ids = i; next = from; timer = setInterval(submit, everyMs); },
    stop() { clearInterval(timer); return next; },
    burst(k) { for (let j = 0; j < k; j++) submit(); },
    since(i) { return log.slice(i); },
    pending() { return log.filter((e) => !e.res).length; },
    size() { return log.length; },
  };
})();`;

/** Calls the editing loop's method in a tab, e.g. `since(3)`. */
const drive = <T = void>(t: Tab, call: string) => t.page.evaluate(`window.__crashBench.${call}`) as Promise<T>;
const regionOf = (x: number, z: number) => `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a tab in a context of its own; resolves once it joined and hosts (and, `ready`, drew its terrain). */
async function openTab(browser: Browser, base: string, render: boolean, ready = true): Promise<Tab> {
  // The editor draws as a browser test's player tab does (TEST_FPS, a small window): software
  // WebGL draws each frame on a CPU core, as many as it can, and a tab drawing uncapped took
  // most of a core from the hosts whose failover is timed.
  const ctx = await newContext(browser, render ? { viewport: SMALL_VIEW } : {});
  const page = await ctx.newPage();
  await page.goto(withTestFps(`${base}?${render ? '' : 'render=off&'}rd=2${WORLD}`), { timeout: 120_000 });
  // Minutes, not seconds: on a loaded machine (load 40-80) a tab's id work alone took 20-30 s,
  // and a page load over 30 s or a join over 60 s broke the whole run off before its first crash.
  await page.waitForFunction(() => window.voxel?.hosting !== undefined, null, { timeout: 180_000 });
  if (ready) await page.evaluate(() => window.voxel.ready());
  const id = await page.evaluate(() => window.voxel.net!.id());
  if (process.env.BENCH_TRACE) console.error(`failover_crash: tab stats ${JSON.stringify(Object.fromEntries(Object.entries(await page.evaluate(() => window.voxel.net!.stats())).filter(([k, v]) => v > 0 && /dial|fail|timeout|join/i.test(k))))}`);
  if (process.env.BENCH_TRACE) console.error(`failover_crash: tab marks ${JSON.stringify(await page.evaluate(() => performance.getEntriesByType('mark').map((m) => `${m.name} ${Math.round(m.startTime)}`)))} now ${await page.evaluate(() => Math.round(performance.now()))}`);
  const tab: Tab = { page, ctx, id, crashed: false };
  page.on('crash', () => (tab.crashed = true));
  return tab;
}

/**
 * Moves a tab's player to (x, z), feet at `feet` or on the ground, and waits for the columns
 * around to load.
 */
async function standAt(t: Tab, x: number, z: number, feet?: number): Promise<{ x: number; y: number; z: number }> {
  await t.page.evaluate(([x, z]) => window.voxel.teleport(x!, 160, z!), [x + 0.5, z + 0.5]);
  await t.page.waitForFunction(([x, z]) => window.voxel.getBlock(x!, 100, z!) >= 0, [x, z], { timeout: 30_000, polling: 50 });
  const y = feet ?? await t.page.evaluate(([x, z]) => {
    for (let y = 250; y > 0; y--) { const b = window.voxel.getBlock(x!, y, z!); if (b !== 0 && b !== 5) return y + 1; }
    return 100;
  }, [x, z]);
  await t.page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x + 0.5, y, z + 0.5]);
  return { x: x + 0.5, y, z: z + 0.5 };
}

export async function benchFailoverCrash(crashes = 20): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const base = server.url.replace(/\/$/, '/');
  const tabs: Tab[] = [];
  const closing: Promise<void>[] = [];
  try {
    // The player tab renders; the others are hosting peers with rendering off.
    tabs.push(await openTab(browser, base, true));
    for (let i = 1; i < TABS; i++) tabs.push(await openTab(browser, base, false));
    const spawn = await tabs[0]!.page.evaluate(() => window.voxel.player());
    const region = regionOf(spawn.x, spawn.z);
    const [rx, rz] = region.split(',').map(Number) as [number, number];
    // Edit from the middle of the region, so that a whole sphere of reach lies inside it.
    const cx = rx * 64 + 32, cz = rz * 64 + 32;
    let editor = tabs[0]!;
    const stand = await standAt(editor, cx, cz);
    const eye = stand.y + 1.62;
    const spots: [number, number, number][] = [];
    for (let y = Math.floor(eye - REACH); y <= eye + REACH; y++) {
      for (let z = cz - REACH; z <= cz + REACH; z++) for (let x = cx - REACH; x <= cx + REACH; x++) {
        // Nothing in the player's column and around it, from the block it stands on up:
        // a later editor is put at the same spot.
        const inBody = Math.abs(x - cx) <= 1 && Math.abs(z - cz) <= 1 && y >= stand.y - 1;
        if (!inBody && y > 0 && Math.hypot(x + 0.5 - stand.x, y + 0.5 - eye, z + 0.5 - stand.z) <= REACH) spots.push([x, y, z]);
      }
    }
    // A fixed shuffle, so consecutive edits land apart.
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let i = spots.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [spots[i], spots[j]] = [spots[j]!, spots[i]!]; }

    const logs: Logged[] = [];
    let nextSpot = 0;
    /** The current editor's log from entry `from` on. */
    const collect = (from = 0) => drive<Logged[]>(editor, `since(${from})`);
    const startEditing = async (t: Tab) => {
      editor = t;
      await t.page.evaluate(DRIVER);
      await drive(t, `start(${JSON.stringify(spots)}, ${JSON.stringify(PLACEABLE)}, ${nextSpot}, ${EDIT_EVERY_MS})`);
    };
    const stopEditing = async () => {
      nextSpot = await drive<number>(editor, 'stop()');
      // Let what is in flight settle, then keep its log.
      await editor.page.waitForFunction('window.__crashBench.pending() === 0', null, { timeout: 30_000, polling: 100 }).catch(() => {});
      logs.push(...(await collect(0)));
    };
    await sleep(3000); // the primary's belief of where the teleported player stands catches up
    await startEditing(editor);

    const times: number[] = [];
    /** Each crash's t0, for placing the edit errors (before the first: -1). */
    const crashAt: number[] = [];
    const parts: FailoverParts[] = [];
    let failed = 0, inflight = 0, switches = 0, noPrimary = 0;
    /** The slowest sample and its parts (which part holds the max). */
    let slowest: { k: number; ms: number; p: FailoverParts | undefined } | undefined;
    for (let k = 0; k < crashes; k++) {
      await sleep(SETTLE_MS);
      // BENCH_TRACE: edits of the previous round that failed after its sample (a second
      // failover or a handoff to the replacement tab, not the crash's): its time line.
      const prev = crashAt.at(-1);
      if (process.env.BENCH_TRACE && prev !== undefined) {
        const late = (await collect(0)).filter((e) => e.sub >= prev && e.err);
        if (late.length > 0) {
          console.error(`failover_crash: before crash ${k}: ${late.length} edits failed since crash ${k - 1}: ${late.slice(0, 12).map((e) => `+${e.sub - prev}>+${e.res - prev} ${e.err.slice(0, 12)}`).join(', ')}`);
          await dumpTraces(tabs, region, prev);
        }
      }
      // The primary the editor's edits go to (its region client's attachment).
      // Undefined after 15 s: a round without a primary to crash (counted, the run goes on;
      // under load it happened with the previous crash's failover still unsettled).
      const attachedPrimary = async (): Promise<Tab | undefined> => {
        for (const until = Date.now() + 15_000; Date.now() < until; await sleep(100)) {
          const att = await editor.page.evaluate((r) => window.voxel.hosting!.region(r).client?.primary ?? '', region);
          const t = att ? tabs.find((t) => t.id.startsWith(att)) : undefined;
          if (t) return t;
        }
        return undefined;
      };
      let victim = await attachedPrimary();
      while (victim && victim === editor) {
        // The editor hosts its own region: another tab takes over the editing (then the old
        // editor, an ordinary peer now, may be crashed), and the primary is looked up again.
        await stopEditing();
        const next = tabs.find((t) => t !== editor)!;
        await standAt(next, cx, cz, stand.y);
        await sleep(3000);
        await startEditing(next);
        switches++;
        console.error(`failover_crash: crash ${k}: the editor was the primary; another tab edits now`);
        await sleep(SETTLE_MS);
        victim = await attachedPrimary();
      }
      if (!victim) {
        noPrimary++;
        console.error(`failover_crash: crash ${k}: the editor is attached to no primary of region ${region} among the tabs for 15 s; round skipped`);
        if (process.env.BENCH_TRACE) {
          for (const t of tabs) {
            const view = await t.page.evaluate((r) => JSON.stringify(window.voxel.hosting!.region(r)), region).catch((e: Error) => e.message);
            console.error(`failover_crash: crash ${k}: ${t === editor ? 'editor ' : ''}${t.id.slice(0, 8)} sees ${region}: ${view}`);
          }
          await dumpTraces(tabs, region, Date.now() - 15_000);
        }
        if (noPrimary >= 3) break;
        continue;
      }
      const crashedTab = victim;
      const c0 = Date.now();
      const crash = await crashReady(crashedTab.page);
      const opened = Date.now() - c0;
      const from = await drive<number>(editor, 'size()');
      // A burst of edits, then at once the crash: some reach the primary, some are on the way.
      await drive(editor, `burst(${BURST})`);
      const t0 = Date.now();
      crashAt.push(t0);
      await crash().catch((e: Error) => console.error(`failover_crash: ${e.message}`));
      // An edit counts as submitted after the crash once Playwright has seen the renderer
      // gone (the dying primary cannot have confirmed it); time runs from the crash command.
      const dead = Date.now();
      if (process.env.BENCH_TRACE) {
        const listed = (await editor.page.evaluate(() => window.voxel.net!.relay())).listed;
        console.error(`failover_crash: relay lists the crashed tab: ${listed.some((h) => h.startsWith(crashedTab.id.slice(0, 8)) || crashedTab.id.startsWith(h))}; listed ${listed.length}`);
      }
      tabs.splice(tabs.indexOf(crashedTab), 1);
      closing.push(crashedTab.ctx.close().catch(() => {}));
      // First edit submitted after the crash and confirmed.
      let ms: number | undefined;
      let round: Logged[] = [];
      for (const until = t0 + SAMPLE_TIMEOUT_MS; ms === undefined && Date.now() < until; await sleep(50)) {
        round = await collect(from);
        const first = round.filter((e) => e.sub >= dead && e.res && !e.err).sort((a, b) => a.res - b.res)[0];
        if (first) ms = first.res - t0;
      }
      inflight += round.filter((e) => e.sub <= t0 && (!e.res || e.res > t0)).length;
      if (ms === undefined) {
        failed++;
        const errs = new Map<string, number>();
        for (const e of round) if (e.err && e.sub >= dead) errs.set(e.err, (errs.get(e.err) ?? 0) + 1);
        console.error(`failover_crash: crash ${k}: no edit confirmed within ${SAMPLE_TIMEOUT_MS} ms; errors: ${JSON.stringify([...errs])}`);
      } else {
        times.push(ms);
        const p = failoverParts(await collectTraces(tabs, region, t0), crashedTab.id, editor.id, ms);
        if (p) parts.push(p);
        if (ms > (slowest?.ms ?? -1)) slowest = { k, ms, p };
        console.error(`failover_crash: crash ${k}: ${ms} ms: ${p ? Object.entries(p).map(([n, v]) => `${n} ${v}`).join(', ') : 'parts not read from the traces'}`);
        if (ms > 2000) {
          const errs = round.filter((e) => e.sub >= t0 - 2000 && e.err).map((e) => `${e.err} +${e.res - t0}`);
          console.error(`failover_crash: crash ${k}: ${ms} ms; errors around it: ${JSON.stringify(errs.slice(0, 8))}; editor counters ${JSON.stringify(Object.fromEntries(Object.entries(await editor.page.evaluate(() => window.voxel.hosting!.stats())).filter(([n, v]) => v > 0 && /^client_[a-z]+$/i.test(n))))}`);
        }
      }
      if (process.env.BENCH_TRACE && (ms === undefined || ms > Number(process.env.BENCH_TRACE_OVER_MS ?? 2000))) {
        console.error(`failover_crash: crash ${k}: ${ms} ms; editor ${editor.id.slice(0, 4)} victim ${crashedTab.id.slice(0, 4)} session ${opened} ms, dead +${dead - t0}; edits ${round.filter((e) => e.sub >= t0 - 500).slice(0, 40).map((e) => `+${e.sub - t0}>${e.res ? `+${e.res - t0}` : '-'}${e.err ? '!' : ''}`).join(' ')}`);
        await dumpTraces(tabs, region, t0);
      }
      const t1 = Date.now();
      // A replacement hosts as soon as it joined; its terrain is not waited for.
      tabs.push(await openTab(browser, base, false, false));
      if (process.env.BENCH_TRACE) console.error(`failover_crash: crash ${k}: ${ms ?? 'failed'} ms; replacement tab ready in ${Date.now() - t1} ms`);
    }
    await stopEditing();

    // The final world, read from a tab that did not edit, standing where the editor stood.
    const reader = tabs.find((t) => t !== editor)!;
    await standAt(reader, cx, cz, stand.y);
    const confirmed = logs.filter((e) => e.res && !e.err);
    const lastOf = new Map<string, Logged>();
    for (const e of [...logs].sort((a, b) => a.sub - b.sub)) lastOf.set(`${e.x},${e.y},${e.z}`, e);
    const wanted = [...lastOf.values()].filter((e) => e.res && !e.err).map((e) => [e.x, e.y, e.z, e.id]);
    await reader.page.waitForFunction((es) => es.every(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) === id), wanted, { timeout: 20_000, polling: 200 }).catch(() => {});
    const shown = await reader.page.evaluate((ps) => ps.map(([x, y, z]) => window.voxel.getBlock(x!, y!, z!)), confirmed.map((e) => [e.x, e.y, e.z]));
    const lost = confirmed.filter((e, i) => {
      const v = shown[i]!;
      if (v === e.id) return false;
      // Overwritten by a later-submitted edit of the same block (confirmed or not: one in flight
      // may have been ordered): not lost.
      return !logs.some((o) => o.x === e.x && o.y === e.y && o.z === e.z && o.sub > e.sub && o.id === v);
    });
    if (lost.length > 0) console.error(`failover_crash: lost ${JSON.stringify(lost.slice(0, 10))}`);
    const errs = new Map<string, number>();
    for (const e of logs) if (e.err) errs.set(e.err, (errs.get(e.err) ?? 0) + 1);
    console.error(`failover_crash: samples ${JSON.stringify(times)}; setBlock errors ${JSON.stringify([...errs])}`);
    // Where the median and the max go: the parts' p50s, and the slowest sample's parts.
    const p50s = (['lastHeard', 'silence', 'claim', 'certified', 'told', 'noticed', 'attached', 'confirmed'] as const).map((n) => `${n} ${median(parts.map((p) => p[n]).filter(Number.isFinite))}`);
    console.error(`failover_crash: parts p50 over ${parts.length} samples: ${p50s.join(', ')}; slowest crash ${slowest?.k}: ${slowest?.ms} ms: ${slowest?.p ? Object.entries(slowest.p).map(([n, v]) => `${n} ${v}`).join(', ') : 'parts not read'}`);
    // Where the errors fall: submitted in which crash's round, how long after its crash (a
    // failover's own, or a round's later unrest: a handoff, a host-set change).
    const placed = logs.filter((e) => e.err).map((e) => {
      const k = crashAt.findLastIndex((t) => t <= e.sub);
      const t0 = crashAt[k] ?? e.sub;
      return `${k}:+${e.sub - t0}>+${e.res - t0} ${e.err.slice(0, 12)}`;
    });
    if (placed.length) console.error(`failover_crash: errors by round (crash:+submitted>+settled): ${placed.slice(0, 60).join(', ')}`);
    return {
      failover_crash_ms_p50: median(times),
      failover_crash_ms_max: times.length ? Math.max(...times) : NaN,
      failover_crash_lost_edits: lost.length,
      failover_crash_failed_samples: failed,
      failover_crash_samples: times.length,
      failover_crash_inflight_edits: inflight,
      failover_crash_confirmed_edits: confirmed.length,
      failover_crash_edit_errors: logs.filter((e) => e.err).length,
      failover_crash_editor_switches: switches,
      failover_crash_rounds_without_primary: noPrimary,
      // The failovers' parts (FailoverParts), p50 each, over the samples whose traces told them all.
      failover_crash_parts_read: parts.length,
      ...Object.fromEntries((['lastHeard', 'silence', 'allowed', 'claim', 'certified', 'attached', 'told', 'noticed', 'confirmed'] as const).map((n) => [`failover_crash_part_${n}_ms_p50`, median(parts.map((p) => p[n]).filter(Number.isFinite))])),
    };
  } finally {
    await Promise.all(closing);
    await browser.close();
    await server.close();
  }
}

/** A line of a tab's hosting trace about the region: ms from the crash, the tab (4 hex), what. */
type TraceLine = [at: number, tab: string, what: string];

/** Every live tab's hosting decisions about the region from 2 s before the crash, on one time line (ms from the crash). */
async function collectTraces(tabs: Tab[], region: string, t0: number, withStats = false): Promise<TraceLine[]> {
  const lines: TraceLine[] = [];
  for (const t of tabs) {
    const got = await t.page.evaluate(() => ({ origin: performance.timeOrigin, trace: window.voxel.hosting!.trace(), stats: window.voxel.hosting!.stats() })).catch(() => undefined);
    if (got && withStats) lines.push([-3000, t.id.slice(0, 4), `stats ${JSON.stringify(Object.fromEntries(Object.entries(got.stats).filter(([n, v]) => v > 0 && /badCerts|staleFrames|strayFrames|unsendable|refusals|outsider|claimsFailed/.test(n))))}`]);
    for (const line of got?.trace ?? []) {
      const m = /^(\d+) \[([^\]]+)\] (.*)$/.exec(line);
      if (!m || m[2] !== region) continue;
      const at = Math.round(got!.origin + Number(m[1]) - t0);
      if (at >= -2000) lines.push([at, t.id.slice(0, 4), m[3]!]);
    }
  }
  return lines.sort((a, b) => a[0] - b[0]);
}

/** BENCH_TRACE: the time line of collectTraces, printed (a primary's orders and commits only with BENCH_TRACE_OVER_MS). */
async function dumpTraces(tabs: Tab[], region: string, t0: number): Promise<void> {
  const lines = (await collectTraces(tabs, region, t0, true)).filter(([, , l]) => process.env.BENCH_TRACE_OVER_MS || !/ (order|commit) s/.test(l));
  console.error(lines.map(([at, tab, l]) => `  +${at} ${tab} ${l}`).join('\n'));
}

/** A failover's parts, ms (docs/HOSTING.md "Failover"): each from the end of the one before. */
export interface FailoverParts {
  /** Crash command to the last frame of the primary a backup heard (the renderer's death, give or take a beat). */
  lastHeard: number;
  /** To the backup's silence check taking it for dead. */
  silence: number;
  /** The silence the backup allowed then (its pace of the primary; not a part). */
  allowed: number;
  /** To the CLAIM sent (the claim hosts' pings). */
  claim: number;
  /** To the certificate (the grants; failed claims and duels before a certified one, too). */
  certified: number;
  /** To the editor's region client attached to that epoch or a later one (takeover notice, SUBSCRIBE, snapshot). */
  attached: number;
  /** Of `attached`: the certificate to the new primary's takeover notice sent (its first frame as primary to subscribers); NaN when its trace has none. */
  told: number;
  /** Of `attached`: that notice sent to the editor's client hearing it (NaN when it attached without one). */
  noticed: number;
  /** To the first edit submitted after the crash confirmed (the sample's end). */
  confirmed: number;
}

/**
 * The parts of one failover, read from the tabs' traces (ms from the crash command `t0`):
 * the first backup to take the victim's silence for death, its claim, the first
 * certificate after, the editor's attach to that certificate's primary, and the sample.
 * Undefined when a line is missing (a trace cut short, a failover not by silence).
 */
export function failoverParts(lines: readonly TraceLine[], victim: string, editor: string, sampleMs: number): FailoverParts | undefined {
  const find = (re: RegExp, from: number, tab?: string) => lines.find(([at, t, l]) => at >= from && (!tab || t === tab) && re.test(l));
  const silent = find(new RegExp(`primary ${victim.slice(0, 4)}\\w* silent (\\d+) ms`), 0);
  if (!silent) return undefined;
  const silentMs = Number(/silent (\d+) ms/.exec(silent[2])![1]);
  const allowed = Number(/allowed (\d+)/.exec(silent[2])?.[1] ?? NaN);
  const claim = find(/claim e\d+ hosts/, silent[0], silent[1]);
  const cert = claim && find(/claim e\d+ certified/, claim[0]);
  const e = cert ? Number(/claim e(\d+) certified/.exec(cert[2])![1]) : Infinity;
  // To that epoch, or a later one (the new primary's host set moved on first).
  const attach = cert && lines.find(([at, t, l]) => at >= cert[0] && t === editor.slice(0, 4) && Number(/client: attached to \w+ e(\d+)$/.exec(l)?.[1] ?? -1) >= e);
  if (!claim || !cert || !attach) return undefined;
  const heard = silent[0] - silentMs;
  // The attach's own parts: the new primary's takeover notice, and the editor hearing it.
  const e0 = `e${e}`;
  const told = lines.find(([at, t, l]) => at >= cert[0] && at <= attach[0] && t === cert[1] && l.includes(`${e0}: takeover told to`));
  const notice = told && lines.find(([at, t, l]) => at >= told[0] && at <= attach[0] && t === editor.slice(0, 4) && l.includes('client: takeover notice from ') && l.endsWith(` ${e0}`));
  return {
    lastHeard: heard, silence: silent[0] - heard, allowed, claim: claim[0] - silent[0], certified: cert[0] - claim[0], attached: attach[0] - cert[0],
    told: told ? told[0] - cert[0] : NaN, noticed: told && notice ? notice[0] - told[0] : NaN, confirmed: sampleMs - attach[0],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchFailoverCrash(Number(process.argv[2] ?? 20))));
}
