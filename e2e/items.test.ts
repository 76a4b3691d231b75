// Items in the one-tab mode (?net=off: this tab keeps its areas' item ledgers and is their
// only voter; docs/ITEMS.md) in real Chromium: an item spawns through the spawn vote and
// appears at its agreed world time, is drawn (its mesh is in the scene, and the frame with it
// differs from the same frame with that mesh hidden around the item, by one draw call),
// walking into it puts it in the inventory bar and takes its mesh out of the scene, and
// dropping it puts it back in the world; taken again, it is still held after a reload. The
// world clock is reported. The sky is held at noon (`daytime=0.5`): at dawn the light itself
// changes between the two screenshots (a CI run at sunrise failed the pixel check). Writes
// items.png (the item in view; e2e/screenshots.ts: docs/screenshots/ under `npm run
// screenshots`) and, when the item was not seen drawn, items-with.png and items-without.png.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Camera, Scene } from 'three';
import { writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { contextAhead, openPage, PAGE_UP, READ_VIEW, type Profile } from './browser';
import { screenshotPath } from './screenshots';
import { AIR, WATER } from '../src/world/blocks';
import { EYE_HEIGHT } from '../src/world/player-body';

let profile: Profile;
let page: Page;
// A retry (vitest.e2e.config.ts) gets a world of its own: the first attempt's items are
// stored in this profile's world and would be in view before the new one's time.
const url = (attempt = 0) => `${inject('baseUrl')}/?rd=3&net=off&spawnms=9999999&daytime=0.5#world=e2e-items${attempt ? `-retry-${attempt}` : ''}&seed=e2e-items`;
let attempts = 0;

/** y one stands at on column (x, z): above its highest block that is not air or water. */
function standY(x: number, z: number): Promise<number> {
  return page.evaluate(([x, z]) => {
    for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
    return -1;
  }, [Math.floor(x), Math.floor(z)]);
}

/** The item's centre above the block it lies on (render/item-models.ts HOVER) and how far its box reaches each way (radius and bob). */
const ITEM_HOVER = 0.45;
const ITEM_REACH = 0.4;

/**
 * Blocks other than air and water (a lake's bottom is seen through it) on the lines from `eye` to the item's centre and to its box's top
 * and bottom, each a count of the block cells crossed (a line sampled every 0.05 blocks).
 */
function blocksBetween(eye: readonly [number, number, number], item: { x: number; y: number; z: number }): Promise<number> {
  return page.evaluate(([ex, ey, ez, ix, iy, iz, reach, AIR, WATER]) => {
    let hidden = 0;
    for (const ty of [iy! - reach!, iy!, iy! + reach!]) {
      const n = Math.ceil(Math.hypot(ix! - ex!, ty - ey!, iz! - ez!) / 0.05);
      let last = '';
      for (let i = 1; i < n; i++) {
        const [x, y, z] = [Math.floor(ex! + (ix! - ex!) * i / n), Math.floor(ey! + (ty - ey!) * i / n), Math.floor(ez! + (iz! - ez!) * i / n)];
        const cell = `${x},${y},${z}`;
        if (cell === last) continue;
        last = cell;
        const id = window.voxel.getBlock(x, y, z);
        if (id !== AIR && id !== WATER) hidden++;
      }
    }
    return hidden;
  }, [...eye, item.x, item.y + ITEM_HOVER, item.z, ITEM_REACH, AIR, WATER]);
}

/** A box on the screenshot, in pixels (x0 <= x < x1, y0 <= y < y1). */
interface Rect { x0: number; x1: number; y0: number; y1: number }

/**
 * Share of pixels whose colour moved by more than `threshold` (RGB distance: at night the
 * item is dim, e.g. (49,29,58) on water of (32,47,68), no channel 24 apart) inside `rect`,
 * and outside it in the rows from 20% to 80% of the height (the HUD's text above and the
 * inventory bar below change on purpose).
 */
function changedInAndOut(a: Buffer, b: Buffer, rect: Rect, threshold = 20): { inside: number; outside: number } {
  const [p, q] = [PNG.sync.read(a), PNG.sync.read(b)];
  const { width: w, height: h } = p;
  let inC = 0, inN = 0, outC = 0, outN = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const changed = Math.hypot(p.data[i]! - q.data[i]!, p.data[i + 1]! - q.data[i + 1]!, p.data[i + 2]! - q.data[i + 2]!) > threshold;
      const inside = x >= rect.x0 && x < rect.x1 && y >= rect.y0 && y < rect.y1;
      if (inside) { inN++; if (changed) inC++; } else if (y >= h * 0.2 && y < h * 0.8) { outN++; if (changed) outC++; }
    }
  }
  return { inside: inN ? inC / inN : 0, outside: outN ? outC / outN : 0 };
}

