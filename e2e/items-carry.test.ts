// Carrying an item into another region across real Chromium tabs over real WebRTC
// (docs/ITEMS.md "Carrying an item across regions"): the hosts spawn an item in region A,
// the carrier's tab walks onto it (the pickup vote), is teleported into the next region B
// (the app's test hook) and drops it there (Q's code path: the tombstone in A signed by A's
// hosts, then the arrival in B signed by B's, each request signed by the owner). Every tab
// then holds the item in exactly one place, lying in B, nobody's; B's hosts hold it with a
// proof that checks against B's host set, A's hosts the tombstone with one of A's. Tab 0
// draws (SMALL_VIEW, WebGL on SwiftShader) and watches the item arrive; the others run with
// render=off. One browser, a context (identity) per tab.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { DropOutcome, ItemInfo } from '../src/play/item-service';
import type { HostedItemRecord } from '../src/app/hosting-api';
import { launchBrowser, openInFreshContext, PAGE_UP, SMALL_VIEW } from './browser';
import { screenshotStats } from './page-checks';
import { waitForAsync } from './page-wait';

const TABS = 4;
const REGION_BLOCKS = 64;
let browser: Browser;
const pages: Page[] = [];
const url = (i: number) => `${inject('baseUrl')}/?rd=2&spawnms=2000${i === 0 ? '' : '&render=off'}#world=items-carry-e2e&seed=items-carry`;

const regionOf = (x: number, z: number) => `${Math.floor(x / REGION_BLOCKS)},${Math.floor(z / REGION_BLOCKS)}`;

/** y one stands at on column (x, z) as tab p sees it (-1: not loaded). */
const standY = (p: Page, x: number, z: number) => p.evaluate(([x, z]) => {
  for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return -1;
}, [Math.floor(x), Math.floor(z)]);

/** Teleports tab p to column (x, z), standing on it once the tab has its chunks. */
async function teleport(p: Page, x: number, z: number, y?: number): Promise<void> {
  let at = y ?? await standY(p, x, z);
  if (at < 0) {
    await p.evaluate(([x, z]) => window.voxel.teleport(x!, 120, z!), [x, z]);
    await p.waitForFunction(([x, z]) => {
      for (let y = 250; y > 0; y--) if (window.voxel.getBlock(Math.floor(x!), y, Math.floor(z!)) !== 0) return true;
      return false;
    }, [x, z], { timeout: 20_000, polling: 100 });
    at = await standY(p, x, z);
  }
  await p.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x, at, z]);
}

const item = (p: Page, id: string) => p.evaluate((id) => window.voxel.items!.item(id), id);
const hostRecords = (p: Page, region: string) => p.evaluate((r) => window.voxel.hosting!.items(r), region);
const roles = (p: Page) => p.evaluate(() => window.voxel.hosting!.roles());

/** On a failed wait: what every tab hosts of `region` and holds of item `id` there, and its last hosting decisions. */
async function explain(region: string, id: string): Promise<void> {
  for (const [i, p] of pages.entries()) {
    const r = await roles(p);
    const rec = (await hostRecords(p, region)).find((x) => x.id === id);
    const trace = await p.evaluate(() => window.voxel.hosting!.trace().slice(-12));
    console.error(`tab ${i}: primary [${r.primary.join(' ')}] backup [${r.backup.join(' ')}]; ${region}'s record of ${id}: ${JSON.stringify(rec)}\n  ${trace.join('\n  ')}`);
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
  const open = (i: number) => openInFreshContext(browser, url(i), { label: `tab ${i}`, until: PAGE_UP.hosting, ready: true, ...(i === 0 ? { viewport: SMALL_VIEW } : {}) });
  // Tab 0 first (it starts the world), then the others together: one by one was ~15 s of this file.
  pages.push(await open(0));
  pages.push(...(await Promise.all(Array.from({ length: TABS - 1 }, (_, k) => open(k + 1)))));
});

afterAll(async () => {
  await browser?.close();
});

