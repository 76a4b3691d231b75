// Keys and settings as a person uses them: holding the sprint key with W sprints and never
// presses Ctrl (Ctrl+W closes the tab), and the pause menu's settings (the player's name
// among them) hold over a reload. One tab, no network, the smallest world.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openInFreshContext, PAGE_UP } from './browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe('controls', () => {
  it('sprint never needs Ctrl, and the settings persist over a reload', async () => {
    const page = await openInFreshContext(browser, `${inject('baseUrl')}/?net=off&rd=2#world=e2e-controls`, { until: PAGE_UP.voxel, viewport: { width: 480, height: 300 } });
    await page.evaluate(() => {
      const seen: { code: string; ctrl: boolean }[] = [];
      (window as unknown as { keysSeen: typeof seen }).keysSeen = seen;
      addEventListener('keydown', (e) => seen.push({ code: e.code, ctrl: e.ctrlKey }), true);
    });
    const move = () => page.evaluate(() => window.voxel.moveInput!());

    await page.keyboard.down('Shift');
    await page.keyboard.down('KeyW');
    expect(await move()).toMatchObject({ forward: 1, sprint: true });
    await page.keyboard.up('KeyW');
    await page.keyboard.up('Shift');
    expect(await move()).toMatchObject({ forward: 0, sprint: false });
    // (The double tap of W is timed by the page: move-keys.test.ts checks it, a loaded CI machine cannot.)
    const keys = await page.evaluate(() => (window as unknown as { keysSeen: { code: string; ctrl: boolean }[] }).keysSeen);
    expect(keys.map((k) => k.code)).toEqual(['ShiftLeft', 'KeyW']);
    expect(keys.some((k) => k.ctrl || k.code.startsWith('Control'))).toBe(false);

    // The pause menu shows once the world is drawn; its settings are set as a person would.
    await page.waitForSelector('#menu:not([hidden]) .settings-panel', { timeout: 15_000 });
    await page.locator('#set-fov').fill('95');
    await page.locator('#set-sensitivity').fill('2.5');
    await page.locator('#set-invert-y').check();
    await page.locator('#set-volume').fill('0');
    // A name is committed with Enter; one outside the rule is refused in words and changes nothing.
    await page.locator('#set-name').fill('  Ann   Lee ');
    await page.locator('#set-name').press('Enter');
    await page.locator('#set-name').fill('<img src=x onerror=alert(1)>');
    await page.locator('#set-name').press('Enter');
    expect(await page.locator('.settings-panel .name-said').textContent()).toMatch(/letters, digits/);
    const chosen = { name: 'Ann Lee', sensitivity: 2.5, invertY: true, fov: 95, volume: 0 };
    expect(await page.evaluate(() => window.voxel.settings!())).toEqual(chosen);

    await page.reload();
    await page.waitForFunction(PAGE_UP.voxel, null, { timeout: 15_000 });
    expect(await page.evaluate(() => window.voxel.settings!())).toEqual(chosen);
    expect(await page.locator('#set-fov').inputValue()).toBe('95');
    expect(await page.locator('#set-name').inputValue()).toBe('Ann Lee');
    expect(await page.locator('#set-invert-y').isChecked()).toBe(true);
    await page.context().close();
  });
});
