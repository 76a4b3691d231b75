// The one-tab world in real Chromium: terrain renders, a block placed with a real mouse
// click and one placed through window.voxel survive a reload, and so does the player. The
// click that takes the pointer does so even when the sound it starts stalls the page for
// longer than the click's user activation lasts (an audio device slow to open).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { contextAhead, openPage, READ_VIEW, type Profile, withTestFps } from './browser';
import { screenshotStats } from './page-checks';
import { PageStall, USER_ACTIVATION_MS } from './page-stall';
import { expectSeededId, seedReturningPlayer } from './returning-player';

const BRICK = 11;
const PLANKS = 9;
let profile: Profile;
let page: Page;
let audio: PageStall;

/**
 * In the page: each AudioContext opens once /__audio-device answers, asked synchronously, so
 * the page waits as it does for an audio device slow to open (headless Chromium here took
 * ~2 s for each, quiet, and over 4 s on a loaded machine), with no CPU spent meanwhile.
 */
function slowAudioDevice(): void {
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(o?: AudioContextOptions) {
      const device = new XMLHttpRequest();
      device.open('GET', '/__audio-device', false);
      device.send();
      super(o);
    }
  };
}

const url = () => `${inject('baseUrl')}/?rd=4#world=e2e-world&seed=e2e-seed`;

async function openWorld(): Promise<void> {
  // A returning player's profile (e2e/returning-player.ts): this tab joins the network, and a
  // new player's proof of work is e2e/start-screen's to time, not this file's.
  const origin = new URL(inject('baseUrl')).origin;
  const seeded = await seedReturningPlayer(profile.context, origin, page);
  await page.goto(withTestFps(url()));
  await page.waitForFunction(() => typeof window.voxel === 'object', null, { timeout: 30_000 });
  if (seeded) await expectSeededId(page, seeded, origin);
  await page.evaluate(() => window.voxel.ready());
}

/** y of the highest non-air block at (x, z), scanning down from the sky. */
function surfaceY(x: number, z: number): Promise<number> {
  return page.evaluate(([x, z]) => {
    for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y; }
    return -1;
  }, [x, z]);
}

beforeAll(async () => {
  // The full browser: the headless shell never grants a click the pointer lock.
  profile = await contextAhead([], undefined, 'full', READ_VIEW);
  audio = await PageStall.on(profile.context, '/__audio-device');
  page = await openPage(profile.context);
  await page.addInitScript(slowAudioDevice);
});

afterAll(async () => {
  await profile?.dispose();
});

