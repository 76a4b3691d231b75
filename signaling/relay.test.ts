import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startServer, type RunningServer } from './serve';

const hex = (n: number) => n.toString(16).padStart(40, '0');

interface TestClient {
  ws: WebSocket;
  next(ms?: number): Promise<Record<string, unknown>>;
  send(x: unknown): void;
  closed: Promise<number>;
}

function client(url: string): Promise<TestClient> {
  const ws = new WebSocket(url);
  const inbox: Record<string, unknown>[] = [];
  const waiters: Array<(m: Record<string, unknown>) => void> = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as Record<string, unknown>;
    const w = waiters.shift();
    if (w) w(m);
    else inbox.push(m);
  });
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  ws.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({
      ws,
      closed,
      send: (x) => ws.send(typeof x === 'string' || Buffer.isBuffer(x) ? x : JSON.stringify(x)),
      next: (ms = 2000) => {
        const m = inbox.shift();
        if (m) return Promise.resolve(m);
        return new Promise((res, rej) => {
          const t = setTimeout(() => rej(new Error('no message')), ms);
          waiters.push((x) => { clearTimeout(t); res(x); });
        });
      },
    }));
    ws.once('error', reject);
  });
}

let server: RunningServer;
const open: TestClient[] = [];
async function registered(id: string): Promise<TestClient> {
  const c = await client(server.relayUrl);
  open.push(c);
  c.send({ type: 'register', id });
  expect(await c.next()).toEqual({ type: 'registered', id });
  return c;
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vp-static-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>vp</title>');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'app.js'), 'export {}');
  writeFileSync(join(dir, 'assets', 'm.wasm'), Buffer.from([0, 97, 115, 109]));
  writeFileSync(join(dir, 'assets', 'app.js.map'), '{}');
  server = await startServer({ port: 0, staticDir: dir, relay: { burst: 10, ratePerSecond: 5, maxSockets: 12, maxStrikes: 5 } });
});
afterEach(async () => {
  for (const c of open.splice(0)) c.ws.close();
  await new Promise((r) => setTimeout(r, 20));
});
afterAll(() => server.close());

describe('relay', () => {
  it('registers, relays a signal to a named id, and lists peers', async () => {
    const a = await registered(hex(1));
    const b = await registered(hex(2));
    const c = await registered(hex(3));
    a.send({ type: 'signal', to: hex(2), blob: { t: 'rtc', sdp: 'x' } });
    expect(await b.next()).toEqual({ type: 'signal', from: hex(1), blob: { t: 'rtc', sdp: 'x' } });
    c.send({ type: 'peers', n: 5 });
    const peers = (await c.next()) as { type: string; ids: string[] };
    expect(peers.type).toBe('peers');
    expect(peers.ids.sort()).toEqual([hex(1), hex(2)]);
    a.send({ type: 'peers', n: 1 });
    expect(((await a.next()) as { ids: string[] }).ids).toHaveLength(1);
    expect(server.relay.stats.signalsRelayed).toBeGreaterThanOrEqual(1);
  });

  it('answers an unknown target id with an error naming it', async () => {
    const a = await registered(hex(10));
    a.send({ type: 'signal', to: hex(99), blob: {} });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'unknown-peer', to: hex(99) });
  });

  it('refuses signals before registration, double registration and a taken id', async () => {
    const a = await client(server.relayUrl);
    open.push(a);
    a.send({ type: 'signal', to: hex(1), blob: {} });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'not-registered' });
    await registered(hex(20));
    a.send({ type: 'register', id: hex(20) });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'id-taken' });
    a.send({ type: 'register', id: hex(21) });
    expect(await a.next()).toMatchObject({ type: 'registered' });
    a.send({ type: 'register', id: hex(22) });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'already-registered' });
  });

  it('answers malformed JSON, binary frames, unknown types and bad fields with errors, and stays up', async () => {
    const a = await registered(hex(30));
    a.send('{not json');
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-json' });
    a.send(Buffer.from([1, 2, 3]));
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-json' });
    a.send({ type: 'teleport' });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-message' });
    a.send({ type: 'signal', to: 'XYZ', blob: {} });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-message' });
    a.send('null');
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-message' });
    const b = await registered(hex(31));
    b.send({ type: 'peers' });
    expect(await b.next()).toMatchObject({ type: 'peers' });
  });

  it('caps the message size', async () => {
    const a = await registered(hex(40));
    a.send({ type: 'signal', to: hex(40), blob: { pad: 'x'.repeat(20_000) } });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'too-large' });
    // Far beyond the cap, ws itself closes the socket (1009).
    a.send('x'.repeat(200_000));
    expect(await a.closed).toBe(1009);
  });

  it('rate-limits a socket and closes one that keeps breaking limits', async () => {
    const a = await registered(hex(50));
    for (let i = 0; i < 30; i++) a.send({ type: 'peers' });
    const codes: unknown[] = [];
    for (;;) {
      const m = await a.next().catch(() => null);
      if (!m) break;
      codes.push(m.type === 'error' ? m.code : m.type);
    }
    expect(codes.filter((c) => c === 'peers').length).toBeLessThanOrEqual(10);
    expect(codes).toContain('rate-limited');
    expect(await a.closed).toBe(1008);
    expect(server.relay.stats.closedForAbuse).toBeGreaterThanOrEqual(1);
  });

  it('caps the number of sockets', async () => {
    const cs: TestClient[] = [];
    for (let i = 0; i < 12; i++) cs.push(await client(server.relayUrl));
    open.push(...cs);
    const extra = await client(server.relayUrl);
    expect(await extra.next()).toMatchObject({ type: 'error', code: 'full' });
    expect(await extra.closed).toBe(1013);
    expect(server.relay.stats.rejectedFull).toBe(1);
  });

  it('forgets a socket when it closes', async () => {
    const a = await registered(hex(60));
    a.ws.close();
    await a.closed;
    await new Promise((r) => setTimeout(r, 20));
    const b = await registered(hex(61));
    b.send({ type: 'signal', to: hex(60), blob: {} });
    expect(await b.next()).toMatchObject({ code: 'unknown-peer' });
  });
});

function get(path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('static server', () => {
  it('serves files with MIME types, falls back to index.html, refuses traversal', async () => {
    expect(await get('/')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect((await get('/assets/app.js')).type).toBe('text/javascript; charset=utf-8');
    expect((await get('/assets/m.wasm')).type).toBe('application/wasm');
    expect((await get('/assets/app.js.map')).type).toMatch(/^application\/json/);
    expect(await get('/some/route')).toMatchObject({ status: 200, body: '<!doctype html><title>vp</title>' });
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/../../etc/passwd')).body).not.toMatch(/root:/);
    expect((await get('/%2e%2e/%2e%2e/etc/passwd')).body).not.toMatch(/root:/); // URL parsing normalises it
    expect((await get('/..%2f..%2f..%2fetc%2fpasswd')).status).toBe(403); // decoded after parsing: refused
    expect((await get('/%00')).status).toBe(403);
  });
});
