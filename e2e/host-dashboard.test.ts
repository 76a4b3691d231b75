// The hosting page's figures follow the state of the world: two players join and its link
// count rises by two, with measured round trips; a player's edit raises its count of edits
// kept; its traffic counters grow; it asked for persistent storage and says the answer; a
// player who chose a name and stands in a region the page is primary of is listed by it.
// Writes hosting-dashboard.png (e2e/screenshots.ts: docs/screenshots/ under `npm run screenshots`).
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { contextAhead, disposeAll, openInProfile, PAGE_UP, type OpenOptions, type Profile } from './browser';
import { screenshotPath } from './screenshots';

const WORLD = '#world=host-dash-e2e&seed=host-dash';
const profiles: Profile[] = [];

afterAll(async () => {
  await disposeAll(profiles);
});

/** Opens `path` in a fresh browser context (from contextAhead: its own storage, so its own identity). */
function open(profile: Promise<Profile>, path: string, opts: OpenOptions): Promise<Page> {
  return openInProfile(profile, `${inject('baseUrl')}${path}${WORLD}`, opts);
}

/** The dashboard's data-* figures, as numbers where they are numbers. */
const figures = (host: Page) => host.evaluate(() => {
  const d = document.querySelector<HTMLElement>('.host-dashboard')!.dataset;
  return { links: Number(d.links), rtts: Number(d.rtts), entries: Number(d.entries), bytesIn: Number(d.bytesIn), bytesOut: Number(d.bytesOut), networkSize: Number(d.networkSize), persisted: d.persisted };
});

describe('the hosting dashboard', () => {
  it('follows the state: links with round trips, edits, traffic, network size, storage', async () => {
    // Three contexts of one browser (a browser of its own each only cost its start); the
    // players open their pages once the hosting page's figures are read, both at once.
    const [profileHost, ...profilePlayers] = [contextAhead(profiles), contextAhead(profiles), contextAhead(profiles)];
    const host = await open(profileHost, '/host.html', { until: () => window.voxelHost?.ready === true && document.querySelector<HTMLElement>('.host-dashboard')?.dataset.links !== undefined });
    const before = await figures(host);
    const players = await Promise.all(profilePlayers.map((p) => open(p, '/?render=off&rd=2', { until: PAGE_UP.hosting, ready: true })));
    await host.waitForFunction((n) => Number(document.querySelector<HTMLElement>('.host-dashboard')!.dataset.links) >= n + 2, before.links, { timeout: 15_000 });
    const joined = await figures(host);
    expect(joined.links - before.links).toBe(2);
    // Round trips are probed every 5 s.
    await host.waitForFunction(() => Number(document.querySelector<HTMLElement>('.host-dashboard')!.dataset.rtts) >= 2, null, { timeout: 15_000 });
    expect(await host.locator('dd[data-f="links"]').innerText()).toMatch(/round trip median \d+\.\d ms/);
    // How each link is carried, from its selected ICE pair: on loopback, direct, none through TURN.
    await host.waitForFunction(() => Number(document.querySelector<HTMLElement>('.host-dashboard')!.dataset.pathsUnknown) === 0, null, { timeout: 5000 });
    const paths = await host.evaluate(() => ({ ...document.querySelector<HTMLElement>('.host-dashboard')!.dataset }));
    console.log(`dashboard link paths: host ${paths.pathsHost}, prflx ${paths.pathsPrflx}, srflx ${paths.pathsSrflx}, relay ${paths.pathsRelay}`);
    expect(Number(paths.pathsHost) + Number(paths.pathsPrflx)).toBe(Number(paths.links));
    expect([paths.pathsSrflx, paths.pathsRelay]).toEqual(['0', '0']);
    expect(paths.relayedShare).toBe('0.000');
    expect(await host.locator('dd[data-f="links"]').innerText()).toMatch(/\d+ direct \(host\).* · 0 through TURN \(relay\), 0% of link traffic/);

    const p0 = players[0]!;
    const me = await p0.evaluate(() => window.voxel.player());
    const [x, y, z] = [Math.floor(me.x) + 2, Math.floor(me.y) + 1, Math.floor(me.z) + 1];
    const res = await p0.evaluate(([x, y, z]) => window.voxel.setBlock(x!, y!, z!, 11), [x, y, z]);
    expect(res.confirmed).toBe(true);
    // Three nodes, three replicas: the hosting tab keeps every region's log (primary or backup).
    await host.waitForFunction((n) => Number(document.querySelector<HTMLElement>('.host-dashboard')!.dataset.entries) > n, joined.entries, { timeout: 10_000 });
    const after = await figures(host);
    console.log(`dashboard: links ${before.links} -> ${after.links}, rtts ${after.rtts}, edits kept ${joined.entries} -> ${after.entries}, bytes in ${before.bytesIn} -> ${after.bytesIn}, out ${before.bytesOut} -> ${after.bytesOut}, network ~${after.networkSize}, persisted ${after.persisted}`);
    expect(after.bytesIn).toBeGreaterThan(before.bytesIn);
    expect(after.bytesOut).toBeGreaterThan(before.bytesOut);
    expect(after.networkSize).toBe(3);
    expect(['true', 'false']).toContain(after.persisted); // asked, and the answer shown
    expect(await host.locator('dd[data-f="storage"]').innerText()).toMatch(/of .* allowed · your cap 500 MB · (persistent|not persistent)/);
    const rows = await host.locator('table.regions tbody tr[data-region]').count();
    expect(rows).toBeGreaterThan(0);

    // Names come with the players' positions, which go to the primary of the region they stand
    // in. Which regions the page is primary of follows the node ids (new in each profile),
    // so the player walks on a region at a time until it stands in one of them.
    await p0.evaluate(() => window.voxel.setName!('Xena Q'));
    const p0Id = (await p0.evaluate(() => window.voxel.net!.id())).slice(0, 6);
    const t0 = Date.now();
    let steps = 0;
    let region = '';
    for (; steps < 12; steps++) {
      const x = me.x + steps * 64;
      region = `${Math.floor(Math.floor(x / 16) / 4)},${Math.floor(Math.floor(me.z / 16) / 4)}`;
      await p0.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [x, me.y + 2, me.z]);
      await p0.waitForFunction((r) => window.voxel.hosting!.region(r).client?.ready === true, region, { timeout: 10_000, polling: 100 });
      if (await host.evaluate((r) => window.voxelHost!.hosting.region(r).host?.role === 'primary', region)) break;
    }
    const cell = host.locator(`table.regions tbody tr[data-region="${region}"] td.present`);
    // The name shows once the player's signed look reached the host with a position (up to
    // 5 s between looks on MOVE; a fresh-clone run did not see it within 6 s).
    await cell.filter({ hasText: `Xena Q (${p0Id})` }).waitFor({ timeout: 15_000 });
    console.log(`dashboard lists "Xena Q (${p0Id})" in ${region} after ${steps} regions walked, ${Date.now() - t0} ms`);
    // Listed only once the page's checker proved the look her node signed (play/player-looks.ts).
    expect((await host.evaluate(() => window.voxelHost!.hosting.stats()))['looks_shown']).toBeGreaterThan(0);
    // The charts have had their points for a while: the page samples every 2 s (app/host.ts
    // SAMPLE_MS), and it has been up since before the two round trips above (probed every 5 s).
    await host.setViewportSize({ width: 900, height: 1100 });
    await host.screenshot({ path: screenshotPath('hosting-dashboard.png'), fullPage: true });
  });
});
