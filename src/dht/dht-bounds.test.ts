// The DHT's memory bounds, so a hostile peer cannot grow them, pushed past by a hostile peer over one link to a real node:
// the value store (only near keys, per publisher, total bytes) and the replay of signed
// routed messages after they left the duplicate window. Each time the node's memory for it
// stays flat and it keeps serving others.
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity, type Identity } from '../core/identity';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { MemoryNetwork } from '../net/memory-network';
import { HostileLink } from '../testing/fuzz-dht-target';
import { createDhtNode, type DhtOptions } from './dht-node';
import { dhtCodec, type DhtMessage } from './messages';
import { encodeRoute, signedRouteData } from './route-frame';
import { ReplayWindow } from './router';
import { VALUE_STORE_DEFAULTS, ValueStore } from './value-store';

const rand = seededRandom(131);

async function nodeUnderAttack(options: Partial<DhtOptions> = {}) {
  const clock = new VirtualClock();
  const net = new MemoryNetwork({ clock });
  const selfId = randomId(rand);
  // Drawn ids, showing no work (core/id-work.ts).
  const node = createDhtNode({ selfId, transport: net.addNode(selfId), clock, options: { random: rand, idWorkBits: 0, ...options } });
  await node.start();
  for (let i = 0; i < 60; i++) node.addContact(randomId(rand));
  const attacker = await generateNodeIdentity({ bits: 0 });
  const link = new HostileLink(attacker.id);
  node.links.attach(link, false, true);
  const replies: DhtMessage[] = [];
  link.onSend = (frame) => void replies.push(dhtCodec.decode(frame));
  return { clock, node, selfId, attacker, link, replies };
}

/** A key whose closest known node is surely us: ours with the last byte changed. */
const nearKey = (self: NodeId, i: number) => {
  const k = self.slice();
  k[18] = i >> 8;
  k[19] = i & 0xff;
  return k;
};
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('value store bounds', () => {
  it('one publisher holds at most maxPerPublisher values; past it STOREs are refused and counted, others still store and read', async () => {
    const { node, selfId, link, replies } = await nodeUnderAttack();
    const pub = randomId(rand);
    const cap = VALUE_STORE_DEFAULTS.maxPerPublisher;
    for (let i = 0; i < cap + 300; i++) {
      link.write(dhtCodec.encode({ t: 'STORE', r: i, ns: 'test', key: nearKey(selfId, i), rec: { v: new Uint8Array(100), pub, seq: 1, ttl: 60_000 } }));
    }
    await settle();
    expect(node.store.size).toBe(cap);
    expect(node.store.countOf(pub)).toBe(cap);
    expect(node.store.bytes).toBe(cap * 100);
    expect(node.stats.storeRefused.publisherFull).toBe(300);
    expect(replies.filter((m) => m.t === 'STORED' && !m.ok).length).toBe(300);
    // Another publisher is served, and a read of a held value is answered.
    const other = randomId(rand);
    link.write(dhtCodec.encode({ t: 'STORE', r: 9001, ns: 'test', key: nearKey(selfId, 9001), rec: { v: new Uint8Array([7]), pub: other, seq: 1, ttl: 60_000 } }));
    link.write(dhtCodec.encode({ t: 'FIND_VALUE', r: 9002, ns: 'test', key: nearKey(selfId, 5) }));
    await settle();
    expect(replies.find((m) => m.t === 'STORED' && m.r === 9001)).toMatchObject({ ok: true });
    expect(replies.find((m) => m.t === 'VALUE' && m.r === 9002)).toMatchObject({ rec: { pub } });
    node.stop();
  });

  it('a STORE for a key the node knows 2k closer nodes to is refused; one it is near to is taken', async () => {
    const { node, selfId, link } = await nodeUnderAttack();
    for (let i = 0; i < 200; i++) node.addContact(randomId(rand));
    // A key in the other half of the id space: about half the contacts the node keeps are closer to it.
    const far = randomId(rand);
    far[0] = (far[0]! & 0x7f) | (~selfId[0]! & 0x80);
    link.write(dhtCodec.encode({ t: 'STORE', r: 1, ns: 'test', key: far, rec: { v: new Uint8Array([1]), pub: randomId(rand), seq: 1, ttl: 60_000 } }));
    link.write(dhtCodec.encode({ t: 'STORE', r: 2, ns: 'test', key: nearKey(selfId, 1), rec: { v: new Uint8Array([1]), pub: randomId(rand), seq: 1, ttl: 60_000 } }));
    await settle();
    expect([node.stats.storeRefused.notNear, node.store.size]).toEqual([1, 1]);
    node.stop();
  });

  it('the store holds at most maxBytes of values over all namespaces; replacing and expiring give bytes and publisher shares back', () => {
    const store = new ValueStore(undefined, { maxBytes: 10_000, maxPerPublisher: 3 });
    const policy = { equalReplaces: true, maxTtlMs: 60_000 };
    const put = (key: NodeId, bytes: number, pub: NodeId, ttl = 60_000, now = 0) => store.put('edits', key, idToHex(key), { v: new Uint8Array(bytes), pub, seq: 1, ttl }, 1, now, policy);
    const pubs = [randomId(rand), randomId(rand), randomId(rand), randomId(rand)];
    const keys = Array.from({ length: 8 }, () => randomId(rand));
    expect([put(keys[0]!, 4000, pubs[0]!), put(keys[1]!, 4000, pubs[1]!), put(keys[2]!, 4000, pubs[2]!)]).toEqual(['stored', 'stored', 'full']);
    expect(store.bytes).toBe(8000);
    // Replacing a value with a smaller one frees bytes; an expired one frees its bytes and share.
    expect(put(keys[0]!, 1000, pubs[0]!)).toBe('stored');
    expect(put(keys[2]!, 4000, pubs[2]!, 10)).toBe('stored');
    expect(store.bytes).toBe(9000);
    expect(put(keys[3]!, 4000, pubs[3]!, 60_000, 20)).toBe('stored'); // keys[2] expired at 10: room again
    expect([store.bytes, store.countOf(pubs[2]!)]).toEqual([9000, 0]);
    for (const k of keys.slice(4, 7)) put(k, 10, pubs[0]!);
    expect(put(keys[7]!, 10, pubs[0]!)).toBe('publisherFull');
    expect(store.countOf(pubs[0]!)).toBe(3);
  });
});

