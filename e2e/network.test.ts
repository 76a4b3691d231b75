// Six real Chromium tabs form the DHT over WebRTC through the relay; they put/get values
// and route messages to every other tab; with the relay process killed they still route
// and open a new direct link signaled over the overlay; a crashed tab (renderer killed, no
// goodbye) is dropped by the others within the heartbeat timeout.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { crashPage, launchBrowser, newContext, openInFreshContext, openPage, PAGE_UP } from './browser';
import { startRelayProcess, type RelayProcess } from './relay-process';

const TABS = 6;
const RELAY_PORT = 8095;
/** Below the 5 a full mesh needs, so some pairs have no direct link; enough to cover the buckets. */
const LINKS = 4;
const HEARTBEAT_TIMEOUT_MS = 15_000;
// A crashed tab closes nothing: a linked tab drops it when the link has been silent for the
// heartbeat timeout (or WebRTC reports the link dead sooner); one that only knew it as a
// contact probes it
// (a routed PING) once it has been silent for timeout - probe timeout - check period, so
// the probe has failed and the contact is gone by the time it has been silent for the
// heartbeat timeout (src/dht/dht-node.ts, staleProbesPerHeartbeat). Slack: 4 s for the
// polling of six tabs and timers on the shared 2 cores.
const DROP_BOUND_MS = HEARTBEAT_TIMEOUT_MS;
const DROP_SLACK_MS = 4_000;

let browser: Browser;
let relay: RelayProcess;
/** The relay started again after its stop (by the crash test, so the tabs' backoff runs beside it). */
let relayRestart: Promise<RelayProcess> | undefined;
const contexts: BrowserContext[] = [];
const tabs: Page[] = [];
const ids: string[] = [];
/** Tabs whose renderer was crashed: not `isClosed()`, but nothing answers there any more. */
const crashed = new Set<Page>();
const gone = (p: Page) => p.isClosed() || crashed.has(p);

const tabUrl = () => `${inject('baseUrl')}/?render=off&rd=2&hosting=off&links=${LINKS}&relay=${encodeURIComponent(relay.url)}#world=net-e2e`;

async function openTab(i: number): Promise<Page> {
  // Two browser profiles, three tabs each: tabs of one profile must claim distinct node ids.
  const ctx = contexts[i % 2]!;
  return openPage(ctx, tabUrl(), { label: `tab ${i}`, until: PAGE_UP.net });
}

const net = <T>(p: Page, fn: (net: NonNullable<typeof window.voxel.net>, arg: unknown) => T | Promise<T>, arg?: unknown): Promise<T> =>
  p.evaluate(([f, a]) => new Function('net', 'arg', `return (${f})(net, arg)`)(window.voxel.net, a), [fn.toString(), arg] as const) as Promise<T>;

async function everyTab(check: (p: Page, i: number) => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await Promise.all(tabs.map((p, i) => (gone(p) ? true : check(p, i))));
    if (ok.every(Boolean)) return;
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what} (${ok.map((o) => (o ? 'y' : 'n')).join('')})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  relay = await startRelayProcess(RELAY_PORT);
  browser = await launchBrowser();
  contexts.push(await newContext(browser), await newContext(browser));
  // All six at once (not one by one): tabs of one profile then claim
  // their node ids at the same moment, which the id pool's Web Locks must keep distinct.
  tabs.push(...(await Promise.all(Array.from({ length: TABS }, (_, i) => openTab(i)))));
  ids.push(...(await Promise.all(tabs.map((p) => net(p, (n) => n.id())))));
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await (await relayRestart?.catch(() => undefined))?.stop();
});

