// The hosting page (host.html): a tab that only hosts keeps the world alive. A player
// edits and leaves; a new player, in a browser that never saw the world, joins later and
// finds the edit, served by the hosting tab alone. The dashboard shows what it hosts.
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { contextAhead, crashPage, disposeAll, openInProfile, PAGE_UP, type OpenOptions, type Profile } from './browser';

const WORLD = '#world=host-page-e2e&seed=host-page';
const profiles: Profile[] = [];

afterAll(async () => {
  await disposeAll(profiles);
});

/** Opens `path` in a browser context (`profile`, its own storage) that never saw the world. */
async function open(profile: Promise<Profile>, path: string, opts: OpenOptions): Promise<Page> {
  return openInProfile(profile, `${inject('baseUrl')}${path}${WORLD}`, opts);
}

const player = (profile: Promise<Profile>) => open(profile, '/?render=off&rd=2', { label: 'player', until: PAGE_UP.hosting, ready: true });

describe('the hosting page', () => {
  it('keeps an edit alive after its player left, for a player who never saw the world', async () => {
    // Three contexts of one browser, each with storage of its own; each opens its page when its turn comes.
    const [profileHost, profileA, profileB] = [contextAhead(profiles), contextAhead(profiles), contextAhead(profiles)];
    const host = await open(profileHost, '/host.html', { label: 'host', until: PAGE_UP.host });

    const a = await player(profileA);
    const me = await a.evaluate(() => window.voxel.player());
    const x = Math.floor(me.x) + 2, z = Math.floor(me.z) + 1, y = Math.floor(me.y) + 1;
    await a.evaluate(([x, y, z]) => window.voxel.setBlock(x!, y!, z!, 11), [x, y, z]);
    const region = `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(z / 16) / 4)}`;
    // Two nodes, three replicas: the hosting tab holds every region the player used.
    await host.waitForFunction((r) => (window.voxelHost!.hosting.region(r).host?.entries ?? 0) >= 1, region, { timeout: 10_000, polling: 50 });
    await crashPage(a); // the player's tab dies, no goodbye

    const b = await player(profileB);
    await b.waitForFunction(([x, y, z]) => window.voxel.getBlock(x!, y!, z!) === 11, [x, y, z], { timeout: 20_000, polling: 50 });
    // The region's last certified set was {hosting tab, A}; with A gone no majority of it is
    // left, so the hosting tab and B certify a rebase after rebaseMs (10 s, docs/HOSTING.md).
    const t0 = Date.now();
    await b.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, region, { timeout: 30_000, polling: 100 });
    console.log(`B attached to a certified primary ${Date.now() - t0} ms after it saw the edit`);
    const served = await b.evaluate((r) => window.voxel.hosting!.region(r).client, region);
    expect(served?.ready).toBe(true);

    // The dashboard says what the tab hosts.
    await host.waitForFunction(() => Number(document.querySelector<HTMLElement>('.host-dashboard')?.dataset.primary ?? 0) + Number(document.querySelector<HTMLElement>('.host-dashboard')?.dataset.backup ?? 0) > 0, null, { timeout: 5000 });
    const text = await host.locator('.host-dashboard').innerText();
    expect(text).toContain('host-page-e2e');
    expect(await host.locator('table.regions tbody tr[data-region]').count()).toBeGreaterThan(0);
    expect(text).toMatch(/online · about \d+ nodes/);
    expect(text).toMatch(/Links\s+[1-9]\d* live/);
    expect(await host.locator('#play').getAttribute('href')).toContain('peer=');
  });
});
