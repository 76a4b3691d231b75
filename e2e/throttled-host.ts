// The "degrade, never lose" scenario (a slow host is not a dead one), shared by the browser test
// (e2e/throttled-host.test.ts) and the bench (bench/throttled-host-bench.ts): `tabs` Chromium
// tabs (each its own browser context, so its own identity, rendering off) stand in one
// region; the tab that is its primary gets its renderer's CPU throttled `rate` times
// (DevTools Emulation.setCPUThrottlingRate) for `throttleMs` while every other tab keeps
// editing blocks there. Each spot is edited twice in a row, so an edit applied again after
// a later one (a re-sent edit taken for new) shows as the older block.
// What it reports (and the test and the bench judge):
// - failovers: times the region's primary changed, as the editors' region clients saw it
//   (the most any one of them saw): the host was slow, never dead, so 0 is right and more
//   than one is a storm;
// - blockFailovers (with `blocks`): the same while, after the throttle, the primary's main
//   thread is blocked outright (a synchronous request answered late: no frame, no CPU spent)
//   `count` times while the editors go on; its renderer's network thread still answers at the
//   transport (src/host/primary-transport.ts), so 0 is right;
// - crashFailoverMs (with `crash`): at the end the primary's renderer is crashed; how long
//   until every other tab's client is attached to another primary (a crash is still death);
// - unseen: (tab, confirmed edit) pairs where that tab, once the world settled, shows neither
//   the edit's block nor a later-submitted edit's of the same spot;
// - reverted: of those, the ones showing an earlier edit of the spot (applied twice, or late);
// - confirmed / tentative / failed: the editors' setBlock outcomes.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { PLACEABLE } from '../src/world/blocks';
import { crashReady, newContext } from './browser';
import { PageStall } from './page-stall';
import { expectSeededId, seedReturningPlayer } from './returning-player';
import { groundAt } from './page-world';

export interface ThrottledHostOptions {
  browser: Browser;
  /** The app's URL, ending in '/'. */
  base: string;
  world: string;
  tabs: number;
  /** DevTools CPU throttling rate of the primary (6: a sixth of the speed). */
  rate: number;
  throttleMs: number;
  /** Each editor submits one edit this often (without waiting for the previous). */
  editEveryMs: number;
  /** After the throttle: the region's primary (read again each time) blocked `ms`, `count` times, `gapMs` apart, the editors going on. */
  blocks?: { count: number; ms: number; gapMs: number };
  /** At the end: the region's primary's renderer crashed (`crashFailoverMs`). */
  crash?: boolean;
  log?: (line: string) => void;
  /**
   * Each tab a returning player's (e2e/returning-player.ts: identities minted ahead), as the
   * browser test opens them: a new player's proof of work (~2 CPU-s a tab, the first tab's
   * before the others could join) is e2e/start-screen's to test, not this scenario's.
   */
  returning?: boolean;
}

export interface ThrottledHostResult {
  region: string;
  /** Index of the throttled tab. */
  throttled: number;
  failovers: number;
  /** Failovers while the primary was blocked (`blocks`) and after, until the world settled. */
  blockFailovers?: number;
  /** From the primary's crash until every other tab's client followed another primary; -1: not within 15 s. */
  crashFailoverMs?: number;
  /** Epochs the region went through while throttled and settling (claims and reconfigurations). */
  epochs: number;
  submitted: number;
  confirmed: number;
  tentative: number;
  failed: number;
  unseen: number;
  reverted: number;
  /** Longest gap between the throttled tab's 50 ms timer callbacks while throttled: the throttle bit. */
  hostStallMs: number;
  /** The primary's counters over the throttled time and settling: re-sent edits it recognised, lease waits, step-downs. */
  duplicateEdits: number;
  leaseWaits: number;
  stepDowns: number;
  /** First lines of what went wrong, for the log. */
  problems: string[];
}

interface Tab { page: Page; ctx: BrowserContext }
/** One submitted edit as the editor's page logged it (epoch ms; res 0 while unsettled). */
interface Logged { x: number; y: number; z: number; id: number; sub: number; res: number; ok: boolean; tentative: boolean; err: string }

