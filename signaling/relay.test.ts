import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { generateNodeIdentity, type Identity } from '../src/core/identity';
import { idToHex } from '../src/core/node-id';
import { toB64 } from '../src/core/base64';
import { registerProof } from '../src/net/relay-protocol';
import { startServer, type RunningServer } from './serve';

const hex = (n: number) => n.toString(16).padStart(40, '0');

interface TestClient {
  ws: WebSocket;
  next(ms?: number): Promise<Record<string, unknown>>;
  send(x: unknown): void;
  closed: Promise<number>;
}

function client(url: string, headers?: Record<string, string>): Promise<TestClient> {
  const ws = new WebSocket(url, headers ? { headers } : undefined);
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

/** The register frame answering a socket's challenge with `who`'s key (claiming `id`, by default its own). */
async function proof(c: TestClient, who: Identity, id = idToHex(who.id)): Promise<Record<string, unknown>> {
  const challenge = await c.next();
  expect(challenge).toMatchObject({ type: 'challenge' });
  const sig = await who.sign(registerProof(challenge.nonce as string, id));
  return { type: 'register', id, alg: who.alg, pk: toB64(who.publicKey), sig: toB64(sig) };
}

/** A socket registered under a fresh identity (or the one given); `id` is its hex id. */
async function registered(who?: Identity, url = server.relayUrl): Promise<TestClient & { id: string; who: Identity }> {
  const me = who ?? (await generateNodeIdentity({ bits: 0 }));
  const c = await client(url);
  open.push(c);
  c.send(await proof(c, me));
  const id = idToHex(me.id);
  expect(await c.next()).toEqual({ type: 'registered', id, ping: 1 });
  return { ...c, id, who: me };
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
// Each test starts with no socket at the relay: it drops one when it reads the close, which a
// busy machine may put after the next test's first sockets (the socket cap counts them).
afterEach(async () => {
  for (const c of open.splice(0)) c.ws.close();
  await vi.waitFor(() => expect(server.relay.stats.sockets).toBe(0), { timeout: 5000, interval: 10 });
});
afterAll(() => server.close());

describe('relay', () => {
  it('registers, relays a signal to a named id, and lists peers', async () => {
    const a = await registered();
    const b = await registered();
    const c = await registered();
    a.send({ type: 'signal', to: b.id, blob: { t: 'rtc', sdp: 'x' } });
    expect(await b.next()).toEqual({ type: 'signal', from: a.id, blob: { t: 'rtc', sdp: 'x' } });
    c.send({ type: 'peers', n: 5 });
    const peers = (await c.next()) as { type: string; ids: string[] };
    expect(peers.type).toBe('peers');
    expect(peers.ids.sort()).toEqual([a.id, b.id].sort());
    a.send({ type: 'peers', n: 1 });
    expect(((await a.next()) as { ids: string[] }).ids).toHaveLength(1);
    expect(server.relay.stats.signalsRelayed).toBeGreaterThanOrEqual(1);
  });

  it('answers a ping with a pong, counted, and says at registration that it does', async () => {
    const a = await registered(); // its `registered` said ping: 1
    const [before, badBefore] = [server.relay.stats.pingsAnswered, server.relay.stats.errors['bad-message'] ?? 0];
    a.send({ type: 'ping' });
    expect(await a.next()).toEqual({ type: 'pong' });
    a.send({ type: 'ping', extra: 1 }); // extra fields are dropped by the schema, as for every frame
    expect(await a.next()).toEqual({ type: 'pong' });
    expect(server.relay.stats.pingsAnswered - before).toBe(2);
    expect(server.relay.stats.errors['bad-message'] ?? 0).toBe(badBefore);
  });

  it('answers an unknown target id with an error naming it', async () => {
    const a = await registered();
    a.send({ type: 'signal', to: hex(99), blob: {} });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'unknown-peer', to: hex(99) });
  });

  it('refuses signals before registration, a register without the id\'s key, and double registration', async () => {
    const a = await client(server.relayUrl);
    open.push(a);
    const mine = await generateNodeIdentity({ bits: 0 });
    const register = await proof(a, mine);
    a.send({ type: 'signal', to: hex(1), blob: {} });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'not-registered' });
    // Squatting: a live victim's id, claimed with our own key, or with its key but our signature.
    const victim = await registered();
    a.send({ ...register, id: victim.id });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-proof' });
    a.send({ ...register, id: victim.id, pk: toB64(victim.who.publicKey) });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-proof' });
    // A signature over another socket's challenge does not register this one.
    const b = await client(server.relayUrl);
    open.push(b);
    a.send(await proof(b, mine));
    expect(await a.next()).toMatchObject({ type: 'error', code: 'bad-proof' });
    expect(server.relay.stats.errors['bad-proof']).toBeGreaterThanOrEqual(3);
    // The victim still gets its signals.
    const c = await registered();
    c.send({ type: 'signal', to: victim.id, blob: { n: 1 } });
    expect(await victim.next()).toEqual({ type: 'signal', from: c.id, blob: { n: 1 } });
    a.send(register);
    expect(await a.next()).toEqual({ type: 'registered', id: idToHex(mine.id), ping: 1 });
    a.send(register);
    expect(await a.next()).toMatchObject({ type: 'error', code: 'already-registered' });
  });

  it('a reload after a crash gets its id back at once: the proven owner replaces the stale socket', async () => {
    const me = await generateNodeIdentity({ bits: 0 });
    const crashed = await registered(me);
    // The crashed tab's socket still looks alive to the relay (no close frame, the heartbeat has not run).
    const reloaded = await registered(me);
    expect(await crashed.closed).toBe(4000);
    const other = await registered();
    other.send({ type: 'signal', to: reloaded.id, blob: { n: 2 } });
    expect(await reloaded.next()).toEqual({ type: 'signal', from: other.id, blob: { n: 2 } });
    expect(server.relay.stats.replaced).toBeGreaterThanOrEqual(1);
  });

  it('answers malformed JSON, binary frames, unknown types and bad fields with errors, and stays up', async () => {
    const a = await registered();
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
    const b = await registered();
    b.send({ type: 'peers' });
    expect(await b.next()).toMatchObject({ type: 'peers' });
  });

  it('caps the message size', async () => {
    const a = await registered();
    a.send({ type: 'signal', to: a.id, blob: { pad: 'x'.repeat(20_000) } });
    expect(await a.next()).toMatchObject({ type: 'error', code: 'too-large' });
    // Far beyond the cap, ws itself closes the socket (1009).
    a.send('x'.repeat(200_000));
    expect(await a.closed).toBe(1009);
  });

  it('rate-limits a socket and closes one that keeps breaking limits', async () => {
    const a = await registered();
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
    const a = await registered();
    a.ws.close();
    await a.closed;
    // Our end's close event can come before the relay has read the close: waited for.
    await vi.waitFor(() => expect(server.relay.stats.sockets).toBe(0), { timeout: 5000, interval: 10 });
    const b = await registered();
    b.send({ type: 'signal', to: a.id, blob: {} });
    expect(await b.next()).toMatchObject({ code: 'unknown-peer' });
  });
});

