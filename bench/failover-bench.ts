// failover_ms_p50: the primary tab of a region is killed (its browser context closed, no
// goodbye) to edits in that region confirmed again; failover_lost_edits: confirmed edits
// missing afterwards at any tab, over 20 kills. Five tabs (own contexts, so own identities)
// stand at the spawn; each killed tab is replaced by a fresh one.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { median } from './stats';

const TABS = 5;
const PORT = 8098;
const EDITS_PER_ROUND = 2;

interface Tab { page: Page; close(): Promise<void> }
type Edit = [number, number, number, number];

const regionOf = (x: number, z: number) => `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;

async function openTab(browser: Browser, url: string): Promise<Tab> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.voxel?.hosting !== undefined, null, { timeout: 60_000 });
  await page.evaluate(() => window.voxel.ready());
  return { page, close: () => ctx.close() };
}

/** Tries setBlock until it is confirmed; resolves with the time it took. */
async function editUntilConfirmed(p: Page, e: Edit, timeoutMs = 60_000): Promise<number> {
  const t0 = Date.now();
  const errors = new Map<string, number>();
  for (;;) {
    const err = await p.evaluate(async ([x, y, z, id]) => {
      try { await window.voxel.setBlock(x!, y!, z!, id!); return ''; } catch (e) { return (e as Error).message; }
    }, e);
    if (!err) {
      const ms = Date.now() - t0;
      // A slow recovery says why on stderr: which refusals or timeouts the editor met.
      if (ms > 2000) console.error(`failover: edit ${e.join(',')} confirmed after ${ms} ms; refused before: ${JSON.stringify([...errors])}`);
      return ms;
    }
    errors.set(err, (errors.get(err) ?? 0) + 1);
    if (Date.now() - t0 > timeoutMs) throw new Error(`edit ${e.join(',')} not confirmed within ${timeoutMs} ms: ${JSON.stringify([...errors])}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The editor's hosting and client counters (why a recovery was slow). */
const counters = (p: Page) => p.evaluate(() => window.voxel.hosting!.stats());
const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys(b).filter((k) => /^(client|host)_[a-z]+$/i.test(k) && b[k] !== a[k]).map((k) => [k, b[k]! - (a[k] ?? 0)]));

export async function benchFailover(kills = 20): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const url = `${server.url}?render=off&rd=2#world=failover-bench&seed=failover`;
  const tabs: Tab[] = [];
  try {
    for (let i = 0; i < TABS; i++) tabs.push(await openTab(browser, url));
    const me = await tabs[0]!.page.evaluate(() => window.voxel.player());
    const bx = Math.floor(me.x), bz = Math.floor(me.z);
    const region = regionOf(bx, bz);
    // Edit columns around the spawn, inside the spawn's region, within reach.
    const columns: [number, number][] = [];
    for (let dz = -5; dz <= 5; dz++) for (let dx = -5; dx <= 5; dx++) {
      if (Math.hypot(dx, dz) >= 2 && regionOf(bx + dx, bz + dz) === region) columns.push([bx + dx, bz + dz]);
    }
    let next = 0;
    /** The next column's top, skipping spots out of the editor's reach (hosts refuse those). */
    const spot = async (p: Page, id: number): Promise<Edit> => {
      for (let tries = 0; tries < columns.length; tries++) {
        const [x, z] = columns[next++ % columns.length]!;
        const r = await p.evaluate(([x, z]) => {
          const me = window.voxel.player();
          for (let y = 250; y > 0; y--) {
            const b = window.voxel.getBlock(x!, y, z!);
            if (b !== 0 && b !== 5) return { y: y + 1, d: Math.hypot(x! + 0.5 - me.x, y + 1.5 - (me.y + 1.62), z! + 0.5 - me.z) };
          }
          return { y: 100, d: Infinity };
        }, [x, z]);
        if (r.d < 7.5) return [x, r.y, z, id];
      }
      throw new Error('no edit spot within reach of the editor');
    };
    const confirmed = new Map<string, Edit>();
    const times: number[] = [];
    for (let k = 0; k < kills; k++) {
      const roles = await Promise.all(tabs.map((t) => t.page.evaluate(() => window.voxel.hosting!.roles().primary)));
      const victim = roles.findIndex((r) => r.includes(region));
      if (victim < 0) throw new Error(`no tab is primary of region ${region}`);
      const editor = tabs[(victim + 1) % tabs.length]!.page;
      for (let e = 0; e < EDITS_PER_ROUND; e++) {
        const ed = await spot(editor, 9 + ((k + e) % 3));
        await editUntilConfirmed(editor, ed);
        confirmed.set(`${ed[0]},${ed[1]},${ed[2]}`, ed);
      }
      await tabs[victim]!.close();
      tabs.splice(victim, 1);
      const ed = await spot(editor, 11);
      const before = await counters(editor);
      const ms = await editUntilConfirmed(editor, ed);
      times.push(ms);
      if (ms > 2000) console.error(`failover: slow recovery, the editor's counters moved by ${JSON.stringify(diff(before, await counters(editor)))}`);
      confirmed.set(`${ed[0]},${ed[1]},${ed[2]}`, ed);
      tabs.push(await openTab(browser, url));
    }
    // Every confirmed edit, at every tab, once things settle.
    const wanted = [...confirmed.values()];
    let lost = 0;
    for (const t of tabs) {
      await t.page.waitForFunction((es) => es.every(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) === id), wanted, { timeout: 20_000, polling: 100 }).catch(() => {});
      const missing = await t.page.evaluate((es) => es.filter(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) !== id).length, wanted);
      lost = Math.max(lost, missing);
    }
    return { failover_ms_p50: median(times), failover_ms_max: Math.max(...times), failover_lost_edits: lost, failover_kills: times.length };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchFailover(Number(process.argv[2] ?? 20))));
}
