// What an invited friend sees, rendering on (software WebGL): player A copies an invite from
// the pause menu (its QR code decodes to the same link), friend B opens it in another
// browser context (storage of its own), and B's screen draws A's avatar and then A's new block (checked on B's
// pixels: each change alters the picture where nothing else moved). Writes two-players.png
// (e2e/screenshots.ts: docs/screenshots/ under `npm run screenshots`).
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import jsQR from 'jsqr';
import { contextAhead, disposeAll, openInProfile, PAGE_UP, READ_VIEW, SMALL_VIEW, type Profile } from './browser';
import { changedShare } from './pixel-diff';
import { screenshotPath } from './screenshots';
import { explainHosting } from './page-wait';

const BRICK = 11;
const profiles: Profile[] = [];

// After each attempt, not once at the end: a retry (vitest.e2e.config.ts) otherwise runs
// beside the failed attempt's two drawing browsers, still in the same world.
afterEach(async () => {
  await disposeAll(profiles.splice(0));
});

const PERMISSIONS = ['microphone', 'clipboard-read', 'clipboard-write'];

const tab = (profile: Promise<Profile>, url: string): Promise<Page> => openInProfile(profile, url, { until: PAGE_UP.voxel, ready: true });

/** Feet height on the ground at (x, z), as a tab sees it. */
const ground = (p: Page, x: number, z: number) => p.evaluate(([x, z]) => {
  for (let y = 200; y > 0; y--) { const id = window.voxel.getBlock(x!, y, z!); if (id !== 0 && id !== 5) return y + 1; }
  return -1;
}, [x, z]);

/** B's view, without HUD text or menu (they change on their own), after the avatars settled. */
async function view(b: Page): Promise<Buffer> {
  await b.waitForTimeout(700);
  return b.screenshot({ type: 'png' });
}

