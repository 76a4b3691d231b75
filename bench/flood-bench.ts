// peak_heap_mb_under_flood: a hosting tab flooded by a hostile peer at its link's
// rate limit for a minute, over real WebRTC, loopback only. The victim is a real Chromium
// tab (render off) that hosts the world with one honest tab; the attacker is a Node peer
// (the headless peer's stack, node-datachannel) that joins through the relay, opens a
// direct link to the victim and sends it routed application frames as fast as the link's
// limits allow (LINK_LIMIT_DEFAULTS: 1000 frames/s, 4 MiB/s): random bodies behind every
// channel byte, so each goes through a channel's schema check and is dropped there.
//
// Figures (the victim's JS heap from DevTools Performance.getMetrics, sampled every second):
// - flood_heap_mb_before: median over the 20 s before the flood;
// - peak_heap_mb_under_flood: highest sample during the flood; flood_heap_mb_after: median
//   of the 20 s after it;
// - flood_frames_sent, flood_send_refused (the attacker's send() said no route / full);
// - flood_victim_rate_dropped: frames the victim's link dropped over its rate limits;
//   flood_victim_dropped_other: the DHT's other drops (forged, stale, duplicate, ...);
// - flood_victim_tick_hz_min: the victim's lowest hosting tick rate sampled during the flood;
// - flood_honest_edits_confirmed_share: the honest tab's edits (one a second, during the
//   flood) confirmed, with the victim among the hosts.
// Run: `npm run bench -- flood` (about 2 minutes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { startServer } from '../signaling/serve';
import { launchBrowser, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { startHeadlessPeer } from '../src/app/headless-peer';
import { CHANNELS } from '../src/dht/app-channels';
import { hexToId } from '../src/core/node-id';
import { median } from './stats';

export const FLOOD_DEFAULTS = {
  port: 8211,
  floodSeconds: Number(process.env.FLOOD_SECONDS ?? 60),
  quietSeconds: 20,
  /** Frames per second the attacker sends (under the victim's 1000/s frame limit). */
  framesPerSec: 900,
  /** Body bytes per frame: 900 x 4000 B = 3.4 MiB/s, under the 4 MiB/s byte limit. */
  bodyBytes: 4000,
};

const WORLD = 'flood-bench';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function heapBytes(cdp: CDPSession): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
}

async function victimCounters(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => ({ ...window.voxel.net!.stats(), tick_hz: window.voxel.hosting!.tickHz() }));
}

export async function benchFlood(opts: Partial<typeof FLOOD_DEFAULTS> = {}): Promise<Record<string, number>> {
  const o = { ...FLOOD_DEFAULTS, ...opts };
  const server = await startServer({ port: o.port, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const dataDir = mkdtempSync(join(tmpdir(), 'vp-flood-'));
  const url = `${server.url}?render=off&rd=2#world=${WORLD}&seed=${WORLD}`;
  try {
    const victim = await openInFreshContext(browser, url, { label: 'victim', until: PAGE_UP.hosting, timeoutMs: 60_000, ready: true });
    const honest = await openInFreshContext(browser, url, { label: 'honest', until: PAGE_UP.hosting, timeoutMs: 60_000, ready: true });
    const attacker = await startHeadlessPeer({ world: WORLD, relay: server.relayUrl, dataDir, bindAddress: '127.0.0.1' });
    const cdp = await victim.context().newCDPSession(victim);
    await cdp.send('Performance.enable');
    try {
      const victimHex = await victim.evaluate(() => window.voxel.net!.id());
      const victimId = hexToId(victimHex);
      await attacker.peer.dht.connect(victimId);
      const sample = async (seconds: number, during?: () => Promise<void>) => {
        const heap: number[] = [], tickHz: number[] = [];
        for (let s = 0; s < seconds; s++) {
          const t = Date.now();
          await during?.();
          heap.push(await heapBytes(cdp));
          tickHz.push((await victimCounters(victim)).tick_hz ?? NaN);
          await sleep(Math.max(0, 1000 - (Date.now() - t)));
        }
        return { heap, tickHz };
      };

      const before = await sample(o.quietSeconds);
      const start = await victimCounters(victim);

      // The flood: a batch every 10 ms, paced to framesPerSec, for floodSeconds.
      const channels = Object.values(CHANNELS);
      let sent = 0, refused = 0, flooding = true;
      const body = new Uint8Array(o.bodyBytes);
      const flood = (async () => {
        const t0 = Date.now();
        while (flooding) {
          const due = Math.floor(((Date.now() - t0) / 1000) * o.framesPerSec);
          while (sent + refused < due) {
            crypto.getRandomValues(body.subarray(0, 1024));
            body[0] = channels[(sent + refused) % channels.length]!;
            if (attacker.peer.dht.send(victimId, body)) sent++;
            else refused++;
          }
          await sleep(10);
        }
      })();
      // The honest tab edits once a second meanwhile (the victim is one of the hosts).
      const me = await honest.evaluate(() => window.voxel.player());
      let made = 0, confirmed = 0;
      const edit = async () => {
        const x = Math.floor(me.x) + 2 + ((made >> 1) % 3), y = Math.floor(me.y) + 1, z = Math.floor(me.z) + 1, id = made % 2 ? 0 : 11;
        made++;
        const r = await honest.evaluate(([x, y, z, id]) => window.voxel.setBlock(x!, y!, z!, id!).then((r) => r.confirmed, () => false), [x, y, z, id]);
        if (r === true) confirmed++;
      };
      const during = await sample(o.floodSeconds, edit);
      flooding = false;
      await flood;
      const end = await victimCounters(victim);
      const after = await sample(o.quietSeconds);
      const delta = (k: string) => (end[k] ?? 0) - (start[k] ?? 0);
      return {
        flood_heap_mb_before: mb(median(before.heap)),
        peak_heap_mb_under_flood: mb(Math.max(...during.heap)),
        // The flood's second half against its first: a backlog or a leak grows, garbage awaiting collection does not.
        flood_heap_mb_median_first_half: mb(median(during.heap.slice(0, during.heap.length >> 1))),
        flood_heap_mb_median_second_half: mb(median(during.heap.slice(during.heap.length >> 1))),
        flood_heap_mb_after: mb(median(after.heap)),
        flood_frames_sent: sent,
        flood_send_refused: refused,
        flood_victim_rate_dropped: delta('dropped_rateLimited'),
        flood_victim_dropped_other: Object.keys(end).filter((k) => k.startsWith('dropped_') && k !== 'dropped_rateLimited').reduce((n, k) => n + delta(k), 0),
        flood_victim_tick_hz_min: Math.min(...during.tickHz.filter(Number.isFinite)),
        flood_honest_edits_confirmed_share: made ? Math.round((confirmed / made) * 1000) / 1000 : NaN,
      };
    } finally {
      await cdp.detach().catch(() => {});
      await attacker.stop();
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchFlood()));
}
