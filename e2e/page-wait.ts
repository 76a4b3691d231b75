// Waiting for a condition the page can only answer asynchronously (IndexedDB, the relay, a
// host's ledger). Playwright's waitForFunction does not await its predicate: an async
// predicate's Promise is truthy, so it returns at the first poll, whatever the Promise later
// resolves to, and the test reads the state before the awaited thing happened.
import type { Page } from 'playwright-core';
import { REGION_BLOCKS } from '../src/region/region-key';

/** Polls `fn` in the page (awaited) every `polling` ms until it resolves truthy; throws after `timeout`. */
export async function waitForAsync<A, R>(page: Page, fn: (arg: A) => Promise<R>, arg: A, o: { timeout: number; polling: number; what: string }): Promise<R> {
  const until = Date.now() + o.timeout;
  for (;;) {
    const r = (await page.evaluate(fn as (arg: unknown) => Promise<unknown>, arg)) as R;
    if (r) return r;
    if (Date.now() >= until) throw new Error(`waited ${o.timeout} ms for ${o.what}`);
    await page.waitForTimeout(o.polling);
  }
}

/**
 * What each tab's hosting side saw, printed when a wait on the shared world ran out: where
 * the player stands, the remote players it draws, its links, its roles, its view of the
 * region it stands in and the last hosting decisions. A timeout alone says nothing about
 * which hop lost the frame.
 */
export async function explainHosting(pages: { label: string; page: Page }[]): Promise<void> {
  for (const { label, page } of pages) {
    const s = await page.evaluate((blocks) => {
      const v = window.voxel, h = v.hosting!;
      const me = v.player();
      const region = `${Math.floor(me.x / blocks)},${Math.floor(me.z / blocks)}`;
      const stats = h.stats();
      const pick = Object.fromEntries(Object.entries(stats).filter(([k, n]) => n !== 0 && /^(client_|host_moves|host_offers|host_stale|host_claims|host_stepDowns|host_own|host_grants|wire_)/.test(k)));
      return {
        id: v.net!.id().slice(0, 8), at: [me.x, me.y, me.z].map((n) => n.toFixed(1)).join(' '), region,
        players: h.players().map((p) => `${p.id.slice(0, 8)}@${p.x.toFixed(1)},${p.z.toFixed(1)}`),
        links: v.net!.links().map((l) => l.id.slice(0, 8)), roles: h.roles(), live: h.liveRegions(),
        view: h.region(region), stats: pick, trace: h.trace().slice(-30),
      };
    }, REGION_BLOCKS).catch((e: unknown) => ({ error: String(e) }));
    console.error(`${label}: ${JSON.stringify(s, null, 1)}`);
  }
}