describe('relay caps per address', () => {
  it('one address holds at most maxSocketsPerAddress sockets and shares one message rate; the relay serves on', async () => {
    const s = await startServer({ port: 0, relayOnly: true, relay: { maxSocketsPerAddress: 3, addressBurst: 12, addressRatePerSecond: 0.001, burst: 100, ratePerSecond: 100 } });
    try {
      const cs = [await registered(undefined, s.relayUrl), await registered(undefined, s.relayUrl), await registered(undefined, s.relayUrl)];
      const extra = await client(s.relayUrl);
      expect(await extra.next()).toMatchObject({ type: 'error', code: 'address-full' });
      expect(await extra.closed).toBe(1013);
      expect(s.relay.stats.rejectedAddressFull).toBe(1);
      // Three registrations spent 3 of the address's 12 tokens: 9 more frames pass, from any of its sockets.
      for (let i = 0; i < 12; i++) cs[i % 3]!.send({ type: 'peers' });
      const answers: unknown[] = [];
      for (const c of cs) for (let i = 0; i < 4; i++) answers.push(((await c.next()) as { type: string; code?: string }).code ?? 'peers');
      expect(answers.filter((a) => a === 'peers').length).toBe(9);
      expect(answers.filter((a) => a === 'rate-limited').length).toBe(3);
      // A socket that leaves frees its slot.
      cs[0]!.ws.close();
      await cs[0]!.closed;
      await vi.waitFor(() => expect(s.relay.stats.sockets).toBe(2), { timeout: 5000, interval: 10 });
      const again = await client(s.relayUrl);
      open.push(again);
      expect(await again.next()).toMatchObject({ type: 'challenge' });
    } finally {
      for (const c of open.splice(0)) c.ws.close();
      await s.close();
    }
  });

  it('behind a trusted proxy, the address is the first X-Forwarded-For entry', async () => {
    const s = await startServer({ port: 0, relayOnly: true, relay: { maxSocketsPerAddress: 1, trustProxy: true } });
    try {
      const a = await client(s.relayUrl, { 'x-forwarded-for': '203.0.113.1, 10.0.0.1' });
      const b = await client(s.relayUrl, { 'x-forwarded-for': '203.0.113.2' });
      const c = await client(s.relayUrl, { 'x-forwarded-for': '203.0.113.1' });
      open.push(a, b, c);
      expect(await a.next()).toMatchObject({ type: 'challenge' });
      expect(await b.next()).toMatchObject({ type: 'challenge' });
      expect(await c.next()).toMatchObject({ type: 'error', code: 'address-full' });
    } finally {
      for (const c of open.splice(0)) c.ws.close();
      await s.close();
    }
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