describe('one-tab world', () => {
  it('renders terrain: the screenshot is a real picture', async () => {
    await openWorld();
    const stats = await page.evaluate(() => window.voxel.stats());
    expect(stats.chunksLoaded).toBeGreaterThan(9);
    expect(stats.drawCalls).toBeGreaterThan(0);
    expect(stats.triangles).toBeGreaterThan(100);
    const img = await screenshotStats(page);
    expect(img.distinctColours).toBeGreaterThan(50);
    expect(img.dominantShare).toBeLessThan(0.8);
    expect(img.lumaStdDev).toBeGreaterThan(5);
  });

  it('places blocks by a real mouse click and through window.voxel; both and the player survive a reload', async () => {
    // Stand on solid ground at a known spot, looking down-forward at the terrain.
    const p0 = await page.evaluate(() => window.voxel.player());
    const px = Math.floor(p0.x) + 0.5, pz = Math.floor(p0.z) + 0.5;
    const gy = await surfaceY(Math.floor(px), Math.floor(pz));
    await page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [px, gy + 1, pz]);
    await page.waitForTimeout(300);
    await page.evaluate(() => window.voxel.look(0, -1.2));
    const target = await page.evaluate(() => window.voxel.target());
    expect(target).not.toBeNull();
    const place = { x: target!.x + target!.nx, y: target!.y + target!.ny, z: target!.z + target!.nz };
    expect((await page.evaluate(() => window.voxel.blocks()))[PLANKS]!.name).toBe('planks');
    await page.evaluate(() => window.voxel.select(7)); // hotbar slot 8 holds planks

    // A real click: the first (on the pause menu's backdrop) takes the pointer, the right click
    // builds. The sound that first click starts keeps the page waiting past the click's user
    // activation: the lock is asked for before it (a lock asked after is refused).
    const box = (await page.locator('#game canvas').boundingBox())!;
    const cy = box.y + box.height / 2;
    audio.next(USER_ACTIVATION_MS + 500);
    await page.mouse.click(box.x + 8, cy);
    await page.waitForFunction(() => document.pointerLockElement !== null, null, { timeout: 15_000 }); // granted asynchronously
    expect(audio.held, 'the click started the sound, which kept the page waiting').toBe(1);
    await page.mouse.click(box.x + 8, cy, { button: 'right' }); // where the pointer is: no mouse move, no look
    await page.waitForFunction(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) === id && window.voxel.stats().unsettledEdits === 0,
      [place.x, place.y, place.z, PLANKS], { timeout: 10_000 }).catch(async (e: Error) => {
      const info = await page.evaluate(() => ({ stats: window.voxel.stats(), host: window.voxel.hosting?.stats(), player: window.voxel.player(), target: window.voxel.target() }));
      throw new Error(`${e.message}: ${JSON.stringify(info)}`);
    });

    // And one through the API, two blocks above the ground a few steps away.
    const ax = Math.floor(px) + 3, az = Math.floor(pz) - 2;
    const ay = (await surfaceY(ax, az)) + 2;
    await page.evaluate(([x, y, z, id]) => window.voxel.setBlock(x!, y!, z!, id!), [ax, ay, az, BRICK]);
    const before = await page.evaluate(() => window.voxel.player());

    await page.reload();
    await page.waitForFunction(() => typeof window.voxel === 'object');
    await page.evaluate(() => window.voxel.ready());
    expect(await page.evaluate(([x, y, z]) => window.voxel.getBlock(x!, y!, z!), [place.x, place.y, place.z])).toBe(PLANKS);
    expect(await page.evaluate(([x, y, z]) => window.voxel.getBlock(x!, y!, z!), [ax, ay, az])).toBe(BRICK);
    const after = await page.evaluate(() => window.voxel.player());
    expect(after.x).toBeCloseTo(before.x, 1);
    expect(after.y).toBeCloseTo(before.y, 1);
    expect(after.z).toBeCloseTo(before.z, 1);
    expect(after.pitch).toBeCloseTo(before.pitch, 2);
  });

  it('keeps a mouse look made just before a reload', async () => {
    const box = (await page.locator('#game canvas').boundingBox())!;
    const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
    // Takes the pointer: a click on the pause menu's backdrop, beside its card (whose panels keep their clicks).
    await page.mouse.click(box.x + 8, cy);
    await page.waitForFunction(() => document.pointerLockElement !== null, null, { timeout: 10_000 }); // granted asynchronously
    const before = await page.evaluate(() => window.voxel.player());
    for (let i = 1; i <= 10; i++) await page.mouse.move(cx + i * 30, cy - i * 8);
    const turned = await page.evaluate(() => window.voxel.player());
    expect(Math.abs(turned.yaw - before.yaw)).toBeGreaterThan(0.1);
    await page.reload(); // at once: well inside the 2 s between periodic saves
    await page.waitForFunction(() => typeof window.voxel === 'object');
    await page.evaluate(() => window.voxel.ready());
    const after = await page.evaluate(() => window.voxel.player());
    expect(after.yaw).toBeCloseTo(turned.yaw, 2);
    expect(after.pitch).toBeCloseTo(turned.pitch, 2);
  });

  it('frees chunk geometry when the player moves far away (no GPU memory leak)', async () => {
    const base = await page.evaluate(() => window.voxel.stats());
    const far = 16 * 40;
    await page.evaluate((d) => window.voxel.teleport(d + 0.5, 200, 0.5), far);
    await page.waitForFunction(() => window.voxel.stats().chunksPending === 0 && window.voxel.stats().chunksLoaded > 9, null, { timeout: 30_000 });
    await page.waitForTimeout(1000);
    const after = await page.evaluate(() => window.voxel.stats());
    // Same render distance, same number of columns: geometry stays within the same bound.
    expect(after.chunksLoaded).toBeLessThanOrEqual(base.chunksLoaded + 4);
    expect(after.geometries).toBeLessThan(base.geometries * 2 + 50);
  });
});
