// Two browser engines in one world: two Chromium tabs (not drawing) and a Firefox ESR tab
// (drawing with WebGL 2 on Xvfb) join through the relay, link over WebRTC, and each engine
// sees the block the other placed; then the Firefox tab, primary of a region, is killed with
// no goodbye and the Chromium tabs take the region over as they do for one of their own.
// Firefox differs where this app leans on the platform: its SDP (one session-level
// fingerprint), its ICE, its WebCrypto keys, its WebGL.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumEngine, firefoxEngine, type Engine, type Tab } from './browser-kit';

const WORLD = '#world=firefox-e2e&seed=firefox-e2e';
const engines: Engine[] = [];
let chrome: Tab;
let chrome2: Tab;
let firefox: Tab;

/** Highest non-air, non-water block + 1 at (x, z) as the tab sees it. */
const airAbove = (t: Tab, x: number, z: number) => t.evaluate(([x, z]) => {
  for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return 100;
}, [x, z]);

async function join(tab: Tab, query: string): Promise<Tab> {
  const t0 = Date.now();
  await tab.goto(`${inject('baseUrl')}/?rd=2&${query}${WORLD}`);
  await tab.waitFor(() => window.voxel?.hosting !== undefined, null, 30_000);
  await tab.evaluate(() => window.voxel.ready(), null);
  console.log(`${tab.engine} joined and drew in ${Date.now() - t0} ms`);
  return tab;
}

beforeAll(async () => {
  const t0 = Date.now();
  const [c, f] = await Promise.all([chromiumEngine(), firefoxEngine()]);
  engines.push(c, f);
  // Both browsers start together; the Firefox tab joins once the Chromium one hosts.
  const [ct, ct2, ft] = await Promise.all([c.open('chromium'), c.open('chromium-2'), f.open('firefox')]);
  console.log(`browsers up in ${Date.now() - t0} ms`);
  chrome = await join(ct, 'render=off');
  [firefox, chrome2] = await Promise.all([join(ft, ''), join(ct2, 'render=off')]);
});

/** Places `id` at (x, y, z) from `tab` and waits until a primary confirmed it (an attempt refused or timed out while a region fails over is retried); the attempts, the last 'ok ...' on success. */
const confirmedEdit = (tab: Tab, at: [number, number, number, number], ms: number) => tab.evaluate(async ([x, y, z, id, ms]) => {
  const out: string[] = [];
  const t0 = Date.now();
  const tentative = () => window.voxel.tentative().some((e) => e.x === x && e.y === y && e.z === z);
  while (Date.now() - t0 < ms!) {
    try {
      const r = await window.voxel.setBlock(x!, y!, z!, id!);
      // Resolved is not confirmed: an edit no certified primary took stays tentative and the tab retries it.
      while (r && !r.confirmed && tentative() && Date.now() - t0 < ms!) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!tentative()) {
        out.push(`ok after ${Date.now() - t0} ms`);
        return out;
      }
    } catch (err) {
      out.push(`${(err as Error).name} after ${Date.now() - t0} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return out;
}, [...at, ms]);

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

describe('a Chromium and a Firefox player in one world', () => {
  it('link over WebRTC, and each sees the block the other placed', async () => {
    const ffId = await firefox.evaluate(() => window.voxel.net!.id(), null);
    await chrome.waitFor((id) => window.voxel.net!.links().some((l) => l.id === id), ffId, 15_000, 50);

    const me = await chrome.evaluate(() => window.voxel.player(), null);
    const x = Math.floor(me.x) + 2, z = Math.floor(me.z) + 1;
    const y = await airAbove(chrome, x, z);
    let t0 = Date.now();
    await chrome.evaluate(([x, y, z]) => window.voxel.setBlock(x!, y!, z!, 11), [x, y, z]);
    await firefox.waitFor(([x, y, z]) => window.voxel.getBlock(x!, y!, z!) === 11, [x, y, z], 15_000);
    console.log(`Chromium's edit visible in Firefox after ${Date.now() - t0} ms`);

    t0 = Date.now();
    await firefox.evaluate(([x, y, z]) => window.voxel.setBlock(x!, y!, z!, 12), [x, y + 1, z]);
    await chrome.waitFor(([x, y, z]) => window.voxel.getBlock(x!, y!, z!) === 12, [x, y + 1, z], 15_000);
    console.log(`Firefox's edit visible in Chromium after ${Date.now() - t0} ms`);

    // Firefox drew the world (WebGL 2 on Mesa under Xvfb), not only joined it.
    const drawn = await firefox.evaluate(() => window.voxel.stats(), null);
    expect(drawn.triangles).toBeGreaterThan(0);
    expect(drawn.frames).toBeGreaterThan(0);
  });

  it('a Firefox primary killed with no goodbye: the Chromium tabs take its region over and edits there are confirmed again', async () => {
    // The hosts split the regions around spawn by nearness to their keys (a closer host that
    // joins is handed the region): one Firefox holds as primary, the Chromium tabs back up.
    let region: string | undefined;
    for (const t0 = Date.now(); !region && Date.now() - t0 < 30_000;) {
      const [f, c, c2] = await Promise.all([firefox, chrome, chrome2].map((t) => t.evaluate(() => window.voxel.hosting!.roles(), null)));
      region = f!.primary.find((r) => c!.backup.includes(r) && c2!.backup.includes(r));
      if (!region) await new Promise((r) => setTimeout(r, 500));
    }
    expect(region, 'a region Firefox is primary of and both Chromium tabs back up').toBeDefined();
    const [rx, rz] = region!.split(',').map(Number) as [number, number];
    const x = rx * 64 + 30, z = rz * 64 + 30;
    const y = await airAbove(chrome, x, z);
    await chrome.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x + 0.5, y + 2, z + 3.5]);
    expect((await confirmedEdit(chrome, [x, y, z, 11], 15_000)).at(-1), 'an edit in the region while Firefox holds it').toMatch(/^ok/);

    await firefox.kill();
    const t0 = Date.now();
    const attempts = await confirmedEdit(chrome, [x, y + 1, z, 12], 30_000);
    console.log(`edits in region ${region} confirmed again ${Date.now() - t0} ms after its Firefox primary was killed (${attempts.join('; ')})`);
    expect(attempts.at(-1)).toMatch(/^ok/);
    const holders = await Promise.all([chrome, chrome2].map((t) => t.evaluate((r) => window.voxel.hosting!.roles().primary.includes(r), region!)));
    expect(holders.filter(Boolean), 'a Chromium tab is the primary now').toHaveLength(1);
    expect(await chrome2.evaluate(([x, y, z]) => window.voxel.getBlock(x!, y!, z!), [x, y + 1, z])).toBe(12);
  });
});
