// Keys named as the keyboard prints them: the settings' Keys panel and the pause menu's key
// hints read the layout from the browser (navigator.keyboard.getLayoutMap()). In this
// Chromium the labels are whatever its own layout map says (or the codes' names where it
// gives none). A French AZERTY keyboard cannot be plugged into a headless browser, so a
// second tab is given that layout's map in place of the browser's (an init script): Forward,
// bound to KeyW, then reads "Z" in both places, and a key pressed to rebind is named as
// printed. One tab at a time, no network.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, PAGE_UP } from './browser';

let browser: Browser;
const url = () => `${inject('baseUrl')}/?net=off&rd=2#world=e2e-key-labels`;

beforeAll(async () => {
  // The full browser, as when this test was written: not yet run in the headless shell.
  browser = await launchBrowser([], 'full');
});

afterAll(async () => {
  await browser?.close();
});

/** A tab whose browser says its keyboard is `layout` (code -> what the key types), or the browser's own when undefined. */
async function open(layout?: Record<string, string>): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 480, height: 300 } });
  if (layout) {
    await context.addInitScript((map) => {
      const keyboard = (navigator as unknown as { keyboard: object }).keyboard;
      Object.defineProperty(keyboard, 'getLayoutMap', { value: () => Promise.resolve(new Map(Object.entries(map))) });
    }, layout);
  }
  const page = await openPage(context, url(), { until: PAGE_UP.voxel });
  await page.waitForSelector('#menu:not([hidden]) .settings-panel', { timeout: 15_000 });
  return page;
}

const forwardButton = (p: Page) => p.locator('.key-bindings button[data-action=forward][data-slot="0"]');
const forwardHint = (p: Page) => p.locator('#menu li kbd[data-action=forward]').first();

describe('key labels', () => {
  it('name keys as the browser\'s layout prints them, in the settings and the help', async () => {
    // This browser's own layout (a US one on the test machines, or none).
    const own = await open();
    const typed = await own.evaluate(async () => {
      const kb = (navigator as unknown as { keyboard?: { getLayoutMap?: () => Promise<Map<string, string>> } }).keyboard;
      return kb?.getLayoutMap ? (await kb.getLayoutMap()).get('KeyW') ?? null : null;
    });
    console.log(`this Chromium's layout map says KeyW types ${JSON.stringify(typed)}`);
    await expect.poll(() => forwardButton(own).textContent()).toBe(typed ? typed.toUpperCase() : 'W');
    expect(await forwardHint(own).textContent()).toBe(typed ? typed.toUpperCase() : 'W');
    await own.context().close();

    // A French AZERTY keyboard (part of the map Chromium gives for it).
    const azerty = await open({ KeyW: 'z', KeyA: 'q', KeyQ: 'a', KeyS: 's', KeyD: 'd', KeyT: 't', KeyF: 'f', KeyE: 'e', Minus: ')', Equal: '=', Semicolon: 'm' });
    await expect.poll(() => forwardButton(azerty).textContent()).toBe('Z');
    expect(await forwardHint(azerty).textContent()).toBe('Z');
    expect(await azerty.locator('#menu li kbd[data-action=left]').first().textContent()).toBe('Q');
    // Rebinding: the key pressed (code KeyQ, printed A) is named as printed, in the panel and the help.
    await azerty.locator('.key-bindings summary').click();
    await forwardButton(azerty).click();
    await azerty.keyboard.press('KeyQ');
    // KeyQ is "drop item"'s key: refused, and said with the printed name.
    expect(await azerty.locator('.key-bindings .keys-said').textContent()).toBe('A is already the key of "Drop item": change that one first');
    await forwardButton(azerty).click();
    await azerty.keyboard.press('KeyK');
    expect(await forwardButton(azerty).textContent()).toBe('K');
    expect(await forwardHint(azerty).textContent()).toBe('K');
    await azerty.context().close();
  });
});
