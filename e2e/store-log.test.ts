// The host store's log in real IndexedDB (Chromium, a profile on disk): a renderer crashed
// while edits are being appended and compacted (src/host/stored-copy.ts) loses no edit whose
// write had resolved, and a page reloaded after appends reads the base + log back. The
// page is e2e/pages/store-log.html + store-log.ts, served by vite's dev server started here
// (test-only code stays out of the production build). And the app itself in that profile:
// two worlds of one name and two seeds keep their records apart (store/store-scope.ts).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { crashPage, launchProfile, openPage, PAGE_UP, startDevServer, type Profile } from './browser';
import { groundAt } from './page-world';
import { COMPACT_RECORDS } from '../src/host/stored-copy';

const PORT = 8096;
const URL = `http://127.0.0.1:${PORT}/e2e/pages/store-log.html`;
const KEYS = 4000, BASE = 1000, BASE_ENTRIES = 2000;

let vite: Awaited<ReturnType<typeof startDevServer>>;
let profile: Profile;

async function open(): Promise<Page> {
  const page = await profile.context.newPage();
  await page.goto(URL);
  await page.waitForFunction(() => window.vpStoreLog !== undefined, null, { timeout: 60_000 });
  return page;
}

/** Checks that every edit 1..upTo (and the untouched base) is in what a reloaded host reads. */
function expectHeld(entries: [number, number, number][], upTo: number): void {
  const byKey = new Map(entries.map(([k, id, s]) => [k, { id, s }]));
  for (let i = Math.max(1, upTo - KEYS + 1); i <= upTo; i++) {
    const e = byKey.get(i % KEYS);
    // The newest edit of that key at or after i (a later one may have landed before the crash).
    expect(e && e.s >= BASE + i, `edit ${i} lost`).toBe(true);
  }
  // The base's blocks not edited since are still there.
  expect(byKey.get((BASE_ENTRIES - 1) * 7 % KEYS)).toBeDefined();
}

beforeAll(async () => {
  vite = await startDevServer(PORT);
  profile = await launchProfile();
});

afterAll(async () => {
  await profile?.dispose();
  await vite?.close();
});

describe("a world's records in one profile, by its name and its seed", () => {
  // Two seeds of one name are two worlds; keyed by the name alone, a tab of seed B loaded what
  // this profile kept for seed A (store/store-scope.ts; src/store's tests check the keys with
  // stores in memory, this the app's own in real IndexedDB). The one-tab world (net=off): its
  // chunks' edits are kept in the profile, and a tab needs no network to show them.
  // First: the crash below leaves a crashed target in the profile, which refuses the context's routes.
  it('a block placed in seed A is not shown in seed B, and is in A after a reload', async () => {
    const BRICK = 11;
    const url = (seed: string) => `${inject('baseUrl')}/?render=off&net=off&rd=1#world=e2e-store-scope&seed=${seed}`;
    const page = await openPage(profile.context, url('scope-a'), { until: PAGE_UP.voxel });
    // One tab goes from world to world, as a player following links does (each a new document: a
    // link differing only in its fragment would not load the page again).
    const go = async (seed: string) => {
      await page.goto('about:blank');
      await page.goto(url(seed));
      await page.waitForFunction(() => typeof window.voxel === 'object', null, { timeout: 30_000, polling: 20 });
    };
    const me = await page.evaluate(() => window.voxel.player());
    const x = Math.floor(me.x) + 2, z = Math.floor(me.z) + 1;
    const y = (await groundAt(page, x, z)) + 1;
    // Resolved once stored (play/local-chunk-source.ts).
    expect(await page.evaluate(([x, y, z, id]) => window.voxel.setBlock(x!, y!, z!, id!), [x, y, z, BRICK])).toEqual({ confirmed: true });
    const shown = async () => {
      await page.waitForFunction(([x, y, z]) => window.voxel.getBlock(x!, y!, z!) >= 0, [x, y, z], { timeout: 30_000, polling: 20 });
      return page.evaluate(([x, y, z]) => window.voxel.getBlock(x!, y!, z!), [x, y, z]);
    };
    await go('scope-b');
    // Seed B's spawn is elsewhere (play/spawn-point.ts): its player goes to the spot.
    await page.evaluate(([x, z]) => window.voxel.teleport(x! + 0.5, 150, z! + 0.5), [x, z]);
    expect(await shown(), "seed B shows seed A's block").not.toBe(BRICK);
    await go('scope-a');
    expect(await shown(), "seed A's block after a reload").toBe(BRICK);
    await page.close();
  });
});

describe('host store log in real IndexedDB', () => {
  it('a reloaded page reads base + log: every appended edit, no compaction needed', async () => {
    const page = await open();
    const kinds = await page.evaluate(() => window.vpStoreLog.write('reload', 1, 40, 2000));
    expect(kinds[0]).toBe('base');
    expect(kinds.slice(1).every((k) => k === 'append')).toBe(true);
    await page.reload();
    await page.waitForFunction(() => window.vpStoreLog !== undefined, null, { timeout: 60_000 });
    const got = await page.evaluate(() => window.vpStoreLog.load('reload'));
    expect(got.logRecords).toBe(40);
    expectHeld(got.entries, 40);
    await page.close();
  });

  it('a renderer crashed mid-stream of appends and compactions loses no edit reported stored', async () => {
    const page = await open();
    let reported = 0;
    // Crash past the first compaction, while appends go on.
    const crashAt = COMPACT_RECORDS + 60;
    const crashed = new Promise<void>((resolve) => page.on('console', (m) => {
      const [what, n] = m.text().split(' ');
      if (what !== 'stored') return;
      reported = Math.max(reported, Number(n));
      if (reported === crashAt) resolve();
    }));
    void page.evaluate(() => window.vpStoreLog.write('crash', 1, 100_000, 2000)).catch(() => {});
    await crashed;
    await crashPage(page);
    const after = await open();
    const got = await after.evaluate(() => window.vpStoreLog.load('crash'));
    expect(reported).toBeGreaterThanOrEqual(crashAt);
    // The log since the compaction was on disk, not folded in yet.
    expect(got.logRecords).toBeGreaterThan(0);
    expectHeld(got.entries, reported);
    // A reopened host goes on: its first write folds the log into a base.
    const kinds = await after.evaluate((r) => window.vpStoreLog.write('crash', r + 1, r + 5, 2000), reported);
    expect(kinds[0]).toBe('base');
    const again = await after.evaluate(() => window.vpStoreLog.load('crash'));
    // Five appends, less any of those edits whose write landed before the crash without
    // being reported yet (already held: a write of an unchanged stamp appends nothing).
    expect(again.logRecords).toBeGreaterThanOrEqual(1);
    expect(again.logRecords).toBeLessThanOrEqual(5);
    expectHeld(again.entries, reported + 5);
  });
});
