// Items carried by the region hosts across real Chromium tabs over real WebRTC (one browser
// context each, over the relay; docs/ITEMS.md): the hosts spawn an item in the players'
// region, two players walk onto it at the same moment, the hosts' vote gives it to exactly
// one of them and every tab agrees; the primary of the item's region then crashes (its
// renderer, no goodbye) and the item is still owned by the same player, also as seen by the
// other racer's tab after a reload (its view comes only from the hosts then). Tab 0 renders;
// the others run with render=off. `spawnms` makes the hosts propose spawns every few seconds.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { contextAhead, crashPage, disposeAll, openPage, PAGE_UP, SMALL_VIEW, type Profile } from './browser';
import { explainHosting } from './page-wait';
import { MAX_GROUND } from '../src/agree/item-ledger';

const TABS = 4;
const profiles: Profile[] = [];
const pages: (Page | null)[] = [];
// A retry (vitest.e2e.config.ts) opens fresh profiles in a world of its own: the failed
// attempt's items, owners and crashed tab would otherwise be what it starts from.
let attempt = 0;
const url = (i: number) => `${inject('baseUrl')}/?rd=2&spawnms=3000${i === 0 ? '' : '&render=off'}#world=items-hosted-e2e${attempt ? `-retry-${attempt}` : ''}&seed=items-hosted`;

