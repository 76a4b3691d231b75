// How the world looks, in real Chromium on SwiftShader: the terrain's materials sample the
// block atlas made at start-up (two shader programs compiled with it), and a block's face
// shows its texture, not a flat colour: a stone platform seen from above has texel-scale
// detail (a flat-coloured one would be one colour). Also writes the textured-world screenshot.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openInFreshContext, READ_VIEW } from './browser';
import { screenshotPath } from './screenshots';

const STONE = 3;
let browser: Browser;
let page: Page;

/** Luma standard deviation of a rectangle (fractions of the page) of a screenshot, decoded in the page. */
async function cropLumaStdDev(png: Buffer, box: [number, number, number, number]): Promise<number> {
  return page.evaluate(async ([b64, box]) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64 as string}`;
    await img.decode();
    const [fx, fy, fw, fh] = box as number[];
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d')!;
    g.drawImage(img, 0, 0);
    const d = g.getImageData(Math.round(fx! * img.width), Math.round(fy! * img.height), Math.round(fw! * img.width), Math.round(fh! * img.height)).data;
    let sum = 0, sum2 = 0;
    const n = d.length / 4;
    for (let i = 0; i < d.length; i += 4) {
      const l = 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
      sum += l;
      sum2 += l * l;
    }
    return Math.sqrt(sum2 / n - (sum / n) ** 2);
  }, [png.toString('base64'), box] as const);
}

beforeAll(async () => {
  browser = await launchBrowser();
  page = await openInFreshContext(browser, `${inject('baseUrl')}/?net=off&rd=3&daytime=0.5#world=e2e-looks&seed=e2e-looks`, { ready: true, until: () => typeof window.voxel === 'object', viewport: READ_VIEW });
  // Text and menus change on their own; only the world is judged.
  await page.addStyleTag({ content: '#hud, #menu, #crosshair, #touch { display: none !important; }' });
});

afterAll(async () => {
  await browser?.close();
});

describe('how the world looks', () => {
  it('draws the terrain with the block atlas', async () => {
    await page.evaluate(() => window.voxel.look(0.6, -0.35));
    await page.waitForFunction(() => window.voxel.stats().atlasPrograms >= 1, null, { timeout: 10_000 });
    const stats = await page.evaluate(() => window.voxel.stats());
    expect(stats.atlasLayers).toBeGreaterThan(10);
    expect(stats.drawCalls).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('textured-world.png') });
  });

  it('shows a stone face textured, not flat', async () => {
    // A 5 x 5 stone platform in the air, the player on it looking straight down.
    const p = await page.evaluate(() => window.voxel.player());
    const x0 = Math.floor(p.x), z0 = Math.floor(p.z), y = Math.floor(p.y) + 6;
    await page.evaluate(async ([x0, y, z0, id]) => {
      const edits: Promise<unknown>[] = [];
      for (let dx = -2; dx <= 2; dx++) for (let dz = -2; dz <= 2; dz++) edits.push(window.voxel.setBlock(x0! + dx, y!, z0! + dz, id!));
      await Promise.all(edits);
      await window.voxel.teleport(x0! + 0.5, y! + 1, z0! + 0.5);
      await window.voxel.look(0, -Math.PI / 2 + 0.01);
    }, [x0, y, z0, STONE]);
    // Off the centre (the target's outline is there): a patch of the platform's top. A flat
    // colour gives a deviation near 0; the stone tile's blotches several luma steps.
    await expect.poll(async () => cropLumaStdDev(await page.screenshot({ type: 'png' }), [0.15, 0.15, 0.2, 0.2]), { timeout: 10_000, interval: 200 })
      .toBeGreaterThan(3);
  });
});