describe('an item carried into another region, across tabs', () => {
  it('picked up in region A, dropped in region B: every tab has it in one place, B\'s hosts hold it with a valid proof and A\'s the tombstone', async () => {
    const t0 = Date.now();
    for (const p of pages) expect(await p.evaluate(() => window.voxel.items!.mode)).toBe('hosted');
    const [watcher, carrier] = [pages[0]!, pages[1]!];
    const carrierId = await carrier.evaluate(() => window.voxel.net!.id());
    // Everyone stands in A, in the middle of a region, so A's hosts spawn items there.
    const me = await watcher.evaluate(() => window.voxel.player());
    const A = { rx: Math.floor(me.x / REGION_BLOCKS), rz: Math.floor(me.z / REGION_BLOCKS) };
    const nameA = `${A.rx},${A.rz}`;
    const midA = { x: A.rx * REGION_BLOCKS + 24.5, z: A.rz * REGION_BLOCKS + 32.5 };
    for (const [i, p] of pages.entries()) await teleport(p, midA.x + i, midA.z);

    // A free item of A, away from its borders, on ground one can stand on.
    let it: ItemInfo | undefined;
    for (const until = Date.now() + 40_000; !it && Date.now() < until; ) {
      const free = await carrier.evaluate((r) => window.voxel.items!.inView().filter((i) => i.owner === null && `${Math.floor(i.x / 64)},${Math.floor(i.z / 64)}` === r), nameA);
      for (const f of free) if (regionOf(f.x + 6, f.z) === nameA && regionOf(f.x - 6, f.z) === nameA && (await standY(carrier, f.x, f.z)) === f.y) it = f;
      if (!it) await carrier.waitForTimeout(500);
    }
    expect(it, 'an item spawned by A\'s hosts').toBeDefined();
    const id = it!.id;
    console.log(`item ${id} in ${nameA} after ${Date.now() - t0} ms`);

    // The carrier walks onto it: the pickup vote makes it the owner.
    await teleport(carrier, it!.x, it!.z, it!.y);
    await carrier.waitForFunction(([id, me]) => window.voxel.items!.item(id!)?.owner === me, [id, carrierId], { timeout: 20_000, polling: 50 });

    // Into B, a neighbour of A whose host set is not A's if one is (each becomes hosted once a
    // player stands in it; the carrier still holds the item there), into its middle (the drop
    // lands 3 blocks ahead, still in B), the watcher beside it.
    const hostsOf = async (name: string) => {
      const out: Page[] = [];
      for (const p of pages) { const r = await roles(p); if (r.primary.includes(name) || r.backup.includes(name)) out.push(p); }
      return out;
    };
    const hostsA = await hostsOf(nameA);
    let nameB = nameA, hostsB: Page[] = [];
    for (const [dx, dz] of [[1, 0], [0, 1], [-1, 0], [0, -1]] as const) {
      const B = { rx: A.rx + dx, rz: A.rz + dz };
      nameB = `${B.rx},${B.rz}`;
      const mid = { x: B.rx * REGION_BLOCKS + 32.5, z: B.rz * REGION_BLOCKS + 32.5 };
      await teleport(carrier, mid.x, mid.z);
      await teleport(watcher, mid.x + 4, mid.z + 4);
      await carrier.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, nameB, { timeout: 20_000, polling: 100 });
      for (const until = Date.now() + 10_000; (hostsB = await hostsOf(nameB)).length < 3 && Date.now() < until; ) await carrier.waitForTimeout(250);
      if (hostsB.some((p) => !hostsA.includes(p))) break;
    }
    console.log(`hosts: ${nameA} tabs ${hostsA.map((p) => pages.indexOf(p))}, ${nameB} tabs ${hostsB.map((p) => pages.indexOf(p))}`);
    if (!hostsB.some((p) => !hostsA.includes(p))) console.warn(`items-carry: every neighbour of ${nameA} has its host set`);
    const midB = await carrier.evaluate(() => window.voxel.player());
    expect((await carrier.evaluate(() => window.voxel.items!.inventory())).map((i) => i.id)).toContain(id);
    let outcome: DropOutcome | undefined;
    for (let k = 0; k < 5 && !outcome?.dropped; k++) {
      if (k) await carrier.waitForTimeout(1000); // B's items (its host set) not known to the carrier yet
      outcome = await carrier.evaluate((id) => window.voxel.items!.drop(id), id);
    }
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ dropped: true });
    console.log(`dropped in ${nameB} after ${Date.now() - t0} ms: ${JSON.stringify(outcome)}`);

    // Every tab: the item lies in B, nobody's, once; nobody holds it.
    for (const [i, p] of pages.entries()) if (i > 1) await teleport(p, midB.x - 4 - i, midB.z + 4);
    for (const p of pages) {
      await p.waitForFunction(([id, b]) => {
        const i = window.voxel.items!.item(id!);
        return !!i && i.owner === null && `${Math.floor(i.x / 64)},${Math.floor(i.z / 64)}` === b;
      }, [id, nameB], { timeout: 20_000, polling: 100 });
      const seen = await p.evaluate((id) => ({ inView: window.voxel.items!.inView().filter((i) => i.id === id), held: window.voxel.items!.inventory().some((i) => i.id === id) }), id);
      expect(seen.inView).toHaveLength(1);
      expect(seen.held).toBe(false);
    }
    const dropped = (await item(carrier, id))!;
    expect(regionOf(dropped.x, dropped.z)).toBe(nameB);

    // The hosts: B's hold it lying there with a proof that checks; A's hold the tombstone, proven by A's hosts.
    hostsB = await hostsOf(nameB);
    expect(hostsB.length).toBeGreaterThanOrEqual(2);
    const proofOf = (vote: string, gen: number) => new RegExp(`^(${vote}|keep):${id.replace(/[^\w]/g, '\\$&')}:${gen}$`);
    const recordIn = async (p: Page, name: string): Promise<HostedItemRecord | undefined> => (await hostRecords(p, name)).find((r) => r.id === id);
    for (const p of hostsB) {
      await waitForAsync(p, ([r, id]) => window.voxel.hosting!.items(r!).then((rs) => rs.some((x) => x.id === id && x.owner === null)), [nameB, id] as const, { timeout: 15_000, polling: 200, what: `the item lying in ${nameB} at a host of it` });
      const rec = (await recordIn(p, nameB))!;
      // Decided by the drop vote, or vouched for by a newer set of B's hosts (endorse-records.ts: a set change re-proves what it holds).
      expect(rec).toMatchObject({ owner: null, x: dropped.x, z: dropped.z, valid: true, proof: { vote: expect.stringMatching(proofOf('drop', rec.gen)) } });
      expect(rec.away).toBeUndefined();
    }
    const gens = new Set(await Promise.all(hostsB.map(async (p) => (await recordIn(p, nameB))!.gen)));
    expect(gens.size).toBe(1);
    // A's hosts as they are now, not at the carry: a tab may have left A's set since (a run
    // with the machine loaded waited 15 s for the tombstone at one of the carry's hosts; which
    // one and why was not recorded: explain() prints it now). Whoever hosts A now must hold it.
    const hostsANow = await hostsOf(nameA);
    console.log(`${nameA}'s hosts now: tabs ${hostsANow.map((p) => pages.indexOf(p))}`);
    expect(hostsANow.length).toBeGreaterThanOrEqual(2);
    for (const p of hostsANow) {
      await waitForAsync(p, ([r, id]) => window.voxel.hosting!.items(r!).then((rs) => rs.some((x) => x.id === id && x.away !== undefined)), [nameA, id] as const, { timeout: 15_000, polling: 200, what: `the tombstone in ${nameA} at tab ${pages.indexOf(p)}, a host of it` })
        .catch(async (err: unknown) => { await explain(nameA, id); throw err; });
      const tomb = (await recordIn(p, nameA))!;
      // The carry vote's proof, or a newer set's of A vouching for it (a CI run saw A's set change and its `keep:` proof here).
      expect(tomb).toMatchObject({ owner: carrierId, away: nameB, valid: true, proof: { vote: expect.stringMatching(proofOf('carry', tomb.gen)) } });
      expect(tomb.gen + 1).toBe([...gens][0]);
    }
    // The requests were the owner's: every host of both regions checked its signature (owner-request.ts), none refused one.
    for (const p of pages) {
      const s = await p.evaluate(() => window.voxel.hosting!.stats());
      expect(['bad-signature', 'other-gen', 'expired', 'replayed'].map((k) => s[`items_request_${k}`] ?? 0)).toEqual([0, 0, 0, 0]);
      if (hostsA.includes(p) || hostsB.includes(p)) expect(s.items_request_checked).toBeGreaterThan(0);
    }
    // The drawing tab drew the scene with the item in view.
    const shot = await screenshotStats(watcher);
    expect(shot.distinctColours).toBeGreaterThan(50);
    expect(await watcher.evaluate((id) => window.voxel.items!.inView().some((i) => i.id === id), id)).toBe(true);
    console.log(`carry test done in ${Date.now() - t0} ms`);
  }, 120_000);
});