const regionOf = (x: number, z: number) => `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;

/** y one stands at on column (x, z) as tab p sees it. */
const standY = (p: Page, x: number, z: number) => p.evaluate(([x, z]) => {
  for (let y = 250; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return -1;
}, [Math.floor(x), Math.floor(z)]);

const teleport = (p: Page, x: number, y: number, z: number) => p.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x, y, z]);

async function openWorld(): Promise<void> {
  await disposeAll(profiles.splice(0));
  pages.length = 0;
  // Tab 0 draws (its frames time the spawns it sees) in a small window: no pixel is read here.
  // A context each (storage of its own, so an identity of its own) of one browser: nothing here needs a browser of its own.
  profiles.push(...(await Promise.all(Array.from({ length: TABS }, (_, i) => contextAhead([], undefined, 'shell', i === 0 ? SMALL_VIEW : undefined)))));
  // Tab 0 first (it renders, and the others join its world), then the rest together.
  pages.push(await openPage(profiles[0]!.context, url(0), { label: 'tab 0', until: PAGE_UP.hosting, ready: true }));
  pages.push(...(await Promise.all(profiles.slice(1).map((pr, i) => openPage(pr.context, url(i + 1), { label: `tab ${i + 1}`, until: PAGE_UP.hosting, ready: true })))));
}

beforeAll(openWorld);

afterAll(async () => {
  await disposeAll(profiles);
});

describe('items carried by the region hosts, across tabs', () => {
  it('two players race for one item: exactly one holds it, every tab agrees, and a crash of the primary changes nothing', async () => {
    if (attempt++ > 0) await openWorld();
    for (const p of pages) expect(await p!.evaluate(() => window.voxel.items!.mode)).toBe('hosted');
    // Everyone stands in tab 0's region (a few blocks apart), so its hosts spawn items there.
    const me = await pages[0]!.evaluate(() => window.voxel.player());
    const region = regionOf(me.x, me.z);
    for (let i = 1; i < TABS; i++) {
      const x = Math.floor(me.x) + 0.5 + (regionOf(me.x + 8, me.z) === region ? i : -i), z = Math.floor(me.z) + 0.5;
      await teleport(pages[i]!, x, await standY(pages[i]!, x, z), z);
    }

    // The region's primary, once one holds it: under load a claim (or a failover the
    // teleports caused) can be under way right now (a CI run read no primary at once).
    let roles = await Promise.all(pages.map((p) => p!.evaluate(() => window.voxel.hosting!.roles())));
    for (const until = Date.now() + 20_000; !roles.some((r) => r.primary.includes(region)) && Date.now() < until; ) {
      await pages[0]!.waitForTimeout(250);
      roles = await Promise.all(pages.map((p) => p!.evaluate(() => window.voxel.hosting!.roles())));
    }
    const primary = roles.findIndex((r) => r.primary.includes(region));
    if (primary < 0) await explainHosting(pages.map((page, i) => ({ label: `tab ${i}`, page: page! })));
    expect(primary, `a primary of ${region} among the tabs`).toBeGreaterThanOrEqual(0);
    const [ai, bi] = [0, 1, 2, 3].filter((i) => i !== primary);
    const [a, b] = [pages[ai!]!, pages[bi!]!];
    const ids = await Promise.all(pages.map((p) => p!.evaluate(() => window.voxel.net!.id())));
    // The region holds at most 6 items lying about: tab a takes a few, so new ones spawn, and
    // goes back to where it stood before the tabs watch. A tab lists the items within 48
    // blocks of its player: one that moved while watching saw an item first when it came near
    // it, after the item's time (ci109: a skew of 1,554 ms, the longest frame gap 52).
    const home = await a.evaluate(() => window.voxel.player());
    for (let k = 0; k < 3; k++) {
      const free = await a.evaluate((r) => window.voxel.items!.inView().filter((i) => i.owner === null && `${Math.floor(Math.floor(i.x / 16) / 4)},${Math.floor(Math.floor(i.z / 16) / 4)}` === r), region);
      const take = free[0];
      if (!take) break;
      await teleport(a, take.x, take.y, take.z);
      await a.waitForFunction((id) => !!window.voxel.items!.item(id)?.owner, take.id, { timeout: 10_000, polling: 50 }).catch(() => {});
    }
    await teleport(a, home.x, home.y, home.z);
    // Tab to tab: the world clocks (each tab's world time minus the machine's clock, which all
    // tabs share), and the moment each item first shows in each tab (sampled every frame).
    // `gap`: ms since the tab's previous frame, so a skew that is only frame sampling (a
    // loaded machine draws a few frames a second) is told from an item shown late.
    type Seen = Record<string, { wall: number; at: number; gap: number }>;
    const watchFrom = await Promise.all(pages.map((p) => p!.evaluate(() => {
      const w = window as unknown as { __seen: Seen };
      const now = () => performance.timeOrigin + performance.now();
      w.__seen = {};
      let last = now();
      const tick = () => {
        const t = now();
        for (const i of window.voxel.items!.inView()) if (!(i.id in w.__seen)) w.__seen[i.id] = { wall: t, at: i.at, gap: t - last };
        last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      return now();
    })));
    // Until an item that appeared after every tab began watching has shown in all of them
    // (spawns are random: a fixed wait saw none in one CI run), at most 12 s: the skew is only
    // a sanity check here (`npm run bench -- items` measures it), and waiting 40 s for a spawn
    // that did not come was half of this file's time in CI.
    const newSeen = async (): Promise<boolean> => {
      const all = await Promise.all(pages.map((p) => p!.evaluate(() => (window as unknown as { __seen: Seen }).__seen)));
      return Object.entries(all[0]!).some(([id, first]) => first.at > Math.max(...watchFrom) + 100 && all.every((s) => s[id] !== undefined));
    };
    for (const until = Date.now() + 12_000; Date.now() < until && !(await newSeen()); ) await pages[0]!.waitForTimeout(500);
    const clocks = await Promise.all(pages.map((p) => p!.evaluate(() => {
      const c = window.voxel.items!.clock();
      return { err: c.now - (performance.timeOrigin + performance.now()), bound: c.bound, ref: c.reference };
    })));
    const errs = clocks.map((c) => c.err);
    const clockSpread = Math.max(...errs) - Math.min(...errs);
    const seen = await Promise.all(pages.map((p) => p!.evaluate(() => (window as unknown as { __seen: Seen }).__seen)));
    // Which tabs learned an item only after its time (play/item-appearances.ts): said with its skew.
    const appearances = await Promise.all(pages.map((p) => p!.evaluate(() => window.voxel.items!.appearances())));
    const skews: { skew: number; gap: number; late: string }[] = [];
    for (const [id, first] of Object.entries(seen[0]!)) {
      const firsts = seen.map((s) => s[id]);
      if (first.at <= Math.max(...watchFrom) + 100 || firsts.some((f) => f === undefined)) continue;
      const walls = firsts.map((f) => f!.wall);
      const late = appearances.flatMap((list, tab) => (list.some((x) => x.id === id && x.at === first.at && x.late) ? [`tab ${tab}`] : []));
      skews.push({ skew: Math.max(...walls) - Math.min(...walls), gap: Math.max(...firsts.map((f) => f!.gap)), late: late.length > 0 ? `, learned late in ${late.join(' and ')}` : '' });
    }
    console.log(`tab clocks: spread ${clockSpread.toFixed(2)} ms (world - machine clock per tab: ${errs.map((e) => e.toFixed(2)).join(', ')}; bounds ${clocks.map((c) => c.bound.toFixed(2)).join(', ')}); spawn skew over ${skews.length} items: ${skews.map((s) => `${s.skew.toFixed(1)} (longest frame gap ${s.gap.toFixed(0)}${s.late})`).join(', ')} ms`);
    expect(clocks.every((c) => Number.isFinite(c.bound))).toBe(true);
    expect(clockSpread).toBeLessThan(50);
    // Spawns are random: a CI run under load saw none in 40 s. The skew itself is
    // measured by `npm run bench -- items`; here it is a sanity check when an item came.
    if (skews.length === 0) console.warn('items-hosted: no item spawned while every tab watched (skew not checked)');
    // Sanity only (the figure is logged; docs/ITEMS.md). A tab sees an item on its first frame
    // after the item's time, so the skew is at most the longest gap between two frames of a
    // tab there, plus the clocks' spread: a CI run with the machine loaded (load 11) saw 1,728
    // ms, when a 1,000 ms bound alone failed it. 1,000 ms beyond the frames is an item late.
    // That bound holds for an item every tab learned before its time: one learned after it
    // (its announcement came late: at load 46, 983 ms) shows as soon as it is learned, and is
    // only logged, as `npm run bench -- items` counts it apart (spawn_items_late).
    for (const s of skews.filter((x) => x.late === '')) expect(s.skew, `spawn skew ${s.skew.toFixed(0)} ms, longest frame gap ${s.gap.toFixed(0)} ms`).toBeLessThan(s.gap + clockSpread + 1000);

    // An item of this region lying free, on ground the players can stand on.
    let item: { id: string; x: number; y: number; z: number; at: number } | undefined;
    const t0 = Date.now();
    // Tab a reads the region's items from its middle: the API lists items within 48 blocks of
    // the player, and every column of a 64-block region is within 45 of its middle. (Read from
    // a corner, a full region (MAX_GROUND, 6, lying about: no more spawn) looked less than full,
    // so tab a took none and a CI run saw 90 s pass with no new item.) An item over water, in a
    // tree's trunk or too near the region's edge does not do: tab a takes it to make room.
    const [rx, rz] = region.split(',').map(Number) as [number, number];
    const mid = { x: rx * 64 + 32.5, z: rz * 64 + 32.5 };
    const rejected = new Map<string, string>(); // id -> why (logged if none does)
    const block = (x: number, y: number, z: number) => a.evaluate(([x, y, z]) => window.voxel.getBlock(x!, y!, z!), [x, y, z]);
    /** Solid ground under the item (not water), and room for the item and a player's head: true; the column not loaded: undefined. */
    const fits = async (it: { x: number; y: number; z: number }): Promise<boolean | undefined> => {
      const [below, at, above] = [await block(it.x, it.y - 1, it.z), await block(it.x, it.y, it.z), await block(it.x, it.y + 1, it.z)];
      if (below === 0 && at === 0 && (await standY(a, it.x, it.z)) < 0) return undefined;
      return below !== 0 && below !== 5 && at === 0 && above === 0;
    };
    while (!item && Date.now() - t0 < 90_000) {
      await teleport(a, mid.x, Math.max(await standY(a, mid.x, mid.z), 1), mid.z);
      await a.waitForFunction(() => window.voxel.stats().chunksPending === 0, null, { timeout: 10_000 }).catch(() => {});
      const free = await a.evaluate((r) => window.voxel.items!.inView().filter((i) => i.owner === null && `${Math.floor(Math.floor(i.x / 16) / 4)},${Math.floor(Math.floor(i.z / 16) / 4)}` === r), region);
      for (const it of free) {
        if (item || rejected.has(it.id)) continue;
        if (regionOf(it.x + 4, it.z) !== region || regionOf(it.x - 4, it.z) !== region) { rejected.set(it.id, 'edge'); continue; }
        let ok = await fits(it);
        if (ok === undefined) {
          await teleport(a, it.x + 6, it.y + 3, it.z);
          await a.waitForFunction(() => window.voxel.stats().chunksPending === 0, null, { timeout: 15_000 }).catch(() => {});
          ok = await fits(it);
        }
        if (ok) item = it;
        else rejected.set(it.id, ok === undefined ? 'not loaded' : `ground ${await block(it.x, it.y - 1, it.z)}, at ${await block(it.x, it.y, it.z)}`);
      }
      if (item) break;
      const spare = free.find((i) => rejected.has(i.id));
      if (spare && free.length >= MAX_GROUND) {
        await teleport(a, spare.x, spare.y, spare.z);
        await a.waitForFunction((id) => !!window.voxel.items!.item(id)?.owner, spare.id, { timeout: 10_000, polling: 50 }).catch(() => {});
      }
      await a.waitForTimeout(1000);
    }
    if (!item) console.error(`no suitable item in region ${region}: rejected ${JSON.stringify([...rejected])}`);
    expect(item, 'an item spawned by the hosts').toBeDefined();
    const it = item!;
    console.log(`item ${it.id} after ${Date.now() - t0} ms`);

    // Both come within four blocks (outside reach) and stay until the hosts saw them there, then step onto it at once.
    const [ya, yb] = [await standY(a, it.x + 4, it.z), await standY(b, it.x - 4, it.z)];
    await Promise.all([teleport(a, it.x + 4, ya, it.z), teleport(b, it.x - 4, yb, it.z)]);
    await a.waitForTimeout(3000);
    await Promise.all([teleport(a, it.x + 0.3, it.y, it.z), teleport(b, it.x - 0.3, it.y, it.z)]);
    for (const p of pages) await p!.waitForFunction((id) => !!window.voxel.items!.item(id)?.owner, it.id, { timeout: 20_000, polling: 50 });
    const owners = await Promise.all(pages.map((p) => p!.evaluate((id) => window.voxel.items!.item(id)?.owner, it.id)));
    const winner = owners[0]!;
    expect(new Set(owners)).toEqual(new Set([winner]));
    expect([ids[ai!], ids[bi!]]).toContain(winner);
    const holds = await Promise.all([a, b].map((p) => p.evaluate((id) => window.voxel.items!.inventory().some((i) => i.id === id), it.id)));
    expect(holds.filter(Boolean)).toHaveLength(1);
    const [winTab, loseTab] = holds[0] ? [a, b] : [b, a];
    // The race was run: the winner claimed. (The loser claims too unless the decision reached
    // it before its own step onto the item did; a CI run under load saw that, so its claim
    // count is logged, not asserted.)
    const claims = await Promise.all([a, b].map((p) => p.evaluate(() => window.voxel.items!.stats().claims ?? 0)));
    expect(Math.max(...claims)).toBeGreaterThanOrEqual(1);
    console.log(`won by ${winner.slice(0, 8)}; claims: ${JSON.stringify(await loseTab.evaluate(() => window.voxel.items!.stats()))}`);
    // Every tab took the owner by the hosts' signatures (agree/decision-proof.ts): a proof checked, none refused.
    for (const p of pages) {
      const st = await p!.evaluate(() => window.voxel.items!.stats());
      expect(st['proof.checked'] ?? 0).toBeGreaterThan(0);
      expect((st['proof.bad-signature'] ?? 0) + (st['proof.minority'] ?? 0) + (st['proof.non-voter'] ?? 0)).toBe(0);
    }

    // The primary of the item's region crashes: no goodbye.
    await crashPage(pages[primary]!);
    pages[primary] = null;
    // Until a live tab is the region's primary again (a failover: ~1 s; a fixed 8 s before).
    const t1 = Date.now();
    for (let found = false; !found && Date.now() - t1 < 20_000; ) {
      const live = await Promise.all(pages.filter(Boolean).map((p) => p!.evaluate(() => window.voxel.hosting!.roles())));
      found = live.some((r) => r.primary.includes(region));
      if (!found) await winTab.waitForTimeout(200);
    }
    console.log(`a new primary of ${region} ${Date.now() - t1} ms after the crash`);
    // The loser's tab reloads: what it knows of items now comes from the hosts alone.
    await loseTab.reload();
    await loseTab.waitForFunction(() => window.voxel?.items?.mode === 'hosted', null, { timeout: 30_000 });
    await loseTab.evaluate(() => window.voxel.ready());
    await loseTab.waitForFunction((id) => !!window.voxel.items!.item(id)?.owner, it.id, { timeout: 30_000, polling: 100 }).catch(async (err: Error) => {
      const info = await loseTab.evaluate((id) => ({ at: window.voxel.player(), item: window.voxel.items!.item(id), inView: window.voxel.items!.inView().map((i) => [i.id, i.owner]), roles: window.voxel.hosting?.roles() }), it.id);
      const others = await Promise.all(pages.filter((p) => p && p !== loseTab).map((p) => p!.evaluate((id) => ({ item: window.voxel.items!.item(id), roles: window.voxel.hosting?.roles(), trace: window.voxel.hosting?.trace().slice(-12) }), it.id)));
      console.error(JSON.stringify(others, null, 1));
      throw new Error(`the reloaded tab does not know the item: ${JSON.stringify(info)}: ${err.message}`);
    });
    expect(await loseTab.evaluate((id) => window.voxel.items!.item(id)?.owner, it.id)).toBe(winner);
    expect(await winTab.evaluate((id) => window.voxel.items!.inventory().map((i) => i.id).includes(id), it.id)).toBe(true);
    // One primary of the region, never two at once (read again for up to 15 s: a handoff to a
    // closer host leaves a moment with none, which a loaded CI run read once).
    let primaries = -1;
    for (const until = Date.now() + 15_000; primaries !== 1 && Date.now() < until; await winTab.waitForTimeout(250)) {
      const after = await Promise.all(pages.filter(Boolean).map((p) => p!.evaluate(() => window.voxel.hosting!.roles())));
      primaries = after.filter((r) => r.primary.includes(region)).length;
      expect(primaries).toBeLessThanOrEqual(1);
    }
    expect(primaries).toBe(1);
  }, 240_000);
});
