// Nobody plays alone while others are there. An invite whose inviter crashed falls back to
// the relay's live peers at once; a tab that started alone is found by one that opens
// later; two tabs that both started without a relay find each other once it is up (each
// keeps asking the relay for peers, src/bootstrap/peer-finder.ts).
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { crashPage, launchBrowser, openInFreshContext, PAGE_UP } from './browser';
import { waitForAsync } from './page-wait';
import { startRelayProcess, type RelayProcess } from './relay-process';

let browser: Browser;
const relays: RelayProcess[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
});

// Each test's tabs and relays are closed after it, so none keeps hosting (and taking CPU)
// into the next, and a retry (vitest.e2e.config.ts) can start its relay on the same port.
afterEach(async () => {
  await Promise.all(browser.contexts().map((c) => c.close()));
  for (const r of relays.splice(0)) await r.stop();
});

afterAll(async () => {
  await browser?.close();
});

/** A tab in a browser context of its own (its own identity); resolves once it has joined. */
async function openTab(relayUrl: string, world: string, invite = ''): Promise<Page> {
  return openInFreshContext(browser, `${inject('baseUrl')}/?render=off&rd=2&hosting=off&relay=${encodeURIComponent(relayUrl)}#world=${world}${invite}`, { until: PAGE_UP.net });
}

const id = (p: Page) => p.evaluate(() => window.voxel.net!.id());
const status = (p: Page) => p.evaluate(() => window.voxel.net!.status());
const linkedTo = (p: Page, other: string, timeout = 30_000) =>
  p.waitForFunction((o) => window.voxel.net!.links().some((l) => l.id === o), other, { timeout, polling: 50 });

describe('a lone tab finds the others', () => {
  it('an invite whose inviter crashed joins the live world through the relay within seconds', async () => {
    const relay = await startRelayProcess(8087);
    relays.push(relay);
    const a = await openTab(relay.url, 'lone-e2e');
    const b = await openTab(relay.url, 'lone-e2e');
    const [aId, bId] = [await id(a), await id(b)];
    await linkedTo(b, aId);
    await crashPage(a);
    // The inviter is gone: the relay has dropped its socket.
    await waitForAsync(b, async (gone) => !(await window.voxel.net!.relay()).listed.includes(gone), aId, { timeout: 10_000, polling: 100, what: 'the relay to drop the crashed inviter' });
    const t0 = Date.now();
    const c = await openTab(relay.url, 'lone-e2e', `&peer=${aId}`);
    await linkedTo(c, bId);
    const ms = Date.now() - t0;
    // From the node id (its work takes a random ~1 s, up to a few s on a loaded machine) to the first link.
    const joinMs = await c.evaluate(() => {
      const at = (n: string) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
      return at('vp:first-link') - at('vp:identity');
    });
    console.log(`invitee of a crashed inviter linked to a live tab ${ms} ms after opening, ${Math.round(joinMs)} ms after its id was minted (status ${await status(c)})`);
    expect(await status(c)).toBe('online');
    // Before: the dial to the dead inviter timed out (15 s) and the tab played alone. Timed
    // from the id, not from opening the tab: loading the page and minting the id are no part
    // of the join and swing with the load (CI runs 5.6-9.2 s from opening, 0.1-0.3 s from the
    // id; a run on a loaded machine 18.0 s and 0.4 s, 2026-12-04).
    expect(joinMs).toBeLessThan(6000);
  });

  it('a tab that started alone is found by a tab that opens later', async () => {
    const relay = await startRelayProcess(8088);
    relays.push(relay);
    const d = await openTab(relay.url, 'lone-e2e-2');
    expect(await status(d)).toBe('alone');
    const e = await openTab(relay.url, 'lone-e2e-2');
    await linkedTo(d, await id(e));
    await d.waitForFunction(() => window.voxel.net!.status() === 'online', null, { timeout: 5000 });
    expect(await status(e)).toBe('online');
    await relay.stop();
  });

  it('two tabs that started without a relay find each other once it is up', async () => {
    // Nothing listens on this port yet: both tabs start alone and keep retrying the relay.
    const url = 'ws://127.0.0.1:8089/relay';
    const f = await openTab(url, 'lone-e2e-3');
    const g = await openTab(url, 'lone-e2e-3');
    expect([await status(f), await status(g)]).toEqual(['alone', 'alone']);
    const relay = await startRelayProcess(8089);
    relays.push(relay);
    expect(relay.url).toBe(url);
    const t0 = Date.now();
    // Neither is a newcomer that dials the other: each must search the relay once back
    // (its relay retries back off 1, 2, 4, 8 s... while the relay was down).
    await linkedTo(f, await id(g), 60_000);
    console.log(`two lone tabs linked ${Date.now() - t0} ms after the relay came up`);
    await f.waitForFunction(() => window.voxel.net!.status() === 'online', null, { timeout: 5000 });
    await g.waitForFunction(() => window.voxel.net!.status() === 'online', null, { timeout: 5000 });
  });
});
