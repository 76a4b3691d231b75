// Ids that cost work, at every point a node deals with another: honest nodes asking 8 bits
// on the in-memory network, and a hostile node whose id shows less. It gets no link either
// way, no place in a table, no route through anyone, and no place in a lookup, while the
// honest nodes (and one with a worked id that lies for it) carry on among themselves.
import { describe, expect, it } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import type { Random } from '../core/seeded-random';
import { HostileLink } from '../testing/fuzz-dht-target';
import { SimWorld } from '../testing/sim-world';
import type { DhtNode, DhtOptions } from './dht-node';
import { idGate } from './id-gate';
import { dhtCodec } from './messages';
import { encodeRoute } from './route-frame';

const BITS = 8;

/** A drawn id that shows BITS of work (1 in 256 does), or one that does not. */
function drawId(rand: Random, worked: boolean): NodeId {
  for (;;) {
    const id = randomId(rand);
    if (idWorkOk(id, BITS) === worked) return id;
  }
}

class IdWorld extends SimWorld {
  constructor() {
    super({ seed: 41 }, 60_000);
  }
  node(worked: boolean, boot?: NodeId, opts: Partial<DhtOptions> = {}): DhtNode {
    return this.makeDht(drawId(this.rand, worked), boot ? [boot] : [], { idWorkBits: BITS, ...opts });
  }
}

const refused = (n: DhtNode) => ({ ...n.stats.idWorkRefused });
const knows = (n: DhtNode, id: NodeId) => n.table.has(idToHex(id)) || n.linked(idToHex(id));

describe('ids that cost work in the DHT', () => {
  it('a node whose id shows too little work is refused a link, a table entry, a route and a place in lookups', async () => {
    const w = new IdWorld();
    const honest = [w.node(true)];
    await w.settle(honest[0]!.start());
    for (let i = 0; i < 4; i++) {
      const n = w.node(true, honest[0]!.selfId);
      await w.settle(n.start());
      honest.push(n);
    }
    await w.run(5_000);
    const [h0, h1, h2, h3, h4] = honest as [DhtNode, DhtNode, DhtNode, DhtNode, DhtNode];
    for (const n of honest) expect(n.table.size).toBe(4);

    // Link, inbound: a hostile node (asking nothing of others) dials in to join, and its
    // join fails: the only link it got is let go at once.
    const joiner = w.node(false, h0.selfId, { idWorkBits: 0 });
    await expect(w.settle(joiner.start())).rejects.toThrow();
    expect(refused(h0).link).toBe(1);
    expect(honest.some((n) => knows(n, joiner.selfId))).toBe(false);
    // Link, outbound: an honest node that dials one (through the relay) lets the link go.
    const x = w.node(false, undefined, { idWorkBits: 0 });
    await w.settle(x.start());
    h1.reach(x.selfId);
    await w.run(1_000);
    expect(refused(h1).link).toBe(1);
    expect(h1.linked(idToHex(x.selfId))).toBe(false);

    // Table: named to a node directly, it is not added.
    h2.addContact(x.selfId);
    expect(refused(h2).contact).toBe(1);
    expect(h2.table.has(idToHex(x.selfId))).toBe(false);

    // Answers: a node with a worked id, asking nothing itself, keeps the hostile one in its
    // table and names it in its answers; a lookup for the hostile id leaves it out.
    const liar = w.node(true, h0.selfId, { idWorkBits: 0 });
    await w.settle(liar.start());
    await w.run(2_000);
    liar.addContact(x.selfId);
    expect(liar.table.has(idToHex(x.selfId))).toBe(true);
    const found = await w.settle(h3.findNode(x.selfId));
    expect(refused(h3).answer).toBeGreaterThanOrEqual(1);
    expect(found.closest.map((c) => idToHex(c.id))).not.toContain(idToHex(x.selfId));
    expect(knows(h3, x.selfId)).toBe(false);

    // Routes: frames whose source is the hostile id, handed to h4 by a linked peer (the
    // liar, say), are dropped whether h4 is their destination or a forwarder; the same
    // frames from a worked source go through.
    const via = new HostileLink(liar.selfId);
    expect(h4.links.attach(via, false, true)).toBe(true);
    const got: string[] = [];
    h4.events.on('message', ({ from }) => void got.push(idToHex(from)));
    const data = dhtCodec.encode({ t: 'DATA', body: new Uint8Array([1]) });
    const route = (id: number, src: NodeId, dst: NodeId) => encodeRoute({ id, ttl: 8, src, dst, trace: [], via: [], body: data }).slice();
    const before = { ...h4.stats };
    via.write(route(1, x.selfId, h4.selfId));
    via.write(route(2, x.selfId, h0.selfId));
    await w.run(100);
    expect(refused(h4).route).toBe(2);
    expect([h4.stats.routedDelivered, h4.stats.routedForwarded]).toEqual([before.routedDelivered, before.routedForwarded]);
    via.write(route(3, liar.selfId, h4.selfId));
    via.write(route(4, liar.selfId, h0.selfId));
    await w.run(100);
    expect(got).toEqual([idToHex(liar.selfId)]);
    expect(h4.stats.routedForwarded).toBe(before.routedForwarded + 1);
    expect(refused(h4).route).toBe(2);

    // And the honest nodes never took it in at all, anywhere.
    for (const n of honest) expect(knows(n, x.selfId)).toBe(false);
    for (const n of [...honest, liar, x, joiner]) n.stop();
  });

  it('asks nothing, and counts nothing, at 0 bits', () => {
    const counts = { link: 0, contact: 0, route: 0, answer: 0 };
    expect(idGate(0, counts)(drawId(Math.random, false), 'link')).toBe(true);
    const gate = idGate(BITS, counts);
    expect(gate(drawId(Math.random, false), 'route')).toBe(false);
    expect(gate(drawId(Math.random, true), 'route')).toBe(true);
    expect(counts).toEqual({ link: 0, contact: 0, route: 1, answer: 0 });
  });
});
