// The start screen tells a player what went wrong, in words, within 5 s of opening the
// page: the relay is unreachable, WebRTC is blocked (a browser that gathers no ICE
// candidate, or has no RTCPeerConnection at all), no connection gets through (candidates
// but none reachable, as behind a firewall dropping UDP: the player is offered a TURN server
// of their own), the invite is broken, or it was altered, or the browser cannot draw (no
// WebGL2, or WebGL2 that will not start). It
// offers Retry and "play here alone for now", and the game goes on underneath; the name and
// colour chosen on it meanwhile are the game's once it runs. Writes
// start-screen.png (e2e/screenshots.ts: docs/screenshots/ under `npm run screenshots`).
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, crashPage, HEADLESS_SHELL, launchBrowser, newContext, openInFreshContext, READ_VIEW, withTestFps } from './browser';
import { seedReturningPlayer } from './returning-player';
import { startRelayProcess, type RelayProcess } from './relay-process';
import { screenshotPath } from './screenshots';

const EXPLAINED_WITHIN_MS = 5000;
/**
 * What the node id's proof of work takes on a machine that is not busy (0.7-1.2 s measured;
 * it is random). Its work beyond this is not counted against the 5 s: a run with the
 * machine loaded took 4.9 s for the id alone, and the screen cannot say anything before it.
 */
const ID_WORK_MS = 1000;
let browser: Browser;
let relay: RelayProcess;

beforeAll(async () => {
  browser = await launchBrowser();
  relay = await startRelayProcess(8085);
});

// Each test's tabs are closed after it: left open, earlier tests' peers kept hosting and
// made the last test 4 times slower (18.7 s against 4.2 s alone). All but the player online
// that the connection cases share (someoneOnline).
afterEach(async () => {
  await Promise.all(browser.contexts().filter((c) => c !== online?.context()).map((c) => c.close()));
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
});

/** A blank tab of a new player (a fresh context: its node id and player pass are minted when the game opens). */
const page = (b: Browser = browser, viewport = { width: 960, height: 600 }): Promise<Page> => openInFreshContext(b, undefined, { viewport });

/**
 * A blank tab of a returning player (identities minted ahead, e2e/returning-player.ts), for
 * the tabs whose identity is not what a case is about: the network problems and the
 * inviters. A new player's proof of work is random: 1-2 CPU-s as a rule, and a node id took
 * 9.7 s in one run at load 12, which the 5 s bound excuses but the file's time does not.
 * The first start (an unreachable relay), the browsers that cannot draw and the invitees
 * stay new players.
 */
async function returningPage(b: Browser = browser, opts: { permissions?: string[] } = {}): Promise<Page> {
  const ctx = await newContext(b, { viewport: { width: 960, height: 600 }, ...opts });
  const p = await ctx.newPage();
  await seedReturningPlayer(ctx, new URL(inject('baseUrl')).origin, p);
  return p;
}

/** The problem the start screen shows and when (ms after navigation; idMs: when the node id was minted, NaN if not), once it shows one. */
async function explained(p: Page): Promise<{ kind: string; ms: number; idMs: number; title: string; buttons: string[] }> {
  await p.waitForSelector('#loading .problem:not([hidden])', { timeout: 15_000 });
  return p.evaluate(() => {
    const panel = document.querySelector<HTMLElement>('#loading .problem')!;
    return {
      kind: panel.dataset.kind!,
      ms: performance.getEntriesByName('vp:start-explained')[0]?.startTime ?? NaN,
      idMs: performance.getEntriesByName('vp:identity')[0]?.startTime ?? NaN,
      title: panel.querySelector('h2')!.textContent!,
      buttons: [...panel.querySelectorAll('button')].map((b) => b.textContent!),
    };
  });
}

/** Said within 5 s of navigation, the id's proof of work beyond its usual second apart. */
function saidInTime(e: { kind: string; ms: number; idMs: number }): void {
  const slowId = Number.isFinite(e.idMs) ? Math.max(0, e.idMs - ID_WORK_MS) : 0;
  expect(e.ms - slowId, `${e.kind} explained ${Math.round(e.ms)} ms after navigation, node id minted at ${Math.round(e.idMs)} ms`).toBeLessThan(EXPLAINED_WITHIN_MS);
}

