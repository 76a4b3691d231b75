// The relay adapter's ICE grant: taken from `registered` when it passes its schema (a bad or
// oversize one is dropped and counted, the registration stands), renewed at half its ttl.
// And what its keepalive asks: a ping of a relay that says it answers them, a peers request
// of an older one. A scripted stand-in for the relay's WebSocket: no network.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import { idToHex } from '../core/node-id';
import { connectRelay, type WebSocketLike } from './relay-bootstrap';
import type { IceGrant } from './relay-protocol';

class ScriptedSocket implements WebSocketLike {
  static last: ScriptedSocket | undefined;
  readyState = 1;
  readonly sent: Record<string, unknown>[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {
    ScriptedSocket.last = this;
    queueMicrotask(() => this.relay({ type: 'challenge', nonce: 'AAAA' }));
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(): void {
    this.readyState = 3;
  }
  relay(m: unknown): void {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
}

const turn = (username = '1700003600:n', credential = 'c2VjcmV0') => ({ urls: ['turn:t.example:3478?transport=udp'], username, credential });

/** Connects through the stand-in; the relay answers the register with `registered` + `ice`. */
async function connectWith(ice: unknown, more: Record<string, unknown> = {}) {
  const me = await generateNodeIdentity({ bits: 0 });
  const p = connectRelay({ url: 'ws://relay.invalid/relay', identity: me, WebSocket: ScriptedSocket });
  const ws = ScriptedSocket.last!;
  await vi.waitFor(() => expect(ws.sent.some((m) => m.type === 'register')).toBe(true));
  ws.relay({ type: 'registered', id: idToHex(me.id), ...(ice === undefined ? {} : { ice }), ...more });
  return { b: await p, ws };
}

afterEach(() => { vi.useRealTimers(); });

describe('the relay adapter takes ICE grants', () => {
  it('a grant in `registered` is kept', async () => {
    const grant: IceGrant = { iceServers: [{ urls: 'stun:t.example:3478' }, turn()], ttl: 3600 };
    const { b } = await connectWith(grant);
    expect(b.ice).toEqual(grant);
    expect(b.stats.iceGrants).toBe(1);
    b.close();
  });

  it('a malformed or oversize grant is dropped and counted; the registration stands', async () => {
    const bad: unknown[] = [
      { iceServers: Array.from({ length: 9 }, (_, i) => ({ urls: `stun:s${i}` })) },
      { iceServers: [{ urls: ['turn:a', 'turn:b', 'turn:c', 'turn:d', 'turn:e'], username: 'u', credential: 'c' }] },
      { iceServers: [{ urls: 'turn:t.example:3478' }] },
      { iceServers: [{ urls: 'javascript:alert(1)' }] },
      { iceServers: [turn('u'.repeat(300))] },
      { iceServers: [], ttl: 5 },
      { iceServers: 'stun:x' },
      'nope',
    ];
    for (const ice of bad) {
      const { b } = await connectWith(ice);
      expect(b.ice, JSON.stringify(ice)).toBeUndefined();
      expect(b.stats.badBy.ice).toBe(1);
      b.close();
    }
  });

  it('renews at half the ttl and tells its listeners; a bad renewal is dropped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { b, ws } = await connectWith({ iceServers: [turn('1:a')], ttl: 120 });
    const heard: IceGrant[] = [];
    b.events.on('ice', (g) => heard.push(g));
    vi.advanceTimersByTime(59_000);
    expect(ws.sent.filter((m) => m.type === 'ice')).toHaveLength(0);
    vi.advanceTimersByTime(1_000);
    expect(ws.sent.filter((m) => m.type === 'ice')).toHaveLength(1);
    const fresh: IceGrant = { iceServers: [turn('2:a')], ttl: 120 };
    ws.relay({ type: 'ice', ice: fresh });
    expect(heard).toEqual([fresh]);
    expect(b.ice).toEqual(fresh);
    ws.relay({ type: 'ice', ice: { iceServers: [{ urls: 'turn:x' }] } });
    expect(heard).toHaveLength(1);
    expect(b.stats.badBy.schema).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(ws.sent.filter((m) => m.type === 'ice')).toHaveLength(2);
    b.close();
    vi.advanceTimersByTime(600_000);
    expect(ws.sent.filter((m) => m.type === 'ice')).toHaveLength(2);
  });
});

describe('the relay adapter\'s keepalive', () => {
  it('pings a relay that says it answers pings (its pong is heard), asks an older one for a peer, and takes no other value of `ping` for a yes', async () => {
    const said: [unknown, string][] = [[1, 'ping'], [undefined, 'peers'], [true, 'peers'], ['1', 'peers']];
    for (const [ping, asked] of said) {
      const { b, ws } = await connectWith(undefined, ping === undefined ? {} : { ping });
      expect(b.stats.pings, String(ping)).toBe(ping === 1);
      b.probe!();
      expect(ws.sent.at(-1)?.type, String(ping)).toBe(asked);
      expect(b.stats.probes).toBe(1);
      b.close();
    }
    // A pong is a frame heard, nothing more: no bad frame.
    const { b, ws } = await connectWith(undefined, { ping: 1 });
    b.probe!();
    ws.relay({ type: 'pong' });
    expect(b.stats.badFrames).toBe(0);
    b.close();
  });
});
