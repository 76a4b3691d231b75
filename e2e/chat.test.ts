// Names, colours and chat between two tabs of their own (two profiles), both drawing: A
// names itself, each chooses a colour, and each scene draws the other's avatar and nametag
// in the colour that one chose (read from the scene through window.voxel.avatars(), not from
// pixels); A says a line with markup in it; B lists A under that name and colour and shows
// the line as text in its chat box (the DOM holds the characters, no element made of them),
// A's name in A's colour; B answers by the keyboard (T, type, Enter); A's direct message
// to B shows A's name in A's colour too; B's Tab list
// (window.voxel.who() and the overlay) shows A with A's colour. B's screen then, facing A
// with the list held open, is docs/screenshots/chat.png (`npm run screenshots`).
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openInFreshContext, PAGE_UP, READ_VIEW } from './browser';
import { screenshotPath } from './screenshots';
import { sayOnceHeard } from './page-world';

let browser: Browser;
// A retry (vitest.e2e.config.ts) gets a world of its own: the failed attempt's A, under the
// same name, would still be in the list.
const url = (draw: boolean, attempt: number) => `${inject('baseUrl')}/?rd=2${draw ? '' : '&render=off'}#world=chat-e2e${attempt ? `-retry-${attempt}` : ''}&seed=chat-e2e`;
let attempts = 0;

