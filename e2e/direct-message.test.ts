// Direct messages between real tabs over real WebRTC: three tabs of their own (three
// profiles) stand in one region; Ann writes `/msg Bea ...` and Bea's tab shows it apart from
// the chat, from Ann's node, as text; Cy, standing right there, sees nothing of it; Ann reads
// "delivered". Bea answers by the keyboard: Tab held, the row's number, the text, Enter.
// Then a hostile Node peer (e2e/hostile-peer.ts, real WebRTC through the real relay) sends
// Bea a message naming Ann's player under a signature of its own, passes on a message as if
// from Ann's node, and floods her with messages of its own: nothing of it is shown beyond
// the one node's rate, and each is counted by reason at Bea's tab.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hexToId } from '../src/core/node-id';
import type { Signer } from '../src/core/signer';
import { directMessageCodec, makeDirectMessage } from '../src/play/direct-message';
import { NODE_BURST } from '../src/play/direct-messages';
import { launchBrowser, openInFreshContext, PAGE_UP } from './browser';
import { hostileSeat, startHostilePeer, type HostilePeer, type HostileSeat } from './hostile-peer';
import { screenshotPath } from './screenshots';

let browser: Browser;
let seat: HostileSeat | undefined;
let atk: HostilePeer | undefined;
/** A retry plays in a world of its own (the first attempt's messages and peers stay out of it). */
let attempt = 0;
const world = () => `dm-e2e-${attempt}`;
const SEED = 'dm-e2e';
const url = (draw: boolean) => `${inject('baseUrl')}/?rd=2${draw ? '' : '&render=off'}#world=${world()}&seed=${SEED}`;
const pages: Page[] = [];

beforeAll(async () => {
  // The full browser: the headless shell never grants a click the pointer lock.
  browser = await launchBrowser([], 'full');
});

/** The hostile peer and the tabs of an attempt, gone before the next (and at the end). */
async function cleanUp(): Promise<void> {
  if (atk) await atk.stop();
  else if (seat) rmSync(seat.dataDir, { recursive: true, force: true });
  atk = seat = undefined;
  await Promise.all(pages.splice(0).map((p) => p.context().close().catch(() => {})));
}

afterAll(async () => {
  await cleanUp();
  await browser?.close();
});

const whoHas = (p: Page, names: string[]) => p.waitForFunction((n) => n.every((x) => window.voxel.who!().some((r) => r.name === x)), names, { timeout: 30_000, polling: 200 });

