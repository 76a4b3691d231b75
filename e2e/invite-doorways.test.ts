// Invites and doorways in the built app, real Chromium and real WebRTC:
// - an invite carries the inviter and its live contacts: the inviter crashed, the newcomer
//   joins a contact;
// - an invite names every doorway of the inviter (relay and PeerJS broker): with the relay
//   process killed, the newcomer still joins through the broker;
// - PeerJS as the only doorway (relay=none): two tabs find each other through a local
//   `peer` server, no relay involved.
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PeerServer } from 'peer';
import { crashPage, launchBrowser, openInFreshContext, PAGE_UP } from './browser';
import { startRelayProcess, type RelayProcess } from './relay-process';

const PEERJS_PORT = 9013;
const PEERJS_URL = `http://127.0.0.1:${PEERJS_PORT}/pj`;
let browser: Browser;
let relay: RelayProcess;
const contexts: BrowserContext[] = [];
let peerServer: { close(cb: () => void): void; closeAllConnections?: () => void } | undefined;

beforeAll(async () => {
  browser = await launchBrowser();
  relay = await startRelayProcess(8083);
  await new Promise<void>((resolve) => {
    PeerServer({ port: PEERJS_PORT, host: '127.0.0.1', path: '/pj', allow_discovery: true }, (s) => {
      peerServer = s;
      resolve();
    });
  });
});

// Doorways list every peer they know, of any world: each test starts with only its own tabs.
beforeEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  peerServer?.closeAllConnections?.();
  await new Promise<void>((r) => (peerServer ? peerServer.close(() => r()) : r()));
});


/** A tab in a context of its own (its own identity), once it has joined. */
async function open(href: string): Promise<Page> {
  const page = await openInFreshContext(browser, href, { until: PAGE_UP.net });
  contexts.push(page.context());
  return page;
}

const base = (q: string, world: string) => `${inject('baseUrl')}/?render=off&rd=2&hosting=off&${q}#world=${world}`;
const id = (p: Page) => p.evaluate(() => window.voxel.net!.id());
const links = (p: Page) => p.evaluate(() => window.voxel.net!.links().map((l) => l.id));
const linkedToAny = (p: Page, others: string[], timeout = 15_000) =>
  p.waitForFunction((o) => window.voxel.net!.links().some((l) => o.includes(l.id)), others, { timeout, polling: 50 });
/** A fresh invite from a tab, once it lists `contacts` live contacts. */
async function inviteFrom(p: Page, contacts: number): Promise<string> {
  await p.waitForFunction((n) => window.voxel.net!.links().length >= n, contacts, { timeout: 15_000 });
  return p.evaluate(() => window.voxel.invite!());
}
/** ms from navigation to the first live link, in the page's own clock. */
const firstLinkMs = (p: Page) => p.evaluate(() => performance.getEntriesByName('vp:first-link')[0]?.startTime ?? NaN);

describe('invites and doorways', () => {
  it("an invite whose inviter crashed joins one of the inviter's contacts", async () => {
    const q = `relay=${encodeURIComponent(relay.url)}`;
    const a = await open(base(q, 'invite-e2e-1'));
    const b = await open(base(q, 'invite-e2e-1'));
    const invite = await inviteFrom(a, 1);
    const f = new URLSearchParams(new URL(invite).hash.slice(1));
    expect(f.get('peer')).toBe(await id(a));
    expect(f.get('peers')?.split(',')).toContain(await id(b));
    await crashPage(a);
    const c = await open(invite);
    await linkedToAny(c, [await id(b)]);
    console.log(`invitee of a crashed inviter linked to its contact ${Math.round(await firstLinkMs(c))} ms after navigation`);
    expect(await c.evaluate(() => window.voxel.net!.status())).toBe('online');
    expect(await c.evaluate(() => window.voxel.startProblem?.())).toBeUndefined();
  });

  it("with the invite's relay killed, the newcomer joins the inviter and its contacts through the PeerJS broker", async () => {
    const q = `relay=${encodeURIComponent(relay.url)}&peerjs=${encodeURIComponent(PEERJS_URL)}`;
    const a = await open(base(q, 'invite-e2e-2'));
    const b = await open(base(q, 'invite-e2e-2'));
    const invite = await inviteFrom(a, 1);
    expect(new URLSearchParams(new URL(invite).hash.slice(1)).get('peerjs')).toBe(PEERJS_URL);
    await relay.stop(); // the relay process dies: the invite's relay is unreachable now
    const c = await open(invite);
    const ab = [await id(a), await id(b)];
    await linkedToAny(c, ab);
    console.log(`with the relay dead, invitee linked through the PeerJS broker ${Math.round(await firstLinkMs(c))} ms after navigation (links: ${(await links(c)).length})`);
    expect(await c.evaluate(() => window.voxel.net!.status())).toBe('online');
  });

  it('PeerJS alone (relay=none): two tabs of the built app find each other through a local peer server', async () => {
    const q = `peerjs=${encodeURIComponent(PEERJS_URL)}`;
    const a = await open(`${base(q, 'peerjs-e2e')}&relay=none`);
    expect(await a.evaluate(() => window.voxel.net!.status())).toBe('alone');
    const b = await open(`${base(q, 'peerjs-e2e')}&relay=none`);
    await linkedToAny(b, [await id(a)]);
    await a.waitForFunction(() => window.voxel.net!.status() === 'online', null, { timeout: 5000 });
    expect(await b.evaluate(() => window.voxel.net!.relay())).toMatchObject({ online: true });
  });
});