/** A page's chat and hosting counters and its last hosting decisions: said with a wait that ran out. */
const why = (p: Page) => p.evaluate(() => ({
  chat: window.voxel.chat!.stats(), at: window.voxel.player(), roles: window.voxel.hosting!.roles(),
  host: Object.fromEntries(Object.entries(window.voxel.hosting!.stats()).filter(([k, v]) => v && /chat|SAY|CHAT|PLAYER|pass|stray|wire_/.test(k))),
  trace: window.voxel.hosting!.trace().slice(-30),
}));
const explained = (a: Page, b: Page) => async (err: Error) => {
  throw new Error(`${err.message}; A: ${JSON.stringify(await why(a))}; B: ${JSON.stringify(await why(b))}`);
};

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
      openInFreshContext(browser, url(true, attempt), { ...opts, label: 'A', viewport: { width: 320, height: 200 } }),
      openInFreshContext(browser, url(true, attempt), { ...opts, label: 'B', viewport: READ_VIEW }),
    ]);
    onTestFinished(() => Promise.all([a.context().close(), b.context().close()]).then(() => {}));
    expect(await a.evaluate(() => window.voxel.setName!('  Ann   Lee '))).toBe(true);
    expect(await a.evaluate(() => window.voxel.setName!('<b>x</b>'))).toBe(false);
    // Colours: palette indices (world/player-colour.ts); one outside the palette is refused.
    expect(await a.evaluate(() => window.voxel.setColour!(9))).toBe(true);
    expect(await b.evaluate(() => window.voxel.setColour!(2))).toBe(true);
    expect(await a.evaluate(() => window.voxel.setColour!(12))).toBe(false);
    // Both stand in one region, so each is the other's neighbour there.
    const spot = await b.evaluate(() => window.voxel.player());
    await a.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [spot.x + 2, spot.y + 1, spot.z]);
    await b.waitForFunction(() => window.voxel.hosting!.players().some((p) => p.name === 'Ann Lee'), null, { timeout: 20_000, polling: 100 });
    // Who is here (the Tab list's rows): A by name, with the short id that tells it from another Ann Lee, a few blocks away.
    const annId = await a.evaluate(() => window.voxel.net!.id());
    const ann = (await b.evaluate(() => window.voxel.who!())).find((r) => r.name === 'Ann Lee');
    expect(ann).toMatchObject({ id: annId, shortId: annId.slice(0, 6) });
    expect(ann!.distance).toBeLessThan(16);
    // Each scene draws the other in the colour the other chose: body and nametag (9 pink, 2 yellow).
    const [pink, yellow] = ['#d957b5', '#f2c230'];
    const bId = await b.evaluate(() => window.voxel.net!.id());
    await b.waitForFunction(([id, c]) => window.voxel.avatars!().some((x) => x.id === id && x.name === 'Ann Lee' && x.body === c && x.label === c), [annId, pink] as const, { timeout: 20_000, polling: 100 });
    await a.waitForFunction(([id, c]) => window.voxel.avatars!().some((x) => x.id === id && x.body === c && x.label === c), [bId, yellow] as const, { timeout: 20_000, polling: 100 });
    expect((await b.evaluate(() => window.voxel.who!())).find((r) => r.id === annId)?.colour).toBe(pink);

    const line = 'hi <img src=x onerror="document.title=1"> there';
    // A's region must have a primary A is attached to before the line can be said.
    await sayOnceHeard(a, line);
    await b.waitForFunction((l) => window.voxel.chat!.lines().some((x) => x.text === l), line, { timeout: 10_000, polling: 50 }).catch(explained(a, b));
    const row = b.locator('.chat-lines > div').last();
    expect(await row.textContent()).toBe(`Ann Lee#${(await a.evaluate(() => window.voxel.chat!.lines()[0]!.player)).slice(0, 4)}: ${line}`);
    expect(await row.locator('img').count()).toBe(0);
    expect(await b.evaluate(() => window.voxel.chat!.lines().find((x) => !x.own)?.colour)).toBe(9);
    expect(await row.locator('.who').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(217, 87, 181)');
    expect(await b.evaluate(() => window.voxel.chat!.stats().dropped)).toMatchObject({ signature: 0, replay: 0 });
    // B answers with the keyboard: T opens the field (the T not typed into it), Enter sends.
    await b.keyboard.press('KeyT');
    // (Waits, not bounds: a starved tab answered the pointer lock's click after 2 s in a loaded run.)
    await b.locator('.chat-box input').waitFor({ state: 'visible', timeout: 10_000 });
    await b.keyboard.type('hello Ann');
    await b.keyboard.press('Enter');
    await a.waitForFunction(() => window.voxel.chat!.lines().some((x) => x.text === 'hello Ann' && !x.own), null, { timeout: 10_000, polling: 50 }).catch(explained(a, b));
    expect(await b.locator('.chat-box input').isHidden()).toBe(true);
    // A direct message: B shows the sender's name in the colour A signed, as a chat line's.
    expect((await a.evaluate((to) => window.voxel.chat!.dm(to, 'just you'), bId)).status).toBe('delivered');
    expect(await b.evaluate(() => window.voxel.chat!.direct().find((m) => m.dir === 'in' && m.text === 'just you')?.colour)).toBe(9);
    expect(await b.locator('.chat-lines > div.dm.in .who').last().evaluate((el) => getComputedStyle(el).color)).toBe('rgb(217, 87, 181)');
    // Holding Tab while playing shows the list (A's name as text) and keeps the focus in the game; letting go hides it.
    await b.mouse.click(8, 150); // takes the pointer: a click on the pause menu's backdrop, beside its card (whose panels keep their clicks)
    await b.waitForFunction(() => document.pointerLockElement !== null, null, { timeout: 10_000, polling: 50 }).catch(async (err: Error) => {
      // What took the click, and what the page said of the lock (a refusal shows in the banner).
      const seen = await b.evaluate(() => ({ at: document.elementFromPoint(8, 150)?.outerHTML.slice(0, 160), menu: document.getElementById('menu')?.hidden === false, banner: document.querySelector('.banner:not([hidden])')?.textContent, focus: document.hasFocus(), active: document.activeElement?.tagName }));
      throw new Error(`${err.message}: no pointer lock after a click on the pause menu's backdrop; ${JSON.stringify(seen)}`);
    });
    await b.keyboard.down('Tab');
    await b.locator('.who-overlay').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await b.locator('.who-overlay td.name').allTextContents()).toContain('Ann Lee');
    // (The inline style: the list is redrawn every 300 ms, and a row replaced meanwhile has no computed style.)
    expect(await b.locator('.who-overlay td.name .swatch').first().evaluate((el) => (el as HTMLElement).style.backgroundColor)).toBe('rgb(217, 87, 181)');
    expect(await b.evaluate(() => document.activeElement === document.body)).toBe(true);
    // B faces A (yaw -PI/2 looks along +x) for the picture: A's avatar and nametag in A's colour, the lines, the list.
    await b.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!).then(() => window.voxel.look(-Math.PI / 2, -0.22)), [spot.x - 2, spot.y, spot.z]);
    await b.waitForTimeout(500);
    await b.screenshot({ path: screenshotPath('chat.png') });
    await b.keyboard.up('Tab');
    expect(await b.locator('.who-overlay').isHidden()).toBe(true);
  });
});
