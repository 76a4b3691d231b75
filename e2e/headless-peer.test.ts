// A headless peer (`npm run peer`, Node, no browser) keeps a world alive: a player's tab
// edits and dies (renderer crashed, no goodbye); a new player in a profile that never saw
// the world joins and finds the edit, served by the headless peer alone (its only link).
// Then that player leaves too and the headless peer is killed: the edit is in its database
// (LevelDB in its data dir), and it starts again as the same node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { idToHex } from '../src/core/node-id';
import { decodeEntries } from '../src/region/region-state';
import { LevelStore } from '../src/store/level-store';
import { contextAhead, crashPage, disposeAll, openInProfile, PAGE_UP, type Profile } from './browser';
import { startHeadlessProcess, type HeadlessProcess } from './headless-process';

const WORLD = 'headless-e2e';
const HTTP_PORT = 8099;
const profiles: Profile[] = [];
const peers: HeadlessProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'vp-headless-'));

afterAll(async () => {
  await disposeAll(profiles);
  for (const h of peers) await h.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A player tab in a browser context (`profile`, its own storage) that never saw the world. */
async function player(profile: Promise<Profile>): Promise<Page> {
  return openInProfile(profile, `${inject('baseUrl')}/?render=off&rd=2#world=${WORLD}&seed=${WORLD}`, { label: 'player', until: PAGE_UP.hosting, ready: true });
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
  it('keeps an edit alive after its player left, for a player who never saw the world; kept in its data dir across a kill', async () => {
    // Both players' contexts open beside the headless peer's start; each opens the world when its turn comes.
    const [profileA, profileB] = [contextAhead(profiles), contextAhead(profiles)];
    const h = await headless();

    const a = await player(profileA);
    const aId = await a.evaluate(() => window.voxel.net!.id());
    const me = await a.evaluate(() => window.voxel.player());
    const x = Math.floor(me.x) + 2, z = Math.floor(me.z) + 1, y = Math.floor(me.y) + 1;
    const res = await a.evaluate(([x, y, z]) => window.voxel.setBlock(x!, y!, z!, 11), [x, y, z]);
    expect(res.confirmed).toBe(true); // the headless peer certified it with the tab: there is no one else
    const region = `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;
    // Two nodes, three replicas: the headless peer hosts every region the player used.
    const held = await until('the headless peer holds the edit', () => h.figures(), (f) => (f.regions.find((r) => r.name === region)?.entries ?? 0) >= 1, 15_000);
    expect(held.links.map((l) => l.hex)).toContain(aId);
    await crashPage(a); // the player's tab dies, no goodbye

    const b = await player(profileB);
    await b.waitForFunction(([x, y, z]) => window.voxel.getBlock(x!, y!, z!) === 11, [x, y, z], { timeout: 30_000, polling: 50 });
    // Nobody but the headless peer could have served it: B's only link is to it.
    const bLinks = await b.evaluate(() => window.voxel.net!.links().map((l) => l.id));
    expect(bLinks).toEqual([h.nodeId]);
    // The region's last set was {headless, A}; with A gone, the headless peer and B certify a
    // rebase after rebaseMs (10 s, docs/HOSTING.md) and B attaches to a certified primary.
    // (A 40 s wait ran out once in a full e2e run on 2 loaded cores; alone it takes ~12 s.)
    await b.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, region, { timeout: 70_000, polling: 100 });
    const f = await until('the headless peer hosts the region with B', () => h.figures(), (g) => (g.regions.find((r) => r.name === region)?.entries ?? 0) >= 1, 10_000);
    expect(f.status).toBe('online');

    // Everyone leaves and the headless peer is killed: the edit is in its database, the only
    // place left that has it, and it starts again on its data dir as the same node.
    await crashPage(b);
    await h.stop('SIGKILL');
    const disk = await LevelStore.open(dataDir);
    expect(idToHex((await disk.nodeIdentity()).id)).toBe(h.nodeId);
    const stored = (await disk.hostStore(WORLD, h.nodeId).loadAll()).find((r) => `${r.rx},${r.rz}` === region);
    // In the region's base or in the log appended since (store/host-store.ts).
    const onDisk = [stored!.entries, ...(stored!.log ?? [])].flatMap((b) => decodeEntries(b).map((e) => e.id));
    expect(onDisk).toContain(11); // the one block A placed
    await disk.close();
    const again = await headless();
    expect(again.nodeId).toBe(h.nodeId);
    // A new player now gets the edit from it alone, drawn once the two certify a rebase, which
    // a host restarted from its store waits rebaseRestoredMs (120 s) for (docs/HOSTING.md
    // "Rebase"); measured once: drawn 130 s after the player opened. Not waited for here.
  }, 200_000);
});
