// The real DHT on 200 simulated nodes (in-memory network, virtual clock).
import { beforeAll, describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { MAX_FRAME } from './messages';
import { SimCluster } from './sim-cluster';

const SIM = { heartbeatMs: 30_000, heartbeatTimeoutMs: 90_000, joinRefresh: 'empty' as const };

describe('DHT on 200 simulated nodes', () => {
  let c: SimCluster;
  beforeAll(async () => {
    c = new SimCluster({ seed: 7, dht: SIM });
    await c.grow(200, { maxBatch: 50 });
    await c.clock.advance(30_000);
  }, 60_000);

  it('every lookup returns the true k closest (brute force)', async () => {
    const jobs = Array.from({ length: 40 }, () => {
      const from = c.pick();
      const target = randomId(c.rand);
      return from.findNode(target).then((res) => ({ got: res.closest.map((x) => x.hex), want: c.trueClosest(target, 20, from.selfHex), hops: res.hops }));
    });
    const results = await c.settle(Promise.all(jobs));
    for (const r of results) expect(r.got).toEqual(r.want);
    expect(Math.max(...results.map((r) => r.hops))).toBeLessThanOrEqual(5);
  });

  it('keeps links within the budget, and no lookup dialled', async () => {
    for (const n of c.nodes.values()) expect(n.links.size).toBeLessThanOrEqual(32);
    const dials = [...c.nodes.values()].reduce((s, n) => s + n.stats.dials, 0);
    const from = c.pick();
    await c.settle(Promise.all(Array.from({ length: 10 }, () => from.findNode(randomId(c.rand)))));
    const after = [...c.nodes.values()].reduce((s, n) => s + n.stats.dials, 0);
    expect(after - dials).toBeLessThan(10); // budget upkeep only, never one per hop
  });

  it('a routed message reaches any node', async () => {
    const got = new Map<string, string>();
    for (const n of c.nodes.values()) n.events.on('message', ({ from, body }) => got.set(n.selfHex, `${idToHex(from)}:${new TextDecoder().decode(body)}`));
    const from = c.pick();
    const targets = [...c.nodes.values()].filter((n) => n !== from);
    for (const t of targets) from.send(t.selfId, new TextEncoder().encode('hi'));
    await c.clock.advance(5_000);
    for (const t of targets) expect(got.get(t.selfHex)).toBe(`${from.selfHex}:hi`);
    expect(from.stats.routedSent + from.stats.framesOut).toBeGreaterThan(0);
  });

  it('put/get across the network; oversized values refused', async () => {
    const key = randomId(c.rand);
    const res = await c.settle(c.pick().put('player', key, new TextEncoder().encode('alice@1,2,3')));
    expect(res.stored).toBeGreaterThanOrEqual(15);
    const v = await c.settle(c.pick().get('player', key));
    expect(new TextDecoder().decode(v!.value)).toBe('alice@1,2,3');
    expect(await c.settle(c.pick().get('player', randomId(c.rand)))).toBeUndefined();
    await expect(c.pick().put('chunk', key, new Uint8Array(2000))).rejects.toMatchObject({ name: 'ValueTooLargeError' });
  });

  it('a link that keeps sending junk is dropped', async () => {
    const a = c.pick();
    const pl = [...a.links.map.values()][0]!;
    const b = c.nodes.get(pl.hex)!;
    const peerLink = b.links.get(a.selfHex)!.link;
    for (let i = 0; i < 10; i++) peerLink.send(new Uint8Array([0xc1, i]));
    peerLink.send(new Uint8Array(MAX_FRAME + 10));
    await c.clock.advance(1000);
    expect(a.stats.dropped.malformed).toBeGreaterThanOrEqual(8);
    expect(a.stats.junkLinksClosed).toBe(1);
    expect(a.links.get(b.selfHex)?.link === peerLink).toBe(false);
  });
});

describe('DHT under churn and partitions', () => {
  it('values survive 30% of the nodes leaving', async () => {
    const c = new SimCluster({ seed: 11, dht: SIM });
    await c.grow(200, { maxBatch: 50 });
    const keys = Array.from({ length: 40 }, () => randomId(c.rand));
    await c.settle(Promise.all(keys.map((k, i) => c.pick().put('test', k, new Uint8Array([i])))));
    const hexes = [...c.nodes.keys()];
    for (let i = 0; i < 60; i++) c.kill(hexes.splice(Math.floor(c.rand() * hexes.length), 1)[0]!);
    await c.clock.advance(60_000);
    const got = await c.settle(Promise.all(keys.map((k) => c.pick().get('test', k))));
    got.forEach((v, i) => expect(v?.value[0]).toBe(i));
    c.stopAll();
  }, 20_000);

  it('a partition heals: lookups and values work across it again', async () => {
    const c = new SimCluster({ seed: 13, dht: SIM, net: { partitionCloseMs: 2000 } });
    await c.grow(120, { maxBatch: 40 });
    const nodes = [...c.nodes.values()];
    const left = nodes.filter((_, i) => i % 2 === 0);
    const right = nodes.filter((_, i) => i % 2 === 1);
    c.net.partition([left.map((n) => n.selfId), right.map((n) => n.selfId)]);
    await c.clock.advance(120_000);
    // While split, a value put on the left side is stored on the left only.
    const key = randomId(c.rand);
    await c.settle(left[0]!.put('test', key, new Uint8Array([42])));
    c.net.heal();
    await c.clock.advance(240_000); // relay probes of dropped contacts, empty-bucket refresh, re-replication
    const res = await c.settle(right[1]!.findNode(left[2]!.selfId));
    expect(res.closest[0]?.hex).toBe(left[2]!.selfHex);
    const v = await c.settle(right[3]!.get('test', key));
    expect(v?.value[0]).toBe(42);
    let crossLinks = 0;
    const leftSet = new Set(left.map((n) => n.selfHex));
    for (const n of right) for (const h of n.links.map.keys()) if (leftSet.has(h)) crossLinks++;
    expect(crossLinks).toBeGreaterThan(0);
    c.stopAll();
  }, 20_000);
});
