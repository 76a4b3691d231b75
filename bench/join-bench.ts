// Joining as a person does, in real Chromium against the built app and the real relay:
// - join_failure_explained_ms: page load to the start screen explaining that the relay is
//   unreachable (the `vp:start-explained` mark), target <= 5000;
// - stale_invite_join_ms: an invite whose inviter crashed (it names the inviter and a live
//   contact), page load to the newcomer's first live link (`vp:first-link`), target <= 3000;
// - rendered_first_frame_ms: the invited friend, rendering on (render distance 8), page
//   load to the terrain under the player drawn, target <= 3000.
// Medians over RUNS, each newcomer in a fresh browser context (no cache, no data).
import type { Browser, Page } from 'playwright-core';
import { crashPage, launchBrowser, openInFreshContext, PAGE_UP } from '../e2e/browser';
import { startServer } from '../signaling/serve';
import { median } from './stats';
import { drawsOfMint } from './tabs-bench';

const RUNS = 3;
const PORT = 8096;

function open(browser: Browser, url: string, wait = true): Promise<Page> {
  // A newcomer: no identity seeded (e2e/returning-player.ts), so its proofs of work run as they would.
  return openInFreshContext(browser, url, { viewport: { width: 960, height: 600 }, fresh: true, ...(wait ? { until: PAGE_UP.net, timeoutMs: 60_000 } : {}) });
}

/** Page marks of the invited friend's first frame, logged per run (ms after navigation): where its time went. */
const FRAME_MARKS = ['vp:join-start', 'vp:identity', 'vp:relay', 'vp:first-link', 'vp:dht-started', 'vp:view', 'vp:net-session', 'vp:spawn', 'vp:first-subscribe', 'vp:first-attach', 'vp:near-loaded', 'vp:near-meshed', 'vp:ready', 'vp:near-merged'];

const mark = (p: Page, name: string) => p.waitForFunction((n) => performance.getEntriesByName(n)[0]?.startTime, name, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<number>);

export async function benchJoin(): Promise<Record<string, number>> {
  const server = await startServer({ port: PORT, host: '127.0.0.1', staticDir: 'dist' });
  const browser = await launchBrowser();
  const explained: number[] = [], stale: number[] = [], rendered: number[] = [];
  const frameMarks: string[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const lost = await open(browser, `${server.url}?render=off&rd=2&relay=ws://127.0.0.1:8079/relay#world=join-bench-${i}`, false);
      explained.push(await mark(lost, 'vp:start-explained'));
      await lost.context().close();

      // A live world of two; the inviter crashes; a newcomer opens its invite.
      const world = `#world=join-bench-stale-${i}`;
      const a = await open(browser, `${server.url}?render=off&rd=2${world}`);
      const b = await open(browser, `${server.url}?render=off&rd=2${world}`);
      await a.waitForFunction(() => window.voxel.net!.links().length > 0, null, { timeout: 30_000 });
      const invite = await a.evaluate(() => window.voxel.invite!());
      await crashPage(a);
      await b.waitForTimeout(500); // the relay has dropped the inviter's socket
      const c = await open(browser, invite.replace('?', '?render=off&'));
      stale.push(await mark(c, 'vp:first-link'));

      // The invited friend renders (a's invite names b as a contact).
      const invite2 = await b.evaluate(() => window.voxel.invite!());
      const friend = await open(browser, invite2.replace(/\?[^#]*/, '?rd=8'));
      await friend.evaluate(() => window.voxel.ready());
      rendered.push(await friend.evaluate(() => window.voxel.stats().readyMs));
      frameMarks.push(`${(await friend.evaluate((names) => names.map((n) => Math.round(performance.getEntriesByName(n)[0]?.startTime ?? NaN)), FRAME_MARKS)).join('/')} (${await friend.evaluate(drawsOfMint)} keypairs)`);
      for (const p of [a, b, c, friend]) await p.context().close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.error(`join bench samples: explained ${explained.map(Math.round)}, stale ${stale.map(Math.round)}, rendered ${rendered.map(Math.round)}`);
  console.error(`join bench first frame marks (${FRAME_MARKS.join(' ')}): ${frameMarks.join(', ')}`);
  return {
    join_failure_explained_ms: Math.round(median(explained)),
    stale_invite_join_ms: Math.round(median(stale)),
    rendered_first_frame_ms: Math.round(median(rendered)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchJoin()));
}
