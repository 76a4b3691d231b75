// Names and chat between two tabs of their own (two profiles): A names itself and says a
// line with markup in it; B, drawing, lists A under that name and shows the line as text in
// its chat box (the DOM holds the characters, no element made of them); B answers by the
// keyboard (T, type, Enter); B's Tab list (window.voxel.who() and the overlay) shows A.
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openInFreshContext, PAGE_UP } from './browser';

let browser: Browser;
// A retry (vitest.e2e.config.ts) gets a world of its own: the failed attempt's A, under the
// same name, would still be in the list.
const url = (draw: boolean, attempt: number) => `${inject('baseUrl')}/?rd=2${draw ? '' : '&render=off'}#world=chat-e2e${attempt ? `-retry-${attempt}` : ''}&seed=chat-e2e`;
let attempts = 0;

beforeAll(async () => {
  // The full browser: the headless shell never grants a click the pointer lock (B's Tab list is shown under it).
  browser = await launchBrowser([], 'full');
});

afterAll(async () => {
  await browser?.close();
});

describe('names and chat', () => {
  it('B sees A by the name A chose, and A\'s line as plain text', async () => {
    const opts = { until: PAGE_UP.hosting, ready: true } as const;
    const attempt = attempts++;
    const [a, b] = await Promise.all([
      openInFreshContext(browser, url(false, attempt), { ...opts, label: 'A' }),
      openInFreshContext(browser, url(true, attempt), { ...opts, label: 'B', viewport: { width: 480, height: 300 } }),
    ]);
    onTestFinished(() => Promise.all([a.context().close(), b.context().close()]).then(() => {}));
    expect(await a.evaluate(() => window.voxel.setName!('  Ann   Lee '))).toBe(true);
    expect(await a.evaluate(() => window.voxel.setName!('<b>x</b>'))).toBe(false);
    // Both stand in one region, so each is the other's neighbour there.
    const spot = await b.evaluate(() => window.voxel.player());
    await a.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [spot.x + 2, spot.y + 1, spot.z]);
    await b.waitForFunction(() => window.voxel.hosting!.players().some((p) => p.name === 'Ann Lee'), null, { timeout: 20_000, polling: 100 });
    // Who is here (the Tab list's rows): A by name, with the short id that tells it from another Ann Lee, a few blocks away.
    const annId = await a.evaluate(() => window.voxel.net!.id());
    const ann = (await b.evaluate(() => window.voxel.who!())).find((r) => r.name === 'Ann Lee');
    expect(ann).toMatchObject({ id: annId, shortId: annId.slice(0, 6) });
    expect(ann!.distance).toBeLessThan(16);

    const line = 'hi <img src=x onerror="document.title=1"> there';
    // A's region must have a primary A is attached to before the line can be said.
    await a.waitForFunction(async (l) => {
      try {
        await window.voxel.chat!.say(l);
        return true;
      } catch {
        return false;
      }
    }, line, { timeout: 20_000, polling: 250 });
    await b.waitForFunction((l) => window.voxel.chat!.lines().some((x) => x.text === l), line, { timeout: 10_000, polling: 50 });
    const row = b.locator('.chat-lines > div').last();
    expect(await row.textContent()).toBe(`Ann Lee#${(await a.evaluate(() => window.voxel.chat!.lines()[0]!.player)).slice(0, 4)}: ${line}`);
    expect(await row.locator('img').count()).toBe(0);
    expect(await b.evaluate(() => window.voxel.chat!.stats().dropped)).toMatchObject({ signature: 0, replay: 0 });
    // B answers with the keyboard: T opens the field (the T not typed into it), Enter sends.
    await b.keyboard.press('KeyT');
    await b.locator('.chat-box input').waitFor({ state: 'visible', timeout: 2000 });
    await b.keyboard.type('hello Ann');
    await b.keyboard.press('Enter');
    await a.waitForFunction(() => window.voxel.chat!.lines().some((x) => x.text === 'hello Ann' && !x.own), null, { timeout: 10_000, polling: 50 });
    expect(await b.locator('.chat-box input').isHidden()).toBe(true);
    // Holding Tab while playing shows the list (A's name as text) and keeps the focus in the game; letting go hides it.
    await b.mouse.click(8, 150); // takes the pointer: a click on the pause menu's backdrop, beside its card (whose panels keep their clicks)
    await b.waitForFunction(() => document.pointerLockElement !== null, null, { timeout: 2000, polling: 50 });
    await b.keyboard.down('Tab');
    await b.locator('.who-overlay').waitFor({ state: 'visible', timeout: 1000 });
    expect(await b.locator('.who-overlay td.name').allTextContents()).toContain('Ann Lee');
    expect(await b.evaluate(() => document.activeElement === document.body)).toBe(true);
    await b.keyboard.up('Tab');
    expect(await b.locator('.who-overlay').isHidden()).toBe(true);
  });
});