const url = (q: string, frag: string) => `${inject('baseUrl')}/?rd=2&${q}#${frag}`;
/** A page of world `frag` through the test's relay, not drawing. */
const inWorld = (frag: string) => url(`render=off&relay=${encodeURIComponent(relay.url)}`, frag);

/**
 * As behind a firewall that drops UDP: every candidate, ours and theirs, names an address
 * nothing answers from (TEST-NET-1, no route in the test's namespace); gathering works.
 * An init script (runs in the page).
 */
function candidatesUnreachable(): void {
  const proto = RTCPeerConnection.prototype;
  const unreachable = (c: string) => c.replace(/^(candidate:\S+ \d+ \S+ \d+ )(\S+)/, '$1192.0.2.1');
  const add = proto.addIceCandidate as (c?: RTCIceCandidateInit | null) => Promise<void>;
  proto.addIceCandidate = function (this: RTCPeerConnection, c?: RTCIceCandidateInit | null) {
    return add.call(this, c?.candidate ? { ...c, candidate: unreachable(c.candidate) } : c);
  } as typeof proto.addIceCandidate;
  const own = Object.getOwnPropertyDescriptor(proto, 'onicecandidate')!;
  Object.defineProperty(proto, 'onicecandidate', {
    ...own,
    set(this: RTCPeerConnection, fn: ((e: { candidate: RTCIceCandidateInit | null }) => void) | null) {
      own.set!.call(this, fn && ((e: RTCPeerConnectionIceEvent) => fn({ candidate: e.candidate && { ...e.candidate.toJSON(), candidate: unreachable(e.candidate.candidate) } })));
    },
  });
}

/** DevTools CPU throttling rate of the busy-machine case: its first ICE candidate came after 2 s (as in the lab under load). */
const BUSY_RATE = 20;

/** The world of the cases whose newcomer has someone online to dial and cannot link to them. */
const ONLINE = 'world=start-e2e-online';
/** The player online in ONLINE, once a case asked for one. */
let online: Page | undefined;

/**
 * Another player online in ONLINE, so a newcomer has someone to dial: one for all the cases
 * that need one (opened by the first, kept by afterEach). Each of them is about a newcomer
 * that cannot link (no candidate, none reachable, no RTCPeerConnection, relay-only without
 * TURN), so none changes what the next finds: the player alone, its dials from them failed.
 * A tab of its own per case, each in a world of its own, cost a page's start and join each
 * time. Returns ONLINE.
 */
async function someoneOnline(): Promise<string> {
  // A returning player (e2e/returning-player.ts): the newcomer is what these tests time, not this tab's proof of work.
  online ??= await openInFreshContext(browser, inWorld(ONLINE), { viewport: { width: 960, height: 600 }, until: () => window.voxel?.net !== undefined });
  return ONLINE;
}

