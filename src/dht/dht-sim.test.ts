// The real DHT on 200 simulated nodes (in-memory network, virtual clock).
import { beforeAll, describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { MAX_FRAME } from './messages';
import { SimCluster } from '../testing/sim-cluster';

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
    // Budget upkeep only, never one per hop (10 lookups cross 30+ hops). Upkeep dials while
    // the lookups run: 10 here with lookup retries (LOOKUP_ATTEMPTS 5, lookups.ts), 9 or fewer before.
    expect(after - dials).toBeLessThan(20);
  });

  it('a routed message reaches any node', async () => {
    const got = new Map<string, string>();
    for (const n of c.nodes.values()) n.events.on('message', ({ from, body }) => got.set(n.selfHex, `${idToHex(from)}:${new TextDecoder().decode(body)}`));
    const from = c.pick();
    const targets = [...c.nodes.values()].filter((n) => n !== from);
    const sentBefore = from.stats.routedSentByType.DATA ?? 0;
    const deliveredBefore = targets.reduce((s, t) => s + (t.stats.routedDeliveredByType.DATA ?? 0), 0);
    for (const t of targets) from.send(t.selfId, new TextEncoder().encode('hi'));
    await c.clock.advance(5_000);
    for (const t of targets) expect(got.get(t.selfHex)).toBe(`${from.selfHex}:hi`);
    expect(from.stats.routedSent + from.stats.framesOut).toBeGreaterThan(0);
    // Each went over a link or was routed, and the counters by type say which.
    const routed = (from.stats.routedSentByType.DATA ?? 0) - sentBefore;
    expect(routed).toBeGreaterThan(0);
    expect(targets.reduce((s, t) => s + (t.stats.routedDeliveredByType.DATA ?? 0), 0) - deliveredBefore).toBe(routed);
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
