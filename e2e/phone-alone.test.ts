// A play-only tab (`?hosting=play`, a phone's default) where nobody hosts: alone in its
// world, the world is drawn from its seed, and within seconds the start screen and the
// pause menu say that no host is reachable and what that means, with a button to host from
// this device; the button opens the same world hosting (?hosting=on), and then the regions
// around the player are served (by the tab itself) and the note is gone.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openInFreshContext, PAGE_UP } from './browser';

let browser: Browser;
let attempts = 0;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe('a play-only tab where nobody hosts', () => {
  it('says within seconds that no host is reachable, and hosts from this device at a click', async () => {
    const world = `phone-alone-e2e-${attempts++}`;
    const t0 = Date.now();
    const phone = await openInFreshContext(browser, `${inject('baseUrl')}/?hosting=play&rd=2#world=${world}&seed=${world}`, { label: 'phone', until: PAGE_UP.hosting, viewport: { width: 375, height: 667 } });
    expect(await phone.evaluate(() => window.voxel.hosting!.playOnly())).toBe(true);
    const said = phone.locator('#menu .hosting-note .no-host');
    // The world is drawn, and the menu (shown once it is) says why nothing will be confirmed.
    await said.waitFor({ state: 'visible', timeout: 20_000 });
    const ms = Date.now() - t0;
    console.log(`the phone said "no host" ${ms} ms after it opened; ready after ${await phone.evaluate(() => window.voxel.stats().readyMs)} ms`);
    expect(await said.textContent()).toContain('No host is reachable');
    expect(await phone.locator('#loading').textContent()).toContain('no host reachable');
    await Promise.all([phone.waitForURL(/hosting=on/, { timeout: 10_000 }), phone.locator('#menu .hosting-note .host-here').click()]);
    await phone.waitForFunction(PAGE_UP.hosting, null, { timeout: 30_000, polling: 100 });
    expect(await phone.evaluate(() => ({ playOnly: window.voxel.hosting!.playOnly(), mode: window.voxel.hostingMode!().mode, world: location.hash }))).toEqual({ playOnly: false, mode: 'host', world: `#world=${world}&seed=${world}` });
    expect(await phone.locator('.hosting-note').count()).toBe(0);
    await phone.context().close();
  });
});
