// Two browser engines in one world: a Chromium tab (not drawing) and a Firefox ESR tab
// (drawing with WebGL 2 on Xvfb) join through the relay, link over WebRTC, and each sees
// the block the other placed. Firefox differs where this app leans on the platform: its SDP
// (one session-level fingerprint), its ICE, its WebCrypto keys, its WebGL.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumEngine, firefoxEngine, type Engine, type Tab } from './browser-kit';
import { withTestFps } from './browser';

const WORLD = '#world=firefox-e2e&seed=firefox-e2e';
const engines: Engine[] = [];
let chrome: Tab;
let firefox: Tab;

/** Highest non-air, non-water block + 1 at (x, z) as the tab sees it. */
const airAbove = (t: Tab, x: number, z: number) => t.evaluate(([x, z]) => {
  for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return 100;
}, [x, z]);

async function join(tab: Tab, query: string): Promise<Tab> {
  const t0 = Date.now();
  await tab.goto(withTestFps(`${inject('baseUrl')}/?rd=2&${query}${WORLD}`));
  // A fresh Firefox profile mints its node id and player key (proofs of work) with a slower
  // WebCrypto than Chromium's, and boots slower beside the niced simulations: 6-7 s quiet,
  // 23 s and over 30 s in two fresh-clone runs. Each step's time is logged for a slow start.
  await tab.waitFor(() => typeof window.voxel === 'object', null, 90_000);
  const up = Date.now() - t0;
  await tab.waitFor(() => window.voxel?.hosting !== undefined, null, 60_000);
  console.log(`${tab.engine}: page up in ${up} ms, hosting in ${Date.now() - t0} ms`);
  await tab.evaluate(() => window.voxel.ready(), null);
  console.log(`${tab.engine} joined and drew in ${Date.now() - t0} ms`);
  return tab;
}

beforeAll(async () => {
  const t0 = Date.now();
  const [c, f] = await Promise.all([chromiumEngine(), firefoxEngine()]);
  engines.push(c, f);
  // Both browsers start together; the Firefox tab joins once the Chromium one hosts.
  const [ct, ft] = await Promise.all([c.open('chromium'), f.open('firefox')]);
  console.log(`browsers up in ${Date.now() - t0} ms`);
  chrome = await join(ct, 'render=off');
  firefox = await join(ft, '');
});

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
});