/** Reach is 8 from the eye (src/host/edit-validator.ts): stay inside with a margin. */
const REACH = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const regionOf = (x: number, z: number) => `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;

// The editing loop, installed in a page as a plain script (no bundler helpers inside): every
// `everyMs` the next spot gets the next id; each spot comes twice in a row of its list.
const DRIVER = `window.__throttleBench = (() => {
  const log = [];
  let timer = 0;
  return {
    start(edits, everyMs) {
      let i = 0;
      timer = setInterval(() => {
        if (i >= edits.length) return clearInterval(timer);
        const [x, y, z, id] = edits[i++];
        const e = { x, y, z, id, sub: Date.now(), res: 0, ok: false, tentative: false, err: '' };
        log.push(e);
        window.voxel.setBlock(x, y, z, id).then(
          (r) => { e.res = Date.now(); e.ok = !!(r && r.confirmed); e.tentative = !e.ok; },
          (err) => { e.res = Date.now(); e.err = String((err && err.name) || 'Error') + ': ' + String((err && err.message) || err); },
        );
      }, everyMs);
    },
    stop() { clearInterval(timer); },
    log() { return log; },
  };
})();`;

async function openTab(browser: Browser, url: string, returning: boolean): Promise<Tab> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error('throttled-host pageerror', e));
  const seeded = returning ? await seedReturningPlayer(ctx, new URL(url).origin, page) : undefined;
  await page.goto(url);
  await page.waitForFunction(() => window.voxel?.hosting !== undefined, null, { timeout: 60_000, polling: 50 });
  if (seeded) await expectSeededId(page, seeded, new URL(url).origin);
  return { page, ctx };
}

export async function runThrottledHost(o: ThrottledHostOptions): Promise<ThrottledHostResult> {
  const log = o.log ?? (() => {});
  const url = `${o.base}?render=off&rd=2#world=${o.world}&seed=${o.world}`;
  const tabs: Tab[] = [];
  let cdp: CDPSession | undefined;
  try {
    // Tab 0 first, so the others join a world someone hosts (through it), then the others
    // together: which tab ends up primary is read below, never assumed from the order.
    tabs.push(await openTab(o.browser, url, o.returning ?? false));
    tabs.push(...(await Promise.all(Array.from({ length: o.tabs - 1 }, () => openTab(o.browser, url, o.returning ?? false)))));
    const stalls = o.blocks ? await Promise.all(tabs.map((t) => PageStall.on(t.ctx, '/__busy'))) : [];
    const blockPhaseMs = o.blocks ? o.blocks.count * (o.blocks.ms + o.blocks.gapMs) : 0;
    const spawn = await tabs[0]!.page.evaluate(() => window.voxel.player());
    const region = regionOf(spawn.x, spawn.z);
    const [rx, rz] = region.split(',').map(Number) as [number, number];
    // Everyone stands in the middle of the region, so a whole sphere of reach lies inside it.
    const cx = rx * 64 + 32, cz = rz * 64 + 32;
    await tabs[0]!.page.evaluate(([x, z]) => window.voxel.teleport(x!, 160, z!), [cx + 0.5, cz + 0.5]);
    const feet = await groundAt(tabs[0]!.page, cx, cz);
    await Promise.all(tabs.map((t) => t.page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [cx + 0.5, feet, cz + 0.5])));
    // Every tab subscribed to the region and attached to its certified primary.
    await Promise.all(tabs.map((t) => t.page.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, region, { timeout: 30_000, polling: 50 })));
    const primaryOf = async (): Promise<number> => {
      for (const until = Date.now() + 20_000; Date.now() < until; await sleep(100)) {
        const roles = await Promise.all(tabs.map((t) => t.page.evaluate((r) => window.voxel.hosting!.roles().primary.includes(r), region)));
        const i = roles.indexOf(true);
        if (i >= 0) return i;
      }
      throw new Error(`no tab is primary of region ${region}`);
    };
    const throttled = await primaryOf();
    const editors = tabs.filter((_, i) => i !== throttled);
    // The primary's belief of where the teleported players stand catches up (an edit sooner
    // is refused as out of reach).
    await sleep(2000);

    // Spots around the eye within reach, off the players' column; a fixed shuffle, dealt out
    // to the editors so no two edit one spot; each spot twice in a row.
    const eye = feet + 1.62;
    const spots: [number, number, number][] = [];
    for (let y = Math.floor(eye - REACH); y <= eye + REACH; y++) {
      for (let z = cz - REACH; z <= cz + REACH; z++) for (let x = cx - REACH; x <= cx + REACH; x++) {
        const inBody = Math.abs(x - cx) <= 1 && Math.abs(z - cz) <= 1 && y >= feet - 1;
        if (!inBody && y > 0 && Math.hypot(x + 0.5 - (cx + 0.5), y + 0.5 - eye, z + 0.5 - (cz + 0.5)) <= REACH) spots.push([x, y, z]);
      }
    }
    let seed = 29;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let i = spots.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [spots[i], spots[j]] = [spots[j]!, spots[i]!]; }
    const perEditor = Math.ceil((o.throttleMs + blockPhaseMs) / o.editEveryMs / 2) + 1;
    if (perEditor * editors.length > spots.length) throw new Error(`${perEditor * editors.length} spots wanted, ${spots.length} within reach`);
    const plans = editors.map((_, k) => spots.slice(k * perEditor, (k + 1) * perEditor).flatMap(([x, y, z], n) => [
      [x, y, z, PLACEABLE[n % PLACEABLE.length]!], [x, y, z, PLACEABLE[(n + 1) % PLACEABLE.length]!],
    ]));

    const epochOf = () => tabs[throttled]!.page.evaluate((r) => window.voxel.hosting!.region(r).host?.epoch ?? -1, region);
    const epoch0 = await epochOf();
    // The editors' views of the primary, polled: a change of primary is a failover.
    const seen = editors.map(() => [] as string[]);
    let watching = true;
    const watch = (async () => {
      while (watching) {
        await Promise.all(editors.map(async (t, k) => {
          const p = await Promise.race([t.page.evaluate((r) => window.voxel.hosting!.region(r).client?.primary ?? '', region).catch(() => ''), sleep(5000).then(() => '')]);
          if (p && seen[k]!.at(-1) !== p) seen[k]!.push(p);
        }));
        await sleep(100);
      }
    })();

    for (const t of editors) await t.page.evaluate(DRIVER);
    const host = tabs[throttled]!.page;
    const stats0 = await host.evaluate(() => window.voxel.hosting!.stats());
    await host.evaluate(`window.__stall = { max: 0, last: performance.now() }; setInterval(() => { const now = performance.now(); window.__stall.max = Math.max(window.__stall.max, now - window.__stall.last); window.__stall.last = now; }, 50);`);
    cdp = await tabs[throttled]!.page.context().newCDPSession(tabs[throttled]!.page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: o.rate });
    const t0 = Date.now();
    log(`region ${region}: tab ${throttled} (its primary) throttled ${o.rate}x; ${editors.length} editors, ${plans[0]!.length} edits each`);
    await Promise.all(editors.map((t, k) => t.page.evaluate(([edits, every]) => (window as unknown as { __throttleBench: { start: (e: unknown, n: number) => void } }).__throttleBench.start(edits, every as number), [plans[k], o.editEveryMs] as const)));
    await sleep(Math.max(0, o.throttleMs - (Date.now() - t0)));
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    const hostStallMs = Math.round(await host.evaluate<number>('window.__stall.max'));
    log(`throttle off after ${Date.now() - t0} ms; the host's timers stalled up to ${hostStallMs} ms`);
    const beforeBlocks = seen.map((s) => s.length);
    for (let b = 0; b < (o.blocks?.count ?? 0); b++) {
      const i = await primaryOf();
      stalls[i]!.next(o.blocks!.ms);
      const at = Date.now();
      await tabs[i]!.page.evaluate(() => {
        const x = new XMLHttpRequest();
        x.open('GET', '/__busy', false); // synchronous: the page's main thread waits for the answer
        x.send();
      });
      log(`block ${b + 1}: tab ${i} (its primary) blocked ${Date.now() - at} ms`);
      await sleep(o.blocks!.gapMs);
    }
    for (const t of editors) await t.page.evaluate(() => (window as unknown as { __throttleBench: { stop: () => void } }).__throttleBench.stop());

    // Settling: every setBlock answered and no edit left tentative at its editor.
    await Promise.all(editors.map((t) => t.page.waitForFunction(() => {
      const b = (window as unknown as { __throttleBench: { log: () => { res: number }[] } }).__throttleBench;
      return b.log().every((e) => e.res > 0) && window.voxel.tentative().length === 0;
    }, null, { timeout: 30_000, polling: 100 }).catch(() => log('an editor did not settle within 30 s'))));
    const logs: Logged[] = (await Promise.all(editors.map((t) => t.page.evaluate(() => (window as unknown as { __throttleBench: { log: () => Logged[] } }).__throttleBench.log())))).flat();

    // What every tab must show: per spot, the last-submitted confirmed edit (edits of one spot
    // come from one editor, in order).
    const bySpot = new Map<string, Logged[]>();
    for (const e of logs) {
      const k = `${e.x},${e.y},${e.z}`;
      bySpot.set(k, [...(bySpot.get(k) ?? []), e]);
    }
    const wanted = [...bySpot.values()].map((es) => es.filter((e) => e.ok).at(-1)).filter((e): e is Logged => e !== undefined);
    const want = wanted.map((e) => [e.x, e.y, e.z, e.id] as const);
    await Promise.all(tabs.map((t) => t.page.waitForFunction((es) => es.every(([x, y, z, id]) => window.voxel.getBlock(x, y, z) === id), want, { timeout: 15_000, polling: 100 }).catch(() => {})));
    watching = false;
    await watch;

    let unseen = 0, reverted = 0;
    const problems: string[] = [];
    for (const [i, t] of tabs.entries()) {
      const shown = await t.page.evaluate((es) => es.map(([x, y, z]) => window.voxel.getBlock(x, y, z)), logs.map((e) => [e.x, e.y, e.z] as const));
      logs.forEach((e, n) => {
        if (!e.ok) return;
        const v = shown[n]!;
        const later = bySpot.get(`${e.x},${e.y},${e.z}`)!.filter((l) => l.sub > e.sub);
        if (v === e.id || later.some((l) => l.id === v)) return;
        unseen++;
        const earlier = bySpot.get(`${e.x},${e.y},${e.z}`)!.some((l) => l.sub < e.sub && l.id === v);
        if (earlier) reverted++;
        if (problems.length < 8) problems.push(`tab ${i} shows ${v} at ${e.x},${e.y},${e.z}, confirmed ${e.id}${earlier ? ' (an earlier edit)' : ''}`);
      });
    }
    const stats1 = await host.evaluate(() => window.voxel.hosting!.stats());
    const delta = (k: string) => (stats1[k] ?? 0) - (stats0[k] ?? 0);
    const failovers = Math.max(0, ...seen.map((s, k) => (o.blocks ? beforeBlocks[k]! : s.length) - 1));
    const blockFailovers = o.blocks ? Math.max(0, ...seen.map((s, k) => s.length - beforeBlocks[k]!)) : undefined;
    if (o.blocks) {
      const t = await Promise.all(tabs.map((x) => x.page.evaluate(() => window.voxel.net?.stats() ?? {}).then((n) => `${n.link_transportWatches ?? '-'}/${n.link_transportProbes ?? '-'}/${n.link_transportHeard ?? '-'}/${n.link_transportUnanswered ?? '-'}`)));
      log(`transport watches/probes/heard/unanswered by tab: ${t.join(' ')}`);
    }
    if (blockFailovers) {
      // Why: each tab's silence claims and step-downs of the region (src/host/region-backup.ts).
      for (const [i, t] of tabs.entries()) {
        const lines = (await t.page.evaluate(() => window.voxel.hosting!.trace())).filter((l) => l.includes(`[${region}]`) && / (silent|claim|step down|release)/.test(l));
        log(`tab ${i}: ${lines.slice(-8).join(' | ')}`);
      }
    }
    const released = (await host.evaluate(() => window.voxel.hosting!.trace())).filter((l) => / (step down|release) /.test(l));
    if (released.length) log(`the throttled host stepped down: ${released.slice(-6).join(' | ')}`);
    log(`primaries seen by the editors: ${seen.map((s) => s.map((p) => p.slice(0, 4)).join('>')).join(' | ')}`);
    const epochs = (await epochOf()) - epoch0;
    let crashFailoverMs: number | undefined;
    if (o.crash) {
      const i = await primaryOf();
      const gone = await tabs[i]!.page.evaluate((r) => window.voxel.hosting!.region(r).host?.primary ?? '', region);
      const others = tabs.filter((_, k) => k !== i);
      const crash = await crashReady(tabs[i]!.page);
      const at = Date.now();
      await crash();
      crashFailoverMs = -1;
      let now: string[] = [];
      for (const until = at + 15_000; Date.now() < until; await sleep(50)) {
        now = await Promise.all(others.map((t) => Promise.race([t.page.evaluate((r) => window.voxel.hosting!.region(r).client?.primary ?? '', region).catch(() => ''), sleep(5000).then(() => '')])));
        if (now.every((p) => p !== '' && p !== gone)) {
          crashFailoverMs = Date.now() - at;
          break;
        }
      }
      log(`tab ${i} (its primary ${gone.slice(0, 4)}) crashed: the others followed another primary after ${crashFailoverMs} ms`);
      if (crashFailoverMs > 0) {
        // What the claimant allowed the crashed primary's silence (src/host/region-backup.ts: 'its link deaf' when its probes went unanswered).
        const claims = await Promise.all(others.map((t) => Promise.race([t.page.evaluate(() => window.voxel.hosting!.trace()).catch(() => [] as string[]), sleep(5000).then(() => [] as string[])])));
        log(`the others' last silence claims: ${claims.map((l) => l.filter((x) => x.includes(`[${region}]`) && x.includes(' silent ')).at(-1) ?? '-').join(' | ')}`);
      }
      if (crashFailoverMs < 0) {
        // Why: whom the others follow, and their silence claims and step-downs since.
        log(`the others' clients follow: ${now.map((p) => p.slice(0, 4) || '-').join(' ')}`);
        for (const t of others) {
          const lines = await Promise.race([t.page.evaluate(() => window.voxel.hosting!.trace()).catch(() => []), sleep(5000).then(() => [] as string[])]);
          log(`tab ${tabs.indexOf(t)}: ${lines.filter((l) => l.includes(`[${region}]`)).slice(-10).join(' | ')}`);
        }
      }
    }
    return {
      region, throttled, failovers, epochs,
      ...(blockFailovers !== undefined ? { blockFailovers } : {}),
      ...(crashFailoverMs !== undefined ? { crashFailoverMs } : {}),
      submitted: logs.length,
      confirmed: logs.filter((e) => e.ok).length,
      tentative: logs.filter((e) => e.tentative).length,
      failed: logs.filter((e) => e.err).length,
      unseen, reverted,
      hostStallMs,
      duplicateEdits: delta('host_duplicateEdits'),
      leaseWaits: delta('host_leaseWaits'),
      stepDowns: delta('host_stepDowns'),
      problems: [...problems, ...new Set(logs.filter((e) => e.err).map((e) => e.err))].slice(0, 12),
    };
  } finally {
    // Bounded: a crashed tab's session and context may never answer.
    const within = (p: Promise<unknown>) => Promise.race([p.catch(() => {}), sleep(5000)]);
    await within(cdp?.detach() ?? Promise.resolve());
    await Promise.all(tabs.map((t) => within(t.ctx.close())));
  }
}
