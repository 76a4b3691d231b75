// A headless peer (`npm run peer`, Node, no browser) keeps a world alive: a player's tab
// edits and dies (renderer crashed, no goodbye); a new player in a profile that never saw
// the world joins and finds the edit, served by the headless peer alone (its only link).
// Then the headless peer is killed and started again on the same data dir: the same node
// id, and its hosted regions read back from its database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { crashPage, launchProfile } from './browser';
import { startHeadlessProcess, type HeadlessProcess } from './headless-process';

const WORLD = 'headless-e2e';
const HTTP_PORT = 8099;
const profiles: Awaited<ReturnType<typeof launchProfile>>[] = [];
const peers: HeadlessProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'vp-headless-'));

afterAll(async () => {
  for (const p of profiles) await p.dispose();
  for (const h of peers) await h.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function player() {
  const prof = await launchProfile();
  profiles.push(prof);
  const page = await prof.context.newPage();
  page.on('pageerror', (e) => console.error('player pageerror', e));
  await page.goto(`${inject('baseUrl')}/?render=off&rd=2#world=${WORLD}&seed=${WORLD}`);
  await page.waitForFunction(() => window.voxel?.hosting !== undefined, null, { timeout: 30_000 });
  await page.evaluate(() => window.voxel.ready());
  return { prof, page };
}

async function headless(): Promise<HeadlessProcess> {
  const relay = `${inject('baseUrl').replace(/^http/, 'ws')}/relay`;
  const h = await startHeadlessProcess({ world: WORLD, relay, dataDir, httpPort: HTTP_PORT });
  peers.push(h);
  console.log(`headless peer ${h.nodeId.slice(0, 8)} hosting ${Math.round(h.readyMs)} ms after spawn`);
  return h;
}

async function until<T>(what: string, fn: () => Promise<T>, ok: (t: T) => boolean, ms: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the headless peer', () => {
  it('keeps an edit alive after its player left, for a player who never saw the world; same node id after a restart', async () => {
    const h = await headless();

    const a = await player();
    const aId = await a.page.evaluate(() => window.voxel.net!.id());
    const me = await a.page.evaluate(() => window.voxel.player());
    const x = Math.floor(me.x) + 2, z = Math.floor(me.z) + 1, y = Math.floor(me.y) + 1;
    const res = await a.page.evaluate(([x, y, z]) => window.voxel.setBlock(x!, y!, z!, 11), [x, y, z]);
    expect(res.confirmed).toBe(true); // the headless peer certified it with the tab: there is no one else
    const region = `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;
    // Two nodes, three replicas: the headless peer hosts every region the player used.
    const held = await until('the headless peer holds the edit', () => h.figures(), (f) => (f.regions.find((r) => r.name === region)?.entries ?? 0) >= 1, 15_000);
    expect(held.links.map((l) => l.hex)).toContain(aId);
    await crashPage(a.page); // the player's tab dies, no goodbye

    const b = await player();
    await b.page.waitForFunction(([x, y, z]) => window.voxel.getBlock(x!, y!, z!) === 11, [x, y, z], { timeout: 30_000, polling: 50 });
    // Nobody but the headless peer could have served it: B's only link is to it.
    const bLinks = await b.page.evaluate(() => window.voxel.net!.links().map((l) => l.id));
    expect(bLinks).toEqual([h.nodeId]);
    // The region's last set was {headless, A}; with A gone, the headless peer and B certify a
    // rebase after rebaseMs (10 s, docs/HOSTING.md) and B attaches to a certified primary.
    await b.page.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, region, { timeout: 40_000, polling: 100 });
    const f = await until('the headless peer hosts the region with B', () => h.figures(), (g) => (g.regions.find((r) => r.name === region)?.entries ?? 0) >= 1, 10_000);
    expect(f.status).toBe('online');

    // Killed and started again on its data dir: the same node, with its regions back.
    await h.stop('SIGKILL');
    const again = await headless();
    expect(again.nodeId).toBe(h.nodeId);
    await until('the restarted peer hosts the region again', () => again.figures(), (g) => (g.regions.find((r) => r.name === region)?.entries ?? 0) >= 1, 30_000);
  });
});
