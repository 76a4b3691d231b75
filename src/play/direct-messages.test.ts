// Direct messages between nodes of a small in-memory network (frames take 20 ms; one can be
// lost on purpose): a message reaches only the node it was written to, is acknowledged, and
// the sender reads "delivered" or, with no answer, "not delivered". Forged, re-addressed,
// replayed, malformed and flooding frames change nothing beyond the rates and are counted.
import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { idToHex, type NodeId } from '../core/node-id';
import type { Signer } from '../core/signer';
import { VirtualClock } from '../core/virtual-clock';
import type { AppChannel, ChannelEvents } from '../dht/app-channels';
import { MAX_CHAT_CHARS } from '../region/chat-line';
import { SimKeyring } from '../testing/sim-keyring';
import { directMessageCodec, makeDirectMessage, MAX_DM_FRAME, verifyDirectMessage, type DirectMessage } from './direct-message';
import { ALL_BURST, DIRECT_MESSAGE_DEFAULTS, DirectMessages, GIVE_UP_MS, NODE_BURST, PLAYER_BURST, RETRY_MS, type DirectEntry } from './direct-messages';

const WORLD = 'dm-test';
const WALL = 1_750_000_000_000;
const keys = new SimKeyring('dm');

/** Nodes whose frames take 20 ms; `lose` drops the next frames for which it says so. */
class Net {
  readonly clock = new VirtualClock();
  readonly channels = new Map<string, AppChannel>();
  lose: (from: string, to: string, body: Uint8Array) => boolean = () => false;

  channel(self: NodeId): AppChannel {
    const events = new Emitter<ChannelEvents>();
    const ch: AppChannel = {
      name: 'player',
      events,
      send: (to, body) => {
        const dest = this.channels.get(idToHex(to));
        if (!dest) return false;
        if (this.lose(idToHex(self), idToHex(to), body)) return true;
        const copy = body.slice();
        this.clock.setTimeout(() => dest.events.emit('message', { from: self, body: copy }), 20);
        return true;
      },
    };
    this.channels.set(idToHex(self), ch);
    return ch;
  }
}

const nodeId = (b: number) => new Uint8Array(20).fill(b);
const playerId = (b: number) => new Uint8Array(20).fill(0x80 + b);

function open(net: Net, b: number, name: string, options: Partial<typeof DIRECT_MESSAGE_DEFAULTS> = {}) {
  const self = nodeId(b);
  const player = keys.signer(playerId(b));
  const channel = net.channel(self);
  const dms = new DirectMessages({ channel, world: WORLD, self, player, verify: keys.verify, clock: net.clock, wallClock: () => WALL + net.clock.now(), name: () => name, colour: () => b % 12, options });
  const got: DirectEntry[] = [];
  const statuses: DirectEntry[] = [];
  dms.events.on('message', (e) => e.dir === 'in' && got.push(e));
  dms.events.on('status', (e) => statuses.push(e));
  return { self, hex: idToHex(self), player, channel, dms, got, statuses };
}

describe('direct message frames', () => {
  it('signed by the player it names, from one node to one node, in one world; any change breaks it', async () => {
    const ann = keys.signer(playerId(1));
    const m = await makeDirectMessage(ann, WORLD, nodeId(1), nodeId(2), 'Ann', 'hi Bob', WALL, 4);
    expect(await verifyDirectMessage(m, WORLD, keys.verify)).toBe(true);
    expect(await verifyDirectMessage(m, 'other', keys.verify)).toBe(false);
    for (const changed of [{ x: 'hi Bib' }, { n: 'Bob' }, { c: 5 }, { w: WALL + 1 }, { to: nodeId(3) }, { f: nodeId(3) }, { p: playerId(2) }, { k: keys.signer(playerId(2)).publicKey }]) {
      expect(await verifyDirectMessage({ ...m, ...changed }, WORLD, keys.verify), Object.keys(changed)[0]).toBe(false);
    }
    // The frame round-trips through the codec.
    expect(directMessageCodec.decode(directMessageCodec.encode(m))).toEqual(m);
  });

  it('the schema refuses markup-free but hostile text, bad names, long text and wrong sizes', async () => {
    const m = await makeDirectMessage(keys.signer(playerId(1)), WORLD, nodeId(1), nodeId(2), 'Ann', 'ok', WALL);
    const bad: Partial<DirectMessage>[] = [
      { x: 'a\u202eb' }, { x: ' padded' }, { x: 'x'.repeat(MAX_CHAT_CHARS + 1) }, { x: '' },
      { n: '<b>Ann</b>' }, { n: 'x'.repeat(17) }, { f: new Uint8Array(19) }, { to: new Uint8Array(21) }, { s: new Uint8Array(73) }, { w: -1 },
    ];
    for (const b of bad) expect(() => directMessageCodec.decode(directMessageCodec.encode({ ...m, ...b } as DirectMessage)), JSON.stringify(Object.keys(b))).toThrow();
    // The longest honest message fits the frame bound with room to spare.
    const long = await makeDirectMessage(keys.signer(playerId(1)), WORLD, nodeId(1), nodeId(2), 'Ann'.padEnd(16, 'n'), '🙂'.repeat(MAX_CHAT_CHARS), WALL);
    expect(directMessageCodec.encode(long).length).toBeLessThan(MAX_DM_FRAME);
  });
});