describe('an invited friend, rendering on', () => {
  it("sees the inviter's avatar and the inviter's new block", async () => {
    // Two contexts of the shared full browser (as e2e/chat's two drawing tabs), not two
    // browsers on profiles on disk: nothing here outlives a tab. B opens the link once A gives it.
    // The full browser: in the headless shell its two drawing tabs took each other for dead
    // (a claim storm, 66-94 claims a tab) and failed both attempts, twice in three runs.
    // A's pixels are never read: a small window (SwiftShader's cost grows with the pixels).
    // B's are read as shares of its picture: READ_VIEW.
    const [profileA, profileB] = [contextAhead(profiles, PERMISSIONS, 'full', SMALL_VIEW), contextAhead(profiles, PERMISSIONS, 'full', READ_VIEW)];
    const a = await tab(profileA, `${inject('baseUrl')}/?rd=3#world=render-invite-e2e&seed=render-invite`);
    // The pause menu's Copy-invite button, as a player would use it.
    await a.locator('#menu .copy-invite').click();
    await a.waitForFunction(() => (document.querySelector<HTMLInputElement>('.invite-link')?.value ?? '').includes('peer='));
    const link = await a.locator('.invite-link').inputValue();
    const qr = await a.evaluate(() => {
      const c = document.querySelector<HTMLCanvasElement>('.invite-qr')!;
      return { w: c.width, h: c.height, data: Array.from(c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data) };
    });
    expect(jsQR(Uint8ClampedArray.from(qr.data), qr.w, qr.h)?.data).toBe(link);
    expect(await a.locator('.invite-said').textContent()).toMatch(/Invite link copied|Copy the selected link/);

    // B's sky held at noon (a test knob, not in the link): at dawn the light moves between screenshots.
    const bUrl = new URL(link);
    bUrl.searchParams.set('daytime', '0.5');
    const b = await tab(profileB, bUrl.href);
    const aId = await a.evaluate(() => window.voxel.net!.id());
    // A wait on the shared world that runs out prints what both tabs saw (page-wait.ts).
    const explained = async <T>(what: Promise<T>): Promise<T> => {
      try {
        return await what;
      } catch (e) {
        await explainHosting([{ label: 'A (inviter)', page: a }, { label: 'B (friend)', page: b }]);
        throw e;
      }
    };
    await explained(b.waitForFunction((id) => window.voxel.net!.links().some((l) => l.id === id), aId, { timeout: 15_000 }));
    await b.addStyleTag({ content: '#hud, #menu, #crosshair { display: none !important; }' });

    // B stands at the spawn looking north (-z); A starts behind B, out of B's view.
    const s = await b.evaluate(() => window.voxel.player());
    const [sx, sz] = [Math.floor(s.x), Math.floor(s.z)];
    await b.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!).then(() => window.voxel.look(0, -0.15)), [sx + 0.5, await ground(b, sx, sz), sz + 0.5]);
    await a.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [sx + 0.5, await ground(a, sx, sz + 8), sz + 8.5]);
    await explained(b.waitForFunction(() => window.voxel.hosting!.players().length > 0, null, { timeout: 15_000 }));
    const empty = await view(b);
    expect(changedShare(empty, await view(b))).toBeLessThan(0.002); // a still scene stays still

    // A walks into view, 5 blocks in front of B.
    await a.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [sx + 0.5, await ground(a, sx, sz - 5), sz - 4.5]);
    // (20 s: beside the niced simulations on 2 cores, 10 s ran out in both attempts of a
    // CI-like run; why B saw A so late there is not known yet.)
    await explained(b.waitForFunction(([x, z]) => window.voxel.hosting!.players().some((p) => Math.abs(p.x - x!) < 1 && Math.abs(p.z - z!) < 1), [sx + 0.5, sz - 4.5], { timeout: 20_000 }));
    // The avatar is drawn a few frames later (the smoother renders a little behind, and a
    // loaded machine draws ~10 fps): B's screen is read again until it shows, at most 5 s.
    let withAvatar = await view(b);
    for (const until = Date.now() + 5000; changedShare(empty, withAvatar) <= 0.002 && Date.now() < until; ) {
      await b.waitForTimeout(250);
      withAvatar = await view(b);
    }
    const avatar = changedShare(empty, withAvatar);

    // A places a brick two blocks to its side, still in front of B.
    const [bx, bz] = [sx + 2, sz - 5];
    const by = await ground(a, bx, bz);
    const res = await a.evaluate(([x, y, z, id]) => window.voxel.setBlock(x!, y!, z!, id!), [bx, by, bz, BRICK]);
    await explained(b.waitForFunction(([x, y, z, id]) => window.voxel.getBlock(x!, y!, z!) === id, [bx, by, bz, BRICK], { timeout: 20_000 }));
    // B's world has the brick; its chunk is meshed again and drawn a few frames later: read
    // again until it shows, at most 5 s, as the avatar. (Read once 700 ms on, a run at load 15
    // saw 0.00% and failed.)
    let withBlock = await view(b);
    for (const until = Date.now() + 5000; changedShare(withAvatar, withBlock) <= 0.001 && Date.now() < until; ) {
      await b.waitForTimeout(250);
      withBlock = await view(b);
    }
    const block = changedShare(withAvatar, withBlock);
    console.log(`B's screen changed by ${(avatar * 100).toFixed(2)}% when A's avatar came into view, ${(block * 100).toFixed(2)}% when A's brick appeared (confirmed ${res.confirmed}); draw calls ${(await b.evaluate(() => window.voxel.stats().drawCalls))}`);
    expect(avatar).toBeGreaterThan(0.002);
    expect(block).toBeGreaterThan(0.001);

    await b.addStyleTag({ content: '#hud { display: block !important; }' });
    await b.screenshot({ path: screenshotPath('two-players.png') });
    // VP_EXPLAIN=1: each tab's hosting view even on a pass (claims, failed claims, roles), to compare runs.
    if (process.env.VP_EXPLAIN) await explainHosting([{ label: 'A (inviter)', page: a }, { label: 'B (friend)', page: b }]);
  });
});
