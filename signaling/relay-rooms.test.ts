// One relay, several worlds: a socket registers into its network's room (net/network-id.ts),
// and 'peers' and 'signal' reach only that room, so a newcomer's first contacts are of its
// own world. A client naming no network (from before rooms) is in the unnamed network's room.
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity, type Identity } from '../src/core/identity';
import { idToHex } from '../src/core/node-id';
import { toB64 } from '../src/core/base64';
import { registerProof, type RelayMessage } from '../src/net/relay-protocol';
import { RELAY_DEFAULTS, RelayCore, type RelayClient, type RelaySocket } from './relay-core';

const WORLD_A = 'a'.repeat(32);
const WORLD_B = 'b'.repeat(32);

interface Stand {
  c: RelayClient;
  id: string;
  inbox: RelayMessage[];
  say(m: unknown): Promise<void>;
}

/** A socket of its own address, registered on `core` in `net`'s room (none: naming no network). */
async function join(core: RelayCore, net: string | undefined, n: number, who?: Identity): Promise<Stand> {
  const me = who ?? (await generateNodeIdentity({ bits: 0 }));
  const inbox: RelayMessage[] = [];
  const socket: RelaySocket = { open: true, send: (t) => inbox.push(JSON.parse(t) as RelayMessage), close: () => undefined };
  const c = core.connect(socket, `10.0.0.${n}`);
  const challenge = inbox.shift() as Extract<RelayMessage, { type: 'challenge' }>;
  const id = idToHex(me.id);
  const sig = await me.sign(registerProof(challenge.nonce, id));
  const say = async (m: unknown) => { await core.message(c, JSON.stringify(m), JSON.stringify(m).length); };
  await say({ type: 'register', id, alg: me.alg, pk: toB64(me.publicKey), sig: toB64(sig), ...(net ? { net } : {}) });
  expect(inbox.shift()).toEqual({ type: 'registered', id, ...(net ? { net } : {}), ping: 1 });
  return { c, id, inbox, say };
}

async function peersOf(s: Stand): Promise<string[]> {
  await s.say({ type: 'peers', n: 32 });
  const m = s.inbox.pop() as Extract<RelayMessage, { type: 'peers' }>;
  return [...m.ids].sort();
}

describe('relay rooms', () => {
  it('lists and signals only peers of the same network; another room is as unknown as a gone peer', async () => {
    const core = new RelayCore(RELAY_DEFAULTS);
    const [a1, a2, b1, b2, old1, old2] = [
      await join(core, WORLD_A, 1), await join(core, WORLD_A, 2),
      await join(core, WORLD_B, 3), await join(core, WORLD_B, 4),
      await join(core, undefined, 5), await join(core, undefined, 6),
    ];
    expect(core.stats.rooms).toBe(3);
    expect(await peersOf(a1)).toEqual([a2.id]);
    expect(await peersOf(b2)).toEqual([b1.id]);
    expect(await peersOf(old1)).toEqual([old2.id]);

    await a1.say({ type: 'signal', to: a2.id, blob: { hi: 1 } });
    expect(a2.inbox.pop()).toEqual({ type: 'signal', from: a1.id, blob: { hi: 1 } });
    for (const [from, to] of [[a1, b1], [b2, a2], [old1, a1], [a2, old2]] as const) {
      await from.say({ type: 'signal', to: to.id, blob: { hi: 1 } });
      expect(from.inbox.pop()).toMatchObject({ type: 'error', code: 'unknown-peer', to: to.id });
      expect(to.inbox).toEqual([]);
    }
    expect(core.stats.signalsRelayed).toBe(1);
  });

  it('a room lasts while a registered socket is in it; an id registered anew moves to its new room', async () => {
    const core = new RelayCore(RELAY_DEFAULTS);
    const who = await generateNodeIdentity({ bits: 0 });
    const a = await join(core, WORLD_A, 1, who);
    const b = await join(core, WORLD_B, 2);
    expect(core.stats.rooms).toBe(2);
    // The same node id again, now in world B (a tab that reloaded into another world).
    const again = await join(core, WORLD_B, 3, who);
    expect(core.stats.rooms).toBe(1);
    expect(await peersOf(b)).toEqual([again.id]);
    core.disconnect(a.c);
    core.disconnect(again.c);
    core.disconnect(b.c);
    expect([core.stats.rooms, core.stats.registered, core.stats.sockets]).toEqual([0, 0, 0]);
  });

  it('refuses a network id that is not 32 hex digits (a room name cannot grow)', async () => {
    const core = new RelayCore(RELAY_DEFAULTS);
    const me = await generateNodeIdentity({ bits: 0 });
    const inbox: RelayMessage[] = [];
    const c = core.connect({ open: true, send: (t) => inbox.push(JSON.parse(t) as RelayMessage), close: () => undefined }, '10.0.0.9');
    const challenge = inbox.shift() as Extract<RelayMessage, { type: 'challenge' }>;
    const id = idToHex(me.id);
    const sig = await me.sign(registerProof(challenge.nonce, id));
    const m = JSON.stringify({ type: 'register', id, alg: me.alg, pk: toB64(me.publicKey), sig: toB64(sig), net: 'x'.repeat(5000) });
    await core.message(c, m, m.length);
    expect(inbox.pop()).toMatchObject({ type: 'error' });
    expect(core.stats.rooms).toBe(0);
  });
});
