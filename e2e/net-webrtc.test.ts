// Two real Chromium pages connect with the WebRTC transport (simple-peer, 16 KiB frames,
// signed identity handshake), signaled through (1) our relay and (2) a PeerJS broker,
// all on loopback: run inside scripts/netns.sh.
// The page is e2e/pages/net.html + net.ts, served by vite's dev server started here on a
// fixed port (test-only code stays out of the production build); the relay is the real
// one from signaling/serve.ts, the PeerJS broker the `peer` package.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { PeerServer } from 'peer';
import { startServer, type RunningServer } from '../signaling/serve';
import { launchBrowser, openInFreshContext } from './browser';
import type { BootstrapConfig } from './pages/net';

const RELAY_PORT = 8091;
const PAGE_PORT = 8092;
const PEERJS_PORT = 8093;

let relay: RunningServer;
let vite: ViteDevServer;
let peerServer: Server;
let browser: Browser;
const pages: Page[] = [];

async function openPage(cfg: BootstrapConfig): Promise<{ page: Page; id: string; alg: string }> {
  const page = await openInFreshContext(browser, `http://127.0.0.1:${PAGE_PORT}/e2e/pages/net.html`, { until: () => typeof window.vpNet === 'object', timeoutMs: 60_000 });
  pages.push(page);
  const me = await page.evaluate((c) => window.vpNet.start(c), cfg);
  return { page, ...me };
}

async function waitFor<T>(page: Page, fn: () => T | Promise<T>, ok: (t: T) => boolean, ms = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await page.evaluate(fn);
    if (ok(v)) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  relay = await startServer({ port: RELAY_PORT, host: '127.0.0.1', relayOnly: true });
  vite = await createServer({
    root: process.cwd(),
    logLevel: 'warn',
    server: { port: PAGE_PORT, strictPort: true, host: '127.0.0.1', hmr: false },
    optimizeDeps: { entries: ['e2e/pages/net.html'], include: ['@thaunknown/simple-peer/lite.js', 'peerjs', 'valibot'] },
  });
  await vite.listen();
  await new Promise<void>((resolve) => {
    const app = PeerServer({ port: PEERJS_PORT, host: '127.0.0.1', path: '/pj', allow_discovery: true }, (s) => {
      peerServer = s;
      resolve();
    });
    void app;
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await relay?.close();
  peerServer?.closeAllConnections?.();
  await new Promise((r) => (peerServer ? peerServer.close(r) : r(undefined)));
});

describe('WebRTC transport between two Chromium pages', () => {
  const relayCfg = (): BootstrapConfig => ({ kind: 'relay', url: relay.relayUrl });
  let a: Awaited<ReturnType<typeof openPage>>;
  let b: Awaited<ReturnType<typeof openPage>>;

  it('both pages register with the relay and find each other', async () => {
    a = await openPage(relayCfg());
    b = await openPage(relayCfg());
    console.log(`identity algorithm in Chromium: ${a.alg}`);
    expect(a.id).toMatch(/^[0-9a-f]{40}$/);
    expect(await a.page.evaluate(() => window.vpNet.peers(5))).toContain(b.id);
  });

  it('page A dials page B through the relay; messages flow both ways', async () => {
    const ms = await a.page.evaluate((id) => window.vpNet.dial(id), b.id);
    console.log(`relay-signaled Chromium link (ICE + DTLS + handshake): ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(5000);
    await waitFor(b.page, () => window.vpNet.linkIds(), (ids) => ids.length === 1);
    expect(await b.page.evaluate(() => window.vpNet.linkIds())).toEqual([a.id]);
    await a.page.evaluate((id) => window.vpNet.send(id, 'hello from A'), b.id);
    await b.page.evaluate((id) => window.vpNet.send(id, 'hello from B'), a.id);
    const atB = await waitFor(b.page, () => window.vpNet.received(), (r) => r.length >= 1);
    const atA = await waitFor(a.page, () => window.vpNet.received(), (r) => r.length >= 1);
    expect(atB[0]).toMatchObject({ from: a.id, text: 'hello from A' });
    expect(atA[0]).toMatchObject({ from: b.id, text: 'hello from B' });
  });

  it('a 200 KiB message and 5000 x 1 KiB messages arrive (throughput figure)', async () => {
    const before = await b.page.evaluate((id) => window.vpNet.countFrom(id), a.id);
    await a.page.evaluate((id) => window.vpNet.blast(id, 1, 200 * 1024), b.id);
    const big = await waitFor(b.page, () => window.vpNet.countFrom(window.vpNet.linkIds()[0]!), (c) => c.n === before.n + 1);
    expect(big.bytes - before.bytes).toBe(200 * 1024);
    const n = 5000;
    const start = await a.page.evaluate(([id, n]) => window.vpNet.blast(id!, Number(n), 1024), [b.id, String(n)]);
    const done = await waitFor(b.page, () => window.vpNet.countFrom(window.vpNet.linkIds()[0]!), (c) => c.n === big.n + n, 30_000);
    const s = (done.last - start) / 1000;
    console.log(`Chromium link: ${Math.round(n / s)} msgs/s of 1 KiB (${((n * 1024) / s / 1e6).toFixed(1)} MB/s)`);
  });

  it('closing on one side closes the other', async () => {
    await a.page.evaluate((id) => window.vpNet.close(id), b.id);
    await waitFor(b.page, () => window.vpNet.closedLinks(), (c) => c.includes(a.id));
    expect(await b.page.evaluate(() => window.vpNet.linkIds())).toEqual([]);
  });

  it('the same transport connects two pages through a PeerJS broker', async () => {
    const cfg: BootstrapConfig = { kind: 'peerjs', host: '127.0.0.1', port: PEERJS_PORT, path: '/pj' };
    const c = await openPage(cfg);
    const d = await openPage(cfg);
    expect(await c.page.evaluate(() => window.vpNet.peers(5))).toContain(d.id);
    const ms = await c.page.evaluate((id) => window.vpNet.dial(id), d.id);
    console.log(`PeerJS-signaled Chromium link: ${ms.toFixed(0)} ms`);
    await waitFor(d.page, () => window.vpNet.linkIds(), (ids) => ids.length === 1);
    await d.page.evaluate((id) => window.vpNet.send(id, 'via peerjs'), c.id);
    const got = await waitFor(c.page, () => window.vpNet.received(), (r) => r.length >= 1);
    expect(got[0]).toMatchObject({ from: d.id, text: 'via peerjs' });
  });
});