declare global {
  interface Window {
    /** The three.js scenes the page made (three.js announces each to __THREE_DEVTOOLS__). */
    testScenes?: Scene[];
    /** The camera of the item mesh's last draw (captured by its onBeforeRender). */
    testCamera?: Camera;
  }
}

beforeAll(async () => {
  // A context of the shared browser: storage of its own, kept over the reload below.
  profile = await contextAhead([], undefined, 'shell', READ_VIEW);
  await profile.context.addInitScript(() => {
    const hook = new EventTarget();
    window.testScenes = [];
    hook.addEventListener('observe', (e) => {
      const o = (e as CustomEvent<{ isScene?: boolean }>).detail;
      if (o.isScene) window.testScenes!.push(o as Scene);
    });
    (window as unknown as { __THREE_DEVTOOLS__: EventTarget }).__THREE_DEVTOOLS__ = hook;
  });
  page = await openPage(profile.context, url(), { until: PAGE_UP.voxel, ready: true });
});

afterAll(async () => {
  await profile?.dispose();
});

describe('items, one-tab mode', () => {
  it('spawns at its agreed time, is drawn, is taken by walking into it, shows in the bar, drops back into the world, and is kept over a reload', async () => {
    if (attempts++ > 0) {
      await page.close().catch(() => {});
      page = await openPage(profile.context, url(attempts - 1), { until: PAGE_UP.voxel, ready: true });
    }
    expect(await page.evaluate(() => window.voxel.items!.mode)).toBe('local');
    const clock = await page.evaluate(() => window.voxel.items!.clock());
    expect(clock.bound).toBe(0); // alone: its own reference
    expect(Math.abs(clock.now - Date.now())).toBeLessThan(5000); // world time is epoch ms

    // The ground around the player loaded: the spawn picks a spot on it.
    await page.waitForFunction(() => window.voxel.stats().chunksPending === 0, null, { timeout: 30_000 });
    const item = await page.evaluate(() => window.voxel.items!.spawnNow());
    expect(item).toBeTruthy();
    const it = item!;
    expect(await page.evaluate(() => window.voxel.items!.inView().length)).toBe(0); // not before its time

    // A viewpoint 2-5 blocks from the item on ground at most a block above or below the
    // item's, nearest first, from which nothing but air or water lies between the eye and the item.
    // The item lies on any solid block's top, a tree's leaves too: from the ground beside the
    // tree, or past a hill, it is hidden, and the frame with it drawn (one draw call more, its
    // triangles) showed nothing more (a fresh-clone CI: an apple, 252 triangles, no pixel changed).
    let view = { x: it.x, z: it.z + 3, yaw: 0, hidden: -1 };
    find: for (const d of [3, 4, 2, 5]) {
      for (const [ux, uz] of [[0, 1], [1, 0], [0, -1], [-1, 0], [1, 1], [1, -1], [-1, -1], [-1, 1]] as const) {
        const [dx, dz] = [Math.round(ux * d / Math.hypot(ux, uz)), Math.round(uz * d / Math.hypot(ux, uz))];
        const y = await standY(it.x + dx, it.z + dz);
        if (Math.abs(y - it.y) > 1) continue;
        const hidden = await blocksBetween([it.x + dx, y + EYE_HEIGHT, it.z + dz], it);
        if (hidden === 0) { view = { x: it.x + dx, z: it.z + dz, yaw: Math.atan2(dx, dz), hidden }; break find; }
      }
    }
    /** Waits for `n` more frames drawn. */
    const framesDrawn = async (n: number) => {
      const f = await page.evaluate(() => window.voxel.stats().frames);
      await page.waitForFunction(([f, n]) => window.voxel.stats().frames >= f! + n!, [f, n], { timeout: 10_000 });
    };
    // Settled: no column loading, and the same columns, draw calls and triangles over 5 drawn
    // frames and 1 s (a loaded machine draws a few frames a second and meshes in a worker: a
    // fixed wait, or 3 frames after the loads ended, saw the item or terrain not yet drawn).
    const settled = () => page.waitForFunction(() => {
      const s = window.voxel.stats();
      const w = window as unknown as { drawnAs?: { as: string; frames: number; t: number } };
      const as = s.chunksPending === 0 ? [s.chunksLoaded, s.drawCalls, s.triangles].join() : 'loading';
      if (w.drawnAs?.as === as) return as !== 'loading' && s.frames >= w.drawnAs.frames + 5 && performance.now() >= w.drawnAs.t + 1000;
      w.drawnAs = { as, frames: s.frames, t: performance.now() };
      return false;
    }, null, { timeout: 30_000, polling: 50 });
    const lookAtItem = async () => {
      await page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [view.x, await standY(view.x, view.z), view.z]);
      // At rest: the same position over 3 drawn frames (a fixed 400 ms on a loaded machine
      // could catch the player still settling, and the whole view then moves between shots).
      await page.waitForFunction(() => {
        const p = window.voxel.player(), frames = window.voxel.stats().frames;
        const w = window as unknown as { rest?: { at: string; frames: number } };
        const at = [p.x, p.y, p.z].map((c) => c.toFixed(3)).join();
        if (w.rest?.at === at) return frames >= w.rest.frames + 3;
        w.rest = { at, frames };
        return false;
      }, null, { timeout: 10_000, polling: 50 });
      const p = await page.evaluate(() => window.voxel.player());
      const eye = p.y + 1.62, d = Math.hypot(it.x - p.x, it.z - p.z);
      await page.evaluate(([yaw, pitch]) => window.voxel.look(yaw!, pitch!), [view.yaw, Math.atan2(it.y + 0.45 - eye, d)]);
      await settled();
    };
    /** A screenshot, with the pose it was taken from and what the frames around it drew. */
    const shot = async () => {
      const png = await page.screenshot({ type: 'png' });
      const { pose, stats } = await page.evaluate(() => ({ pose: window.voxel.player(), stats: window.voxel.stats() }));
      return { png, pose, stats: { drawCalls: stats.drawCalls, triangles: stats.triangles, chunksLoaded: stats.chunksLoaded, frames: stats.frames, fps: Math.round(stats.fps) } };
    };
    // The pause menu covers the middle of the screen until the pointer is locked: out of the way.
    await page.evaluate(() => { document.getElementById('menu')!.hidden = true; });
    await lookAtItem();
    await page.waitForFunction((at) => window.voxel.items!.clock().now >= at, it.at, { timeout: 10_000 });
    const shown = await page.evaluate(() => window.voxel.items!.inView());
    expect(shown.map((i) => i.id)).toContain(it.id);
    expect(shown.find((i) => i.id === it.id)).toMatchObject({ kind: it.kind, owner: null });
    // Its mesh (render/item-models.ts names it by the item) in the scene, where the item lies:
    // put there by the next frame drawn after its time, a few hundred ms later on a loaded
    // machine (read at once, it was not there yet in a fresh-clone CI).
    const mesh = await (await page.waitForFunction((name) => {
      const m = window.testScenes!.map((s) => s.getObjectByName(name)).find(Boolean);
      return m && { x: m.position.x, y: m.position.y, z: m.position.z, visible: m.visible };
    }, `item ${it.id}`, { timeout: 10_000, polling: 50 }).catch(() => undefined))?.jsonValue();
    expect(mesh, `a mesh named "item ${it.id}" in the scene`).toBeTruthy();
    expect(mesh!.visible).toBe(true);
    expect(Math.hypot(mesh!.x - it.x, mesh!.z - it.z)).toBeLessThan(0.01);
    expect(mesh!.y - it.y).toBeGreaterThan(0);
    expect(mesh!.y - it.y).toBeLessThan(1);

    // Drawn: the same frame with its mesh hidden differs by one draw call and its triangles,
    // and the picture by the pixels around the item. Nothing else moves between the two (no
    // step, no column loaded: walking to the item and back to compare left distant columns
    // drawn in one shot and not the other, which failed this on a loaded machine).
    // Where the item is on the screen: the box around its mesh (its radius, 0.3, and its bob,
    // 0.12 up or down: 0.6 blocks each way) seen through the camera of its last draw.
    await page.evaluate((name) => {
      const m = window.testScenes!.map((s) => s.getObjectByName(name)).find(Boolean)!;
      m.onBeforeRender = (_r, _s, camera) => { window.testCamera = camera; };
    }, `item ${it.id}`);
    // The three shots again while the terrain changed between them (a column meshed late on a
    // loaded machine: 54, 67 and 68 draw calls in one CI-like run, both attempts): the checks
    // below are about the item, and a scene that changed under them says nothing about it.
    const hide = (visible: boolean) => page.evaluate(([name, visible]) => {
      for (const s of window.testScenes!) { const m = s.getObjectByName(name as string); if (m) m.visible = visible as boolean; }
    }, [`item ${it.id}`, visible] as const);
    const threeShots = async () => {
      await settled();
      const withItem = await shot();
      await hide(false);
      await framesDrawn(3);
      const without = await shot();
      await hide(true);
      // The same view with the item again, later: what changes on its own between two shots
      // (water's texture scrolls with time; the item itself turns and bobs in its box).
      await framesDrawn(3);
      const later = await shot();
      return { withItem, without, later };
    };
    let shots = await threeShots();
    for (let again = 0; again < 3 && (shots.later.stats.drawCalls !== shots.withItem.stats.drawCalls || shots.later.stats.triangles !== shots.withItem.stats.triangles); again++) {
      console.log(`the terrain changed between the shots (draw calls ${shots.withItem.stats.drawCalls} / ${shots.without.stats.drawCalls} / ${shots.later.stats.drawCalls}): again`);
      shots = await threeShots();
    }
    const { withItem, without, later } = shots;
    // What lies between the eye the shots were taken from and the item (nothing, where the view above found a clear line).
    const hidden = await blocksBetween([withItem.pose.x, withItem.pose.y + EYE_HEIGHT, withItem.pose.z], it);
    const rect: Rect & { w: number; h: number } = await page.evaluate((name) => {
      const m = window.testScenes!.map((s) => s.getObjectByName(name)).find(Boolean)!;
      const [w, h] = [window.innerWidth, window.innerHeight];
      const xs: number[] = [], ys: number[] = [];
      for (const dx of [-0.6, 0.6]) for (const dy of [-0.6, 0.6]) for (const dz of [-0.6, 0.6]) {
        const v = m.position.clone().set(m.position.x + dx, m.position.y + dy, m.position.z + dz).project(window.testCamera!);
        xs.push((v.x + 1) / 2 * w);
        ys.push((1 - v.y) / 2 * h);
      }
      return { x0: Math.floor(Math.min(...xs)), x1: Math.ceil(Math.max(...xs)), y0: Math.floor(Math.min(...ys)), y1: Math.ceil(Math.max(...ys)), w, h };
    }, `item ${it.id}`);
    writeFileSync(screenshotPath('items.png'), withItem.png);
    const diff = changedInAndOut(withItem.png, without.png, rect);
    const drift = changedInAndOut(withItem.png, later.png, rect);
    const facts = JSON.stringify({ item: it, view, hidden, rect, diff, drift, with: { ...withItem, png: undefined }, without: { ...without, png: undefined }, later: { ...later, png: undefined } });
    console.log(`the item's frame with and without its mesh: ${facts}`);
    const check = (ok: boolean, what: string) => {
      if (ok) return;
      writeFileSync(screenshotPath('items-with.png'), withItem.png);
      writeFileSync(screenshotPath('items-without.png'), without.png);
      expect.fail(`${what}: ${facts} (screenshots: ${screenshotPath('items-with.png')}, ${screenshotPath('items-without.png')})`);
    };
    check(JSON.stringify(withItem.pose) === JSON.stringify(without.pose), 'both shots from the same pose');
    check(withItem.stats.drawCalls - without.stats.drawCalls === 1, 'the item drawn: one draw call more');
    check(withItem.stats.triangles > without.stats.triangles, 'the item drawn: its triangles');
    check(rect.x0 >= 0 && rect.y0 >= 0 && rect.x1 <= rect.w && rect.y1 <= rect.h, 'the item on the screen');
    // The item covers part of its box (a shape of radius 0.3 in a cube of 1.2 seen from a
    // corner): about a tenth (7-9% changed in CI runs) when it faces the camera, but it turns,
    // and a coin seen on its edge (0.07 of a block thick) covers a sixth of that: 1.97% in a
    // CI run whose coin was caught edge-on, which failed the 3% this asked before. So at
    // least 0.8%, two fifths of the thinnest view of any kind (a mesh not drawn changes
    // nothing there: 0 of its box). Elsewhere, hiding it changes no more than the view changes on its own between
    // two shots with the item (0 where no water is in view); the margins are for a few pixels
    // of an edge, not for a moved view (the ratio to the changes inside, the check this
    // replaces, failed on a loaded machine at 0.0113 against 0.0099).
    check(diff.inside > 0.008, `the picture changed where the item is (${hidden === 0 ? 'nothing' : `${hidden} block cells`} between the eye and it)`);
    check(diff.outside <= drift.outside * 1.5 + 0.002, 'the picture changed where the item is, not elsewhere');

    // Walking into it: the frame loop claims it, and its mesh leaves the scene.
    await page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [it.x, it.y, it.z]);
    await page.waitForFunction((id) => window.voxel.items!.inventory().some((i) => i.id === id), it.id, { timeout: 10_000 });
    expect(await page.evaluate(() => window.voxel.items!.bar())).toEqual([it.id]);
    expect(await page.locator('.inventory .item-slot').count()).toBe(1);
    expect(await page.evaluate(() => window.voxel.items!.inView().map((i) => i.id))).not.toContain(it.id);
    await framesDrawn(1);
    expect(await page.evaluate((name) => window.testScenes!.some((s) => s.getObjectByName(name)), `item ${it.id}`)).toBe(false);

    // Dropping it puts it back in the world, free for anyone to take.
    const dropped = await page.evaluate((id) => window.voxel.items!.drop(id), it.id);
    expect(dropped).toMatchObject({ dropped: true, item: { id: it.id, owner: null } });
    expect(await page.evaluate(() => window.voxel.items!.inventory())).toEqual([]);
    await page.waitForFunction(() => window.voxel.items!.bar().length === 0, null, { timeout: 5000 });
    expect(await page.evaluate(() => window.voxel.items!.inView().map((i) => i.id))).toContain(it.id);
    const stats = await page.evaluate(() => window.voxel.items!.stats());
    expect(stats).toMatchObject({ spawned: 1, taken: 1, dropped: 1 });

    // Taken again and the page reloaded: the one-tab ledgers are kept, so it is still held.
    const again = (await page.evaluate((id) => window.voxel.items!.inView().find((i) => i.id === id), it.id))!;
    await page.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [again.x, again.y, again.z]);
    await page.waitForFunction((id) => window.voxel.items!.inventory().some((i) => i.id === id), it.id, { timeout: 10_000 });
    await page.reload();
    await page.waitForFunction(() => typeof window.voxel === 'object' && !!window.voxel.items, null, { timeout: 30_000 });
    await page.evaluate(() => window.voxel.ready());
    expect(await page.evaluate(() => window.voxel.items!.inventory().map((i) => [i.id, i.owner]))).toEqual([[it.id, 'me']]);
    await page.waitForFunction((id) => window.voxel.items!.bar().includes(id), it.id, { timeout: 5000 });
  });
});