describe('routed replay bound', () => {
  async function signedData(from: Identity, to: NodeId, id: number, tsS: number, text: string): Promise<Uint8Array> {
    const env = { id, ts: tsS, ttl: 8, src: from.id, dst: to, trace: [], via: [], body: dhtCodec.encode({ t: 'DATA', body: new TextEncoder().encode(text) }) };
    const signature = await from.sign(signedRouteData(from.alg, env));
    return encodeRoute({ ...env, auth: { alg: from.alg, publicKey: from.publicKey, signature } }).slice();
  }

  it('a genuine signed message replayed after 300 others (past the old 256-entry window) is still refused; one stamped past the age bound is stale; fresh ones pass', async () => {
    let wall = 1_800_000_000_000;
    const { node, selfId, attacker, link } = await nodeUnderAttack({ requireSignedRoutes: true, wallNow: () => wall });
    const got: string[] = [];
    node.events.on('message', ({ body }) => void got.push(new TextDecoder().decode(body)));
    const now = () => Math.floor(wall / 1000);
    const first = await signedData(attacker, selfId, 1, now(), 'first');
    const drain = () => new Promise((r) => setTimeout(r, 30));
    link.write(first);
    for (let i = 2; i < 302; i++) link.write(await signedData(attacker, selfId, i, now(), `m${i}`));
    await drain();
    expect(got.length).toBe(301);
    link.write(first);
    await drain();
    expect([got.length, node.stats.dropped.duplicate]).toEqual([301, 1]);
    wall += 6 * 60_000;
    link.write(first);
    link.write(await signedData(attacker, selfId, 5000, now() - 400, 'old stamp'));
    link.write(await signedData(attacker, selfId, 5001, now(), 'fresh'));
    await drain();
    // The replay is still remembered (duplicate); a message stamped past the age bound, as a
    // replay the window forgot would be, is stale.
    expect([node.stats.dropped.duplicate, node.stats.dropped.stale]).toEqual([2, 1]);
    expect(got.at(-1)).toBe('fresh');
    expect(got.length).toBe(302);
    node.stop();
  });

  it('the replay window is bounded: past its size its floor rises, so a forgotten message cannot come back', () => {
    const w = new ReplayWindow(4, 300);
    for (let i = 0; i < 4; i++) expect(w.remember(`k${i}`, 1000 + i)).toBe(true);
    expect(w.judge('k0', 1000, 1010)).toBe('duplicate');
    w.remember('k4', 1004); // k0 (stamp 1000) is let go
    expect(w.floor).toBe(1000);
    expect(w.judge('k0', 1000, 1010)).toBe('stale');
    expect(w.judge('k9', 1005, 1010)).toBe('fresh');
    expect(w.judge('k9', 1005, 1400)).toBe('stale');
    for (let i = 0; i < 1000; i++) w.remember(`f${i}`, 2000);
    expect(w.judge('f0', 2000, 2000)).toBe('stale');
    expect(w.judge('g', 2001, 2001)).toBe('fresh');
  });
});