describe('the start screen explains a failed start', () => {
  it('an unreachable relay: said within 5 s, with Retry and play alone; playing alone lifts the screen', async () => {
    // It draws (the screenshot shows the world behind the screen), at the tests' frame rate
    // and in a smaller window: uncapped at 960 x 600 it drew as many frames as it could, all
    // the CPU SwiftShader got for the whole case.
    const p = await page(browser, READ_VIEW);
    await p.goto(withTestFps(url('relay=ws://127.0.0.1:8079/relay', 'world=start-e2e')));
    const e = await explained(p);
    console.log(`unreachable relay explained ${Math.round(e.ms)} ms after navigation (node id minted at ${Math.round(e.idMs)} ms): "${e.title}"`);
    expect(e.kind).toBe('doorway-unreachable');
    saidInTime(e);
    expect(e.buttons).toEqual(['Retry', 'Play here alone for now']);
    await p.waitForFunction(() => typeof window.voxel === 'object', null, { timeout: 30_000 });
    await p.evaluate(() => window.voxel.ready());
    expect(await p.locator('#loading').isVisible()).toBe(true); // the choice is the player's
    await p.locator('#loading .stages').waitFor();
    expect(await p.locator('#loading li[data-stage="doorway"]').getAttribute('data-state')).toBe('failed');
    // Name and colour chosen on the start screen, while it waits: the game's settings have them once it runs.
    await p.locator('#start-name').fill('  Ann   Lee ');
    await p.locator('#start-name').press('Enter');
    await p.locator('#start-colour').selectOption('9');
    expect(await p.locator('#start-name').inputValue()).toBe('Ann Lee');
    await p.screenshot({ path: screenshotPath('start-screen.png') });
    await p.getByRole('button', { name: 'Play here alone for now' }).click();
    await p.locator('#loading').waitFor({ state: 'hidden', timeout: 2000 });
    expect(await p.evaluate(() => window.voxel.net!.status())).toBe('alone');
    expect([await p.locator('#set-name').inputValue(), await p.locator('#set-colour').inputValue()]).toEqual(['Ann Lee', '9']);
  });

  it('WebRTC blocked (a browser that gathers no ICE candidate) while others are online: said within 5 s', async () => {
    const world = await someoneOnline();
    // No media permission: in a loopback-only namespace Chromium then gathers no candidate at
    // all. The headless shell grants it only to a context that asks (its fake media UI grants
    // nothing), so a context of the shared shell without it is such a browser; the full
    // browser's fake UI grants it to every page, so there one is launched without that flag
    // (a launch and close cost ~3.8 CPU-s: e2e/browser.ts launchBrowser).
    const blocked = CHROMIUM === HEADLESS_SHELL ? undefined : await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS.filter((a) => a !== '--use-fake-ui-for-media-stream') });
    try {
      const p = await returningPage(blocked ?? browser, { permissions: [] });
      await p.goto(inWorld(world));
      const e = await explained(p);
      // The id's work (~1 s, random) comes first; the start-up ICE probe (net/ice-probe.ts) has answered by then.
      console.log(`WebRTC blocked explained ${Math.round(e.ms)} ms after navigation (node id minted at ${Math.round(e.idMs)} ms): "${e.title}"`);
      expect(e.kind).toBe('webrtc-blocked');
      saidInTime(e);
      // Said for what it is (the dial's own reason), not only as a join that ran out of time.
      expect(await p.locator('#loading .problem').textContent()).toContain('no ICE candidate gathered');
    } finally {
      await blocked?.close();
    }
  });

  it('ICE that never connects (candidates gathered, none reachable) with no TURN: said within 5 s, with a Network form whose TURN server the next start uses', async () => {
    const world = await someoneOnline();
    const p = await returningPage();
    await p.addInitScript(candidatesUnreachable);
    await p.goto(inWorld(world));
    const e = await explained(p);
    console.log(`no direct path explained ${Math.round(e.ms)} ms after navigation (node id minted at ${Math.round(e.idMs)} ms): "${e.title}"`);
    expect(e.kind).toBe('no-direct-path');
    saidInTime(e);
    expect(await p.locator('#loading .problem .why').textContent()).toContain('Add a TURN server under "Network"');
    await p.screenshot({ path: screenshotPath('start-screen-no-path.png') });
    // The form is right there: a bad value is refused in words, a good one kept.
    await p.locator('#loading .ice-settings input[name=urls]').fill('turn:127.0.0.1:9');
    await p.locator('#loading').getByRole('button', { name: 'Save network settings' }).click();
    expect(await p.locator('#loading .ice-settings .said').textContent()).toMatch(/Not saved: .*needs username and credential/);
    await p.locator('#loading .ice-settings input[name=username]').fill('ann');
    await p.locator('#loading .ice-settings input[name=credential]').fill('pw');
    await p.locator('#loading').getByRole('button', { name: 'Save network settings' }).click();
    expect(await p.locator('#loading .ice-settings .said').textContent()).toContain('Saved');
    // Retry: the next start dials with that TURN server (it answers nothing here), and says so.
    await p.getByRole('button', { name: 'Retry' }).click();
    const again = await explained(p);
    console.log(`after Retry with a TURN server: ${again.kind}, ${Math.round(again.ms)} ms after navigation`);
    // The same id dials again, while the player online still holds the first start's
    // half-open connections from it (this tab kept dialling it, alone: at most 2 per id, each
    // up to 8 s), so the new offer may be refused there and go unanswered: then that is what
    // is said (no path was tried yet), not that TURN failed.
    // (The Network form is shown for a path that failed, not for an unanswered offer: the server kept is read from storage then.)
    if (again.kind === 'no-answer') {
      expect(await p.locator('#loading .problem').textContent()).toMatch(/offers unanswered/);
      expect(await p.evaluate(() => localStorage.getItem('voxel-populi/ice-servers'))).toContain('turn:127.0.0.1:9');
    } else {
      expect(again.kind).toBe('turn-failed');
      expect(await p.locator('#loading .ice-settings input[name=urls]').inputValue()).toBe('turn:127.0.0.1:9');
    }
  });

  it('the same on a busy machine (renderer CPU throttled 20 times): no direct path, not "WebRTC blocked"', async () => {
    const world = await someoneOnline();
    const ctx = await newContext(browser, { viewport: { width: 960, height: 600 } });
    const p = await ctx.newPage();
    await seedReturningPlayer(ctx, new URL(inject('baseUrl')).origin, p); // a returning player: no proof of work to wait for
    await p.addInitScript(candidatesUnreachable);
    // DevTools CPU throttling of this tab's renderer from navigation: its first ICE candidate
    // then comes seconds late. (Throttled only from the join's start, the old code said the
    // right words: the boot's own work must compete with the probe.)
    const cdp = await ctx.newCDPSession(p);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: BUSY_RATE });
    await p.goto(inWorld(world));
    const e = await explained(p);
    // What the screen says once the first candidate came, if it said something else before.
    const settled = await p.waitForFunction(() => document.querySelector<HTMLElement>('#loading .problem')?.dataset.kind !== 'webrtc-blocked', null, { timeout: 15_000, polling: 100 }).then(() => true, () => false);
    const last = await p.evaluate(() => ({ kind: document.querySelector<HTMLElement>('#loading .problem')!.dataset.kind!, ms: performance.getEntriesByName('vp:start-explained').at(-1)!.startTime, said: performance.getEntriesByName('vp:start-explained').map((m) => (m as PerformanceMark).detail as string) }));
    // Read: the throttle off. DevTools throttles by making the renderer's main thread spin in
    // a signal handler (Chromium's ThreadCPUThrottler), a core of CPU while it lasts.
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    console.log(`busy machine (CPU ${BUSY_RATE}x): ${last.said.join(' then ')}, first ${Math.round(e.ms)} ms, last ${Math.round(last.ms)} ms after navigation (identity at ${Math.round(e.idMs)} ms)`);
    expect(settled, `still "WebRTC blocked" 15 s after it was said (${last.said.join(' then ')})`).toBe(true);
    expect(last.kind).toBe('no-direct-path');
    expect(last.ms - e.idMs, 'said within 5 s of the identity').toBeLessThan(EXPLAINED_WITHIN_MS);
  });

  it('no RTCPeerConnection at all (removed by an extension or a policy): said within 5 s', async () => {
    const world = await someoneOnline();
    const p = await returningPage();
    await p.addInitScript(() => {
      delete (window as { RTCPeerConnection?: unknown }).RTCPeerConnection;
      delete (window as { webkitRTCPeerConnection?: unknown }).webkitRTCPeerConnection;
    });
    await p.goto(inWorld(world));
    const e = await explained(p);
    console.log(`no RTCPeerConnection explained ${Math.round(e.ms)} ms after navigation: "${e.title}"`);
    expect(e.kind).toBe('webrtc-unsupported');
    saidInTime(e);
  });

  it('a browser that cannot draw: without WebGL2, or with WebGL2 that will not start, each said with what to do', async () => {
    for (const [kind, strip] of [['webgl2-unsupported', true], ['webgl2-unavailable', false]] as const) {
      const p = await page();
      await p.addInitScript((strip) => {
        if (strip) {
          delete (window as { WebGL2RenderingContext?: unknown }).WebGL2RenderingContext;
          return;
        }
        // The API is there but no context comes: as with hardware acceleration turned off.
        const get = HTMLCanvasElement.prototype.getContext as (this: HTMLCanvasElement, t: string, o?: unknown) => unknown;
        (HTMLCanvasElement.prototype as { getContext: unknown }).getContext = function (this: HTMLCanvasElement, t: string, o?: unknown) {
          return t === 'webgl2' ? null : get.call(this, t, o);
        };
      }, strip);
      // Drawing, no network: nothing but the drawing can fail.
      await p.goto(url('net=off', 'world=start-e2e-webgl'));
      const e = await explained(p);
      const text = await p.locator('#loading .problem').innerText();
      console.log(`${kind}: "${e.title}"`);
      expect(e.kind).toBe(kind);
      for (const words of ['WebGL2', 'Chrome', 'Firefox', 'hardware acceleration']) expect(text).toContain(words);
      expect(e.buttons).toContain('Retry');
    }
  });

  it('relay-only (?ice=relay) with no TURN server: said for what it is, with the Network form', async () => {
    const world = await someoneOnline();
    const p = await returningPage();
    await p.goto(url(`render=off&ice=relay&relay=${encodeURIComponent(relay.url)}`, world));
    const e = await explained(p);
    console.log(`relay-only without TURN explained ${Math.round(e.ms)} ms after navigation: "${e.title}"`);
    expect(e.kind).toBe('relay-needs-turn');
    saidInTime(e);
    expect(await p.locator('#loading .ice-settings').count()).toBe(1);
  });

  it("an invite whose inviter left, with nobody else in the world: 'your friend has left', within 5 s", async () => {
    const own = await startRelayProcess(8082); // a relay nobody else uses: the world is empty but for the inviter
    try {
      const q = `render=off&relay=${encodeURIComponent(own.url)}`;
      const a = await returningPage();
      await a.goto(url(q, 'start-e2e-5'));
      await a.waitForFunction(() => window.voxel?.invite !== undefined, null, { timeout: 30_000 });
      const invite = await a.evaluate(() => window.voxel.invite!());
      await crashPage(a);
      await new Promise((r) => setTimeout(r, 500)); // the relay drops the inviter's socket
      const b = await page();
      await b.goto(invite);
      const e = await explained(b);
      console.log(`inviter gone explained ${Math.round(e.ms)} ms after navigation (node id minted at ${Math.round(e.idMs)} ms): "${e.title}"`);
      expect(e.kind).toBe('inviter-gone');
      saidInTime(e);
      expect(e.buttons).toEqual(['Retry', 'Open the world without the invite', 'Play here alone for now']);
    } finally {
      await own.stop();
    }
  });

  it('a broken invite: said at once, and the world opens without it', async () => {
    const p = await page();
    await p.goto(url('render=off', 'world=start-e2e-3&peer=12345'));
    const e = await explained(p);
    expect(e.kind).toBe('invite-malformed');
    saidInTime(e);
    expect(e.buttons).toContain('Open the world without the invite');
    expect(await p.locator('#loading .problem details code').textContent()).toContain('40 hex digits');
  });

  it('an altered invite (another seed) is refused as changed, and the world opens without it', async () => {
    const a = await returningPage();
    await a.goto(url('render=off', 'world=start-e2e-4'));
    await a.waitForFunction(() => window.voxel?.invite !== undefined, null, { timeout: 30_000 });
    const link = new URL(await a.evaluate(() => window.voxel.invite!()));
    const f = new URLSearchParams(link.hash.slice(1));
    expect(f.get('sig')).toBeTruthy();
    f.set('seed', 'not-what-was-sent');
    link.hash = f.toString();
    const b = await page();
    await b.goto(link.toString().replace('?', '?render=off&'));
    const e = await explained(b);
    expect(e.kind).toBe('invite-tampered');
    expect(e.title).toBe('This invite link was changed');
    await b.waitForFunction(() => typeof window.voxel === 'object', null, { timeout: 30_000 });
    await b.evaluate(() => window.voxel.ready()); // the world opens without the invite
  });
});
