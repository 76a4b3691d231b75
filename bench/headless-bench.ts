// headless_peer_*: the headless peer (`npm run peer`, src/app/headless-main.ts) as its own
// process, loopback only, with the relay and the app served here.
// - headless_peer_ready_ms: spawn of the process to its "hosting world ..." line (Node
//   start, tsx loading the code, opening its LevelDB, identity, relay, joining), median of
//   3 starts on a fresh data dir each (the first start of a dir also makes its keypair);
// - headless_peer_rss_mb: its resident memory after HEADLESS_BENCH_SECONDS (default 300)
//   hosting the regions of one player tab (render off) that places a block every 2 s;
//   headless_peer_rss_mb_1min: the same after the first minute (the difference is the growth
//   of the last 4 minutes: flat memory means the peer can run for days);
// - headless_peer_edits_confirmed_share: edits the tab saw confirmed / edits it made (the
//   headless peer is the only other host, so none is confirmed without it);
// - headless_peer_tick_hz: its ticks per second per primary region at the end.
// Run only when named: `npm run bench -- headless` (~6 minutes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../signaling/serve';
import { launchBrowser, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { startHeadlessProcess } from '../e2e/headless-process';
import { median } from './stats';

export const HEADLESS_BENCH_DEFAULTS = {
  port: 8197,
  httpPort: 8198,
  seconds: Number(process.env.HEADLESS_BENCH_SECONDS ?? 300),
  editEveryMs: 2000,
  starts: 3,
};

const WORLD = 'headless-bench';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

export async function benchHeadless(opts: Partial<typeof HEADLESS_BENCH_DEFAULTS> = {}): Promise<Record<string, number>> {
  const o = { ...HEADLESS_BENCH_DEFAULTS, ...opts };
  const server = await startServer({ port: o.port, host: '127.0.0.1', staticDir: 'dist' });
  const dirs: string[] = [];
  const fresh = () => { const d = mkdtempSync(join(tmpdir(), 'vp-headless-bench-')); dirs.push(d); return d; };
  const start = (dataDir: string) => startHeadlessProcess({ world: WORLD, relay: server.relayUrl, dataDir, httpPort: o.httpPort });
  const browser = await launchBrowser();
  try {
    const ready: number[] = [];
    for (let i = 0; i < o.starts - 1; i++) {
      const h = await start(fresh());
      ready.push(h.readyMs);
      await h.stop('SIGTERM');
    }
    const h = await start(fresh());
    ready.push(h.readyMs);
    try {
      const page = await openInFreshContext(browser, `${server.url}?render=off&rd=2#world=${WORLD}&seed=${WORLD}`, { label: 'player', until: PAGE_UP.hosting, timeoutMs: 60_000, ready: true });
      const me = await page.evaluate(() => window.voxel.player());
      let made = 0, confirmed = 0;
      const t0 = Date.now(), end = t0 + o.seconds * 1000;
      let rss1min = 0;
      while (Date.now() < end) {
        // A block beside the player placed, then dug, then the next one along a row of three.
        const x = Math.floor(me.x) + 2 + ((made >> 1) % 3), y = Math.floor(me.y) + 1, z = Math.floor(me.z) + 1, id = made % 2 ? 0 : 11;
        made++;
        const r = await page.evaluate(([x, y, z, id]) => window.voxel.setBlock(x!, y!, z!, id!).then((r) => r.confirmed, (e: Error) => e.message), [x, y, z, id]);
        if (r === true) confirmed++;
        else if (made <= 3 || process.env.HEADLESS_BENCH_VERBOSE) console.error(`headless bench: edit ${made} not confirmed: ${String(r)}`);
        await sleep(o.editEveryMs);
        if (!rss1min && Date.now() - t0 >= 60_000) rss1min = (await h.figures()).rssBytes;
      }
      const f = await h.figures();
      return {
        headless_peer_ready_ms: Math.round(median(ready)),
        headless_peer_rss_mb: mb(f.rssBytes),
        ...(rss1min ? { headless_peer_rss_mb_1min: mb(rss1min) } : {}),
        headless_peer_edits_confirmed_share: Math.round((confirmed / made) * 1000) / 1000,
        headless_peer_tick_hz: Math.round(f.tickHz * 100) / 100,
      };
    } finally {
      await h.stop('SIGTERM');
    }
  } finally {
    await browser.close();
    await server.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