describe('direct messages', () => {
  it('reach only the node written to, are acknowledged, and the sender reads delivered', async () => {
    const net = new Net();
    const a = open(net, 1, 'Ann'), b = open(net, 2, 'Bob'), c = open(net, 3, 'Cy');
    const sent = await a.dms.send(b.hex, 'Bob', '  psst <img src=x> ');
    expect(sent).toMatchObject({ dir: 'out', node: b.hex, name: 'Bob', text: 'psst <img src=x>', status: 'sending' });
    await net.clock.advance(100);
    // Shown with the sender's name and colour as it signed them (Ann's tab signs colour 1).
    expect(b.got.map((e) => [e.name, e.colour, e.text, e.node, e.player])).toEqual([['Ann', 1, 'psst <img src=x>', a.hex, idToHex(a.player.id)]]);
    expect(c.got).toEqual([]);
    expect(a.statuses.map((e) => e.status)).toEqual(['delivered']);
    expect(a.dms.messages()[0]!.status).toBe('delivered');
    expect(b.dms.stats).toMatchObject({ shown: 1, acked: 1 });
    expect(Object.values(b.dms.stats.dropped).every((n) => n === 0)).toBe(true);
    // Nothing left waiting: no retry goes out later.
    await net.clock.advance(10_000);
    expect(a.dms.stats.resent).toBe(0);
  });

  it('a lost message is sent once more and shown once; with no answer at all the sender reads not delivered', async () => {
    const net = new Net();
    const a = open(net, 1, 'Ann'), b = open(net, 2, 'Bob');
    // The first ack is lost: the retry is acknowledged again, not shown again.
    let acksLost = 0;
    net.lose = (from, _to, body) => from === b.hex && directMessageCodec.decode(body).t === 'DM_ACK' && acksLost++ === 0;
    await a.dms.send(b.hex, 'Bob', 'one');
    await net.clock.advance(RETRY_MS + 100);
    expect(b.got).toHaveLength(1);
    expect(b.dms.stats).toMatchObject({ shown: 1, duplicates: 1 });
    expect(a.statuses.map((e) => e.status)).toEqual(['delivered']);
    // Bob's node stops answering: not delivered, after one retry.
    net.lose = (_from, to) => to === b.hex;
    await a.dms.send(b.hex, 'Bob', 'two');
    await net.clock.advance(GIVE_UP_MS + 100);
    expect(a.statuses.map((e) => [e.text, e.status])).toEqual([['one', 'delivered'], ['two', 'not-delivered']]);
    expect(a.dms.stats).toMatchObject({ resent: 2, notDelivered: 1 });
    // A node nobody knows the way to: not delivered too.
    await a.dms.send('ab'.repeat(20), 'Zed', 'three');
    await net.clock.advance(GIVE_UP_MS + 100);
    expect(a.statuses.at(-1)).toMatchObject({ text: 'three', status: 'not-delivered' });
  });

  it('forged, re-addressed, relayed, replayed and malformed frames change nothing and are counted', async () => {
    const net = new Net();
    const a = open(net, 1, 'Ann'), b = open(net, 2, 'Bob'), m = open(net, 3, 'Mallory');
    const at = () => WALL + net.clock.now();
    const asAnn: Signer = { ...m.player, id: a.player.id };
    const toB = (x: DirectMessage) => m.channel.send(b.self, directMessageCodec.encode(x));
    // Mallory signs with her key a message naming Ann's player, from her own node.
    toB(await makeDirectMessage(asAnn, WORLD, m.self, b.self, 'Ann', 'send me your items', at()));
    // Ann's key on it, a signature of Mallory's.
    const forged = await makeDirectMessage(asAnn, WORLD, m.self, b.self, 'Ann', 'forged', at());
    toB({ ...forged, k: a.player.publicKey });
    await net.clock.advance(100);
    expect(b.dms.stats.dropped.signature).toBe(2);
    // Ann's real message to Bob, captured on its way and sent by Mallory's node: it names Ann's node.
    let captured: Uint8Array | undefined;
    net.lose = (from, _to, body) => (from === a.hex && !captured && directMessageCodec.decode(body).t === 'DM' ? ((captured = body.slice()), false) : false);
    await a.dms.send(b.hex, 'Bob', 'real');
    await net.clock.advance(100);
    expect(b.got.map((e) => e.text)).toEqual(['real']);
    m.channel.send(b.self, captured!);
    // ... and sent to Cy: it names Bob's node.
    const c = open(net, 4, 'Cy');
    m.channel.send(c.self, captured!);
    await net.clock.advance(100);
    expect(b.dms.stats.dropped['wrong-node']).toBe(1);
    expect(c.dms.stats.dropped['not-for-us'] + c.dms.stats.dropped['wrong-node']).toBe(1);
    // Ann's node sending an older stamp again (a replay from the sender's own node): dropped.
    const old = await makeDirectMessage(a.player, WORLD, a.self, b.self, 'Ann', 'old', at() - 60_000);
    a.channel.send(b.self, directMessageCodec.encode(old));
    // A stamp far in the past or the future.
    a.channel.send(b.self, directMessageCodec.encode(await makeDirectMessage(a.player, WORLD, a.self, b.self, 'Ann', 'ancient', at() - 10 * 60_000)));
    await net.clock.advance(1000);
    a.channel.send(b.self, directMessageCodec.encode(await makeDirectMessage(a.player, WORLD, a.self, b.self, 'Ann', 'future', at() + 10 * 60_000)));
    // Junk and an oversized frame.
    m.channel.send(b.self, new Uint8Array([0x92, 0x01, 0xc0]));
    m.channel.send(b.self, new Uint8Array(MAX_DM_FRAME + 1));
    await net.clock.advance(100);
    expect(b.dms.stats.dropped).toMatchObject({ replay: 1, stale: 2, invalid: 1, oversized: 1 });
    expect(b.got.map((e) => e.text)).toEqual(['real']);
    // An ack from a node Ann did not write to moves nothing.
    m.channel.send(a.self, directMessageCodec.encode({ t: 'DM_ACK', w: a.dms.messages()[0]!.at }));
    await net.clock.advance(100);
    expect(a.dms.stats.strayAcks).toBe(1);
  });

  it('a flood from one node, and from many, is cut to the rates before any signature is checked', async () => {
    const net = new Net();
    const b = open(net, 2, 'Bob');
    const m = open(net, 3, 'Mallory', { sendBurst: 1000, sendPerSecond: 1000 });
    for (let i = 0; i < 50; i++) await m.dms.send(b.hex, 'Bob', `spam ${i}`);
    await net.clock.advance(100);
    expect(b.got).toHaveLength(NODE_BURST);
    expect(b.dms.stats.dropped['node-rate']).toBe(50 - NODE_BURST);
    // Many nodes, each with a player of its own: all of them together get the shared rate.
    const crowd = Array.from({ length: 20 }, (_, i) => open(net, 10 + i, `Bot${i}`));
    for (const bot of crowd) for (let i = 0; i < 3; i++) await bot.dms.send(b.hex, 'Bob', `bot ${i}`);
    await net.clock.advance(100);
    const shownFromCrowd = b.got.length - NODE_BURST;
    expect(shownFromCrowd).toBeLessThanOrEqual(ALL_BURST + 1);
    expect(b.dms.stats.dropped.rate).toBeGreaterThan(0);
    expect(b.dms.stats.dropped.rate + shownFromCrowd).toBe(60);
    // One node speaking as many players of its own is bounded by its node rate too; one player on many nodes by its player rate.
    await net.clock.advance(5000); // the shared rate refilled
    const p = keys.signer(playerId(99));
    const nodes = Array.from({ length: 10 }, (_, i) => ({ self: nodeId(100 + i), ch: net.channel(nodeId(100 + i)) }));
    for (const [i, n] of nodes.entries()) n.ch.send(b.self, directMessageCodec.encode(await makeDirectMessage(p, WORLD, n.self, b.self, 'Echo', `echo ${i}`, WALL + net.clock.now() + i)));
    await net.clock.advance(5000);
    expect(b.got.filter((e) => e.name === 'Echo')).toHaveLength(PLAYER_BURST);
    expect(b.dms.stats.dropped['player-rate']).toBe(10 - PLAYER_BURST);
  });

  it('the sender is refused, with a reason, what no receiver would take', async () => {
    const net = new Net();
    const a = open(net, 1, 'Ann'), b = open(net, 2, 'Bob');
    await expect(a.dms.send(b.hex, 'Bob', '   ')).rejects.toMatchObject({ code: 'empty' });
    await expect(a.dms.send(b.hex, 'Bob', 'x'.repeat(MAX_CHAT_CHARS + 1))).rejects.toMatchObject({ code: 'too-long' });
    await expect(a.dms.send(a.hex, 'Ann', 'me')).rejects.toMatchObject({ code: 'recipient' });
    await expect(a.dms.send('nope', 'Bob', 'hi')).rejects.toMatchObject({ code: 'recipient' });
    for (let i = 0; i < DIRECT_MESSAGE_DEFAULTS.sendBurst; i++) await a.dms.send(b.hex, 'Bob', `m${i}`);
    await expect(a.dms.send(b.hex, 'Bob', 'one too many')).rejects.toMatchObject({ code: 'rate' });
    await net.clock.advance(100);
    expect(b.got).toHaveLength(DIRECT_MESSAGE_DEFAULTS.sendBurst);
  });
});
