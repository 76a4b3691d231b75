// The relay's ICE grant (relay-core.ts with turn-credentials.ts): sent with `registered` and
// on a client's 'ice' request, to proven ids only.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../src/core/identity';
import { idToHex } from '../src/core/node-id';
import { toB64 } from '../src/core/base64';
import { registerProof } from '../src/net/relay-protocol';
import { RELAY_DEFAULTS, RelayCore, type RelaySocket } from './relay-core';
import { makeIceGrant, type TurnConfig } from './turn-credentials';

describe('the relay hands out ICE servers', () => {
  function socket() {
    const got: Record<string, unknown>[] = [];
    const s: RelaySocket = { open: true, send: (t) => void got.push(JSON.parse(t) as Record<string, unknown>), close: () => {} };
    return { s, got };
  }
  const turn: TurnConfig = { urls: ['turn:t.example:3478?transport=udp'], secret: 'k', ttlSeconds: 3600 };

  it('with the registration and on request, to a proven id only, credentials named after it', async () => {
    const core = new RelayCore(RELAY_DEFAULTS, () => Date.now(), (id) => makeIceGrant(turn, id, Date.now()));
    const { s, got } = socket();
    const c = core.connect(s, '127.0.0.1');
    core.message(c, JSON.stringify({ type: 'ice' }), 20);
    expect(got.at(-1)).toMatchObject({ type: 'error', code: 'not-registered' });
    const me = await generateNodeIdentity({ bits: 0 });
    const hex = idToHex(me.id);
    const nonce = (got[0] as { nonce: string }).nonce;
    await core.message(c, JSON.stringify({ type: 'register', id: hex, alg: me.alg, pk: toB64(me.publicKey), sig: toB64(await me.sign(registerProof(nonce, hex))) }), 300);
    const reg = got.at(-1) as { type: string; ice: { iceServers: { username: string; credential: string }[]; ttl: number } };
    expect(reg.type).toBe('registered');
    expect(reg.ice.ttl).toBe(3600);
    const [server] = reg.ice.iceServers;
    expect(server!.username).toMatch(new RegExp(`^\\d+:${hex}$`));
    expect(server!.credential).toBe(createHmac('sha1', 'k').update(server!.username).digest('base64'));
    core.message(c, JSON.stringify({ type: 'ice' }), 20);
    expect(got.at(-1)).toMatchObject({ type: 'ice', ice: { ttl: 3600, iceServers: [{ urls: turn.urls }] } });
    expect(core.stats.iceGrants).toBe(2);
  });

  it('a relay without TURN sends no grant with the registration', async () => {
    const core = new RelayCore(RELAY_DEFAULTS);
    const { s, got } = socket();
    const c = core.connect(s, '127.0.0.1');
    const me = await generateNodeIdentity({ bits: 0 });
    const hex = idToHex(me.id);
    await core.message(c, JSON.stringify({ type: 'register', id: hex, alg: me.alg, pk: toB64(me.publicKey), sig: toB64(await me.sign(registerProof((got[0] as { nonce: string }).nonce, hex))) }), 300);
    expect(got.at(-1)).toEqual({ type: 'registered', id: hex, ping: 1 });
  });
});