describe('direct messages', () => {
  it('reach only the player written to, show as such, and are delivered; forged, passed-on and flooding ones are dropped and counted', async () => {
    await cleanUp();
    attempt++;
    const WORLD = world();
    const opts = { until: PAGE_UP.hosting, ready: true } as const;
    const [ann, bea, cy] = await Promise.all([
      openInFreshContext(browser, url(false), { ...opts, label: 'Ann' }),
      openInFreshContext(browser, url(true), { ...opts, label: 'Bea', viewport: { width: 480, height: 300 } }),
      openInFreshContext(browser, url(false), { ...opts, label: 'Cy' }),
    ]);
    pages.push(ann, bea, cy);
    seat = await hostileSeat();
    for (const [p, n] of [[ann, 'Ann'], [bea, 'Bea'], [cy, 'Cy']] as const) expect(await p.evaluate((x) => window.voxel.setName!(x), n)).toBe(true);
    // All three in one region: Ann two blocks from Bea, Cy four.
    const spot = await bea.evaluate(() => window.voxel.player());
    await ann.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [spot.x + 2, spot.y + 1, spot.z]);
    await cy.evaluate(([x, y, z]) => window.voxel.teleport(x!, y!, z!), [spot.x + 4, spot.y + 1, spot.z]);
    await Promise.all([whoHas(ann, ['Bea', 'Cy']), whoHas(bea, ['Ann', 'Cy']), whoHas(cy, ['Ann', 'Bea'])]);
    const [annNode, beaNode] = await Promise.all([ann.evaluate(() => window.voxel.net!.id()), bea.evaluate(() => window.voxel.net!.id())]);

    // Ann writes to Bea by name, as typed into the chat field.
    const text = 'meet me at <b>spawn</b>';
    const t0 = Date.now();
    const sent = await ann.evaluate((t) => window.voxel.chat!.send(`/msg Bea ${t}`), text);
    expect(sent).toMatchObject({ dir: 'out', node: beaNode, name: 'Bea', text, status: 'sending' });
    await ann.waitForFunction(() => window.voxel.chat!.direct().at(-1)?.status !== 'sending', null, { timeout: 10_000, polling: 50 });
    expect((await ann.evaluate(() => window.voxel.chat!.direct())).at(-1)!.status).toBe('delivered');
    console.log(`delivered in ${Date.now() - t0} ms`);
    // Bea's tab shows it as a direct message from Ann's node, as text.
    expect(await bea.evaluate(() => window.voxel.chat!.direct())).toMatchObject([{ dir: 'in', node: annNode, name: 'Ann', text, status: 'delivered' }]);
    const row = bea.locator('.chat-lines > div.dm.in').last();
    expect(await row.textContent()).toBe(`fromAnn#${annNode.slice(0, 6)}: ${text}`);
    expect(await row.locator('b').count()).toBe(0);
    // Cy, beside them, has nothing of it: no message, no line, nothing dropped (it never came).
    expect(await cy.evaluate(() => window.voxel.chat!.direct())).toEqual([]);
    expect((await cy.evaluate(() => window.voxel.chat!.lines())).some((l) => l.text.includes('spawn'))).toBe(false);
    expect(await cy.evaluate(() => window.voxel.chat!.directStats().shown)).toBe(0);

    // Bea answers by the keyboard: Tab held, 1 (Ann is the nearest row), the text, Enter.
    await bea.mouse.click(8, 150); // takes the pointer: a click on the pause menu's backdrop
    await bea.waitForFunction(() => document.pointerLockElement !== null, null, { timeout: 10_000, polling: 50 });
    expect((await bea.evaluate(() => window.voxel.who!()))[0]!.name).toBe('Ann');
    const selectedSlot = () => bea.evaluate(() => [...document.querySelectorAll('.hotbar .slot')].findIndex((s) => s.classList.contains('selected')));
    await bea.evaluate(() => window.voxel.select(3));
    const slot = await selectedSlot();
    expect(slot).toBe(3);
    await bea.keyboard.down('Tab');
    await bea.locator('.who-overlay').waitFor({ state: 'visible', timeout: 1000 });
    // Bea's view for the docs: Ann's message in the chat, the who list numbered.
    await bea.screenshot({ path: screenshotPath('direct-message.png') });
    await bea.keyboard.press('Digit1');
    await bea.keyboard.up('Tab');
    const field = bea.locator('.chat-box input');
    await field.waitFor({ state: 'visible', timeout: 2000 });
    expect(await field.inputValue()).toBe(`/msg Ann#${annNode.slice(0, 6)} `);
    // The number picked a row, not a hotbar slot.
    expect(await selectedSlot()).toBe(slot);
    await bea.keyboard.type('on my way');
    await bea.keyboard.press('Enter');
    await ann.waitForFunction(() => window.voxel.chat!.direct().some((m) => m.dir === 'in' && m.text === 'on my way'), null, { timeout: 10_000, polling: 50 });
    await bea.locator('.chat-lines .dm.out .status.delivered').waitFor({ timeout: 10_000 });
    expect(await cy.evaluate(() => window.voxel.chat!.direct())).toEqual([]);

    // The hostile peer.
    atk = await startHostilePeer({ world: WORLD, seed: SEED, relay: `${inject('baseUrl').replace(/^http/, 'ws')}/relay`, extraKeys: 0, seat });
    const to = hexToId(beaNode);
    await atk.node.peer.dht.connect(to).catch(() => {});
    const channel = atk.node.peer.channels.open('player');
    const annPlayer = hexToId((await bea.evaluate(() => window.voxel.chat!.direct()))[0]!.player);
    const own = atk.node.net.player;
    const asAnn: Signer = { id: annPlayer, alg: own.alg, publicKey: own.publicKey, sign: (d) => own.sign(d) };
    const before = await bea.evaluate(() => window.voxel.chat!.directStats());
    // 1: a message naming Ann's player, signed by the attacker's key, from its own node.
    const forged = await makeDirectMessage(asAnn, WORLD, atk.id, to, 'Ann', 'send me your items', Date.now());
    expect(channel.send(to, directMessageCodec.encode(forged))).toBe(true);
    // 2: one that names Ann's node as the sender (as if passed on from it), sent from the attacker's.
    const passedOn = await makeDirectMessage(asAnn, WORLD, hexToId(annNode), to, 'Ann', 'passed on', Date.now());
    expect(channel.send(to, directMessageCodec.encode(passedOn))).toBe(true);
    // 3: a flood under its own key.
    const flood = 30;
    for (let i = 0; i < flood; i++) channel.send(to, directMessageCodec.encode(await makeDirectMessage(own, WORLD, atk.id, to, 'Mal', `spam ${i}`, Date.now() + i)));
    await bea.waitForFunction((b) => {
      const s = window.voxel.chat!.directStats();
      return s.dropped.signature > b.dropped.signature && s.dropped['wrong-node'] > b.dropped['wrong-node'] && s.dropped['node-rate'] > b.dropped['node-rate'];
    }, before, { timeout: 20_000, polling: 100 });
    const after = await bea.evaluate(() => window.voxel.chat!.directStats());
    console.log('Bea dropped', after.dropped);
    const got = await bea.evaluate(() => window.voxel.chat!.direct().filter((m) => m.dir === 'in'));
    expect(got.some((m) => m.name === 'Ann' && m.text !== text)).toBe(false);
    const spam = got.filter((m) => m.name === 'Mal').length;
    // The forged one spent a token of the attacker node's rate, the passed-on one none (dropped before).
    expect(spam).toBeLessThanOrEqual(NODE_BURST);
    // Each of the flood is shown or dropped by a rate (or, reordered on the way, as a replay).
    const delta = (k: keyof typeof after.dropped) => after.dropped[k] - before.dropped[k];
    expect(spam + delta('node-rate') + delta('replay')).toBe(flood);
    expect(await bea.locator('.chat-lines > div.dm.in', { hasText: 'send me your items' }).count()).toBe(0);
    expect(await cy.evaluate(() => window.voxel.chat!.direct())).toEqual([]);
    await cleanUp();
  });
});