describe('peer network across six Chromium tabs', () => {
  it('every tab has its own node id and joins with at least one live link', async () => {
    expect(new Set(ids).size).toBe(TABS);
    await everyTab(async (p) => (await net(p, (n) => n.links().length)) > 0, 20_000, 'a live link in every tab');
    const linkCounts = await Promise.all(tabs.map((p) => net(p, (n) => n.links().length)));
    expect(Math.max(...linkCounts)).toBeLessThanOrEqual(TABS - 1);
  });

  it('puts and gets values across tabs', async () => {
    for (let i = 0; i < TABS; i++) {
      const r = await net(tabs[i]!, (n, a) => n.put('test', `key-${a}`, `value-${a}`), i);
      expect(r.stored).toBeGreaterThan(0);
    }
    for (let i = 0; i < TABS; i++) {
      for (let j = 0; j < TABS; j++) {
        expect(await net(tabs[i]!, (n, a) => n.get('test', `key-${a}`), j)).toBe(`value-${j}`);
      }
    }
    expect(await net(tabs[0]!, (n) => n.get('test', 'never-stored'))).toBeUndefined();
  });

  async function routeAll(tag: string): Promise<void> {
    for (let i = 0; i < TABS; i++) {
      for (let j = 0; j < TABS; j++) {
        if (i === j) continue;
        expect(await net(tabs[i]!, (n, a) => { const [to, m] = a as [string, string]; return n.send(to, m); }, [ids[j], `${tag} ${i}->${j}`])).toBe(true);
      }
    }
    await everyTab(async (p, j) => {
      const got = await net(p, (n) => n.received().map((r) => r.msg));
      return tabs.every((_, i) => i === j || got.includes(`${tag} ${i}->${j}`));
    }, 15_000, `${tag}: every routed message delivered`);
  }

  it('routes a message from every tab to every other tab', async () => {
    await routeAll('with-relay');
  });

  it('keeps routing with the relay process stopped, and opens a new link over the overlay', async () => {
    await relay.stop();
    await routeAll('no-relay');
    // A pair with no direct link (the budget guarantees one exists among 6 tabs).
    let pair: [number, number] | undefined;
    for (let i = 0; i < TABS && !pair; i++) {
      const linked = await net(tabs[i]!, (n) => n.links().map((l) => l.id));
      const j = ids.findIndex((id, k) => k !== i && !linked.includes(id));
      if (j >= 0) pair = [i, j];
    }
    expect(pair).toBeDefined();
    const [a, b] = pair!;
    await net(tabs[a]!, (n, to) => n.connect(to as string), ids[b]);
    expect(await net(tabs[a]!, (n) => n.links().map((l) => l.id))).toContain(ids[b]);
    await everyTab(async (p, k) => k !== b || (await net(p, (n) => n.links().map((l) => l.id))).includes(ids[a]!), 5000, 'the new link seen on both sides');
  });

  it('drops a crashed tab from the other tables within the heartbeat timeout', async () => {
    const victim = TABS - 1;
    const goneId = ids[victim]!;
    await crashPage(tabs[victim]!);
    crashed.add(tabs[victim]!);
    const t0 = Date.now();
    // The relay comes back while the others wait out the heartbeat timeout (the relay tells
    // nobody of a departure, so it has no part in the drop; the crashed tab never registers
    // there again): the tabs' reconnect backoff, counted from the relay's stop, then runs
    // beside this wait instead of after it (the next test waited ~19 s for it).
    relayRestart ??= startRelayProcess(RELAY_PORT);
    relayRestart.catch(() => {}); // a failed start fails the next test, which awaits it
    await everyTab(async (p) => {
      const [links, contacts] = await Promise.all([net(p, (n) => n.links().map((l) => l.id)), net(p, (n) => n.contacts())]);
      return !links.includes(goneId) && !contacts.includes(goneId);
    }, DROP_BOUND_MS + DROP_SLACK_MS, 'the crashed tab dropped everywhere');
    console.log(`crashed tab dropped from every table after ${Date.now() - t0} ms`);
  });

  it('re-registers at a restarted relay, where a new tab finds the others and routes to them', async () => {
    relay = await (relayRestart ??= startRelayProcess(RELAY_PORT)); // same port, same URL: a relay restart
    // The tabs retry with backoff (up to 30 s, +-25%) while the relay was gone.
    const live = tabs.filter((p) => !gone(p));
    await everyTab(async (p) => (await net(p, (n) => n.relay())).online, 45_000, 'every tab back at the relay');
    const reconnects = await Promise.all(live.map((p) => net(p, async (n) => (await n.relay()).reconnects)));
    expect(Math.min(...reconnects)).toBeGreaterThanOrEqual(1);
    // A tab of a new profile, which knows nobody: it joins through the restarted relay.
    const page = await openInFreshContext(browser, tabUrl(), { label: 'new tab', until: () => (window.voxel?.net?.links().length ?? 0) > 0 });
    contexts.push(page.context());
    const liveIds = ids.filter((_, i) => !gone(tabs[i]!));
    for (const to of liveIds) expect(await net(page, (n, a) => n.send(a as string, 'hello from the new tab'), to)).toBe(true);
    try {
      await everyTab(async (p) => (await net(p, (n) => n.received().map((r) => r.msg))).includes('hello from the new tab'), 15_000, 'the new tab\'s messages delivered');
    } catch (e) {
      // What each node did with routed frames: which hop dropped the message, and why.
      const all = [...tabs.filter((p) => !gone(p)), page];
      for (const p of all) {
        const [id, links, stats] = await Promise.all([net(p, (n) => n.id()), net(p, (n) => n.links().map((l) => l.id.slice(0, 8))), net(p, (n) => n.stats())]);
        const routed = Object.fromEntries(Object.entries(stats).filter(([k, v]) => v > 0 && /^(routed|dropped)/.test(k)));
        console.error(`${p === page ? 'new' : `tab ${tabs.indexOf(p)}`} ${id.slice(0, 8)} links ${links.join(',')} ${JSON.stringify(routed)}`);
      }
      throw e;
    }
  });
});
