// Dht.ping (dht-node.ts): pings of one peer asked for together share one PING; a dead peer
// still fails them; with pingFreshMs, a linked peer heard from that recently is alive without one.
import { describe, expect, it } from 'vitest';
import { SimCluster } from '../testing/sim-cluster';
import type { DhtNode } from './dht-node';

const pingsSent = (n: DhtNode) => n.stats.framesOutByType.PING ?? 0;

async function linkedPair(dht: { pingFreshMs?: number } = {}) {
  const c = new SimCluster({ seed: 7, dht });
  await c.grow(6);
  await c.run(5_000);
  const a = c.pick();
  const b = c.nodes.get([...a.links.map.keys()].find((hex) => c.nodes.has(hex))!)!;
  return { c, a, b };
}

describe('Dht.ping', () => {
  it('with pingFreshMs, answers true without a PING for a linked peer just heard from', async () => {
    const { c, a, b } = await linkedPair({ pingFreshMs: 250 });
    expect(await c.settle(a.ping(b.selfId))).toBe(true); // its PONG (or other frame) just came
    const sent = pingsSent(a);
    expect(await a.ping(b.selfId)).toBe(true);
    expect(pingsSent(a)).toBe(sent);
    expect(a.stats.pingsSpared).toBeGreaterThan(0);
  });

  it('by default (pingFreshMs 0) always sends a PING', async () => {
    const { c, a, b } = await linkedPair();
    expect(await c.settle(a.ping(b.selfId))).toBe(true);
    const sent = pingsSent(a);
    expect(await c.settle(a.ping(b.selfId))).toBe(true);
    expect(pingsSent(a)).toBe(sent + 1);
    expect(a.stats.pingsSpared).toBe(0);
  });

  it('shares one PING among pings asked for within pingShareMs, and a dead peer fails them', async () => {
    const { c, a, b } = await linkedPair();
    c.kill(b.selfHex);
    await c.run(a.opts.pingFreshMs + 1);
    const sent = pingsSent(a);
    const pings = Promise.all([a.ping(b.selfId), a.ping(b.selfId), a.ping(b.selfId)]);
    expect(pingsSent(a)).toBe(sent + 1); // sent at once over the link
    // Past pingShareMs a ping goes out again, though the first is still unanswered.
    await c.run(a.opts.pingShareMs + 1);
    const again = a.ping(b.selfId);
    expect(pingsSent(a)).toBe(sent + 2);
    expect(await c.settle(pings)).toEqual([false, false, false]);
    expect(await c.settle(again)).toBe(false);
    expect(a.stats.pingsShared).toBe(2);
  });
});
