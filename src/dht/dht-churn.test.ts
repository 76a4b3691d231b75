// The real DHT under churn and partitions (in-memory network, virtual clock). Its wall time
// says nothing about what it tests (8 CPU-s a test alone; a CI run beside the other unit
// files and the simulations took over 20 s): the timeout only guards against a hang.
import { describe, expect, it } from 'vitest';
import { randomId } from '../core/node-id';
import { SimCluster } from '../testing/sim-cluster';
import { SIM_TIMEOUT_MS } from '../testing/sim-timeout';

const SIM = { heartbeatMs: 30_000, heartbeatTimeoutMs: 90_000, joinRefresh: 'empty' as const };

describe('DHT under churn and partitions', () => {
  it('values survive 30% of the nodes leaving', async () => {
    const c = new SimCluster({ seed: 11, dht: SIM });
    await c.grow(200, { maxBatch: 50 });
    const keys = Array.from({ length: 40 }, () => randomId(c.rand));
    await c.settle(Promise.all(keys.map((k, i) => c.pick().put('test', k, new Uint8Array([i])))));
    const hexes = [...c.nodes.keys()];
    for (let i = 0; i < 60; i++) c.kill(hexes.splice(Math.floor(c.rand() * hexes.length), 1)[0]!);
    // Silent deaths are noticed by the heartbeat timeout (90 s here), not at once.
    // TODO: at 60 s (dead contacts not yet dropped) 3 of these 40 gets (keys 22, 36,
    // 39, seed 11) returned nothing after ~34 s: a get under undetected churn can miss.
    await c.clock.advance(120_000);
    const got = await c.settle(Promise.all(keys.map((k) => c.pick().get('test', k))));
    got.forEach((v, i) => expect(v?.value[0]).toBe(i));
    c.stopAll();
  }, SIM_TIMEOUT_MS);

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
  }, SIM_TIMEOUT_MS);
});
