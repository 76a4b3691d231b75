// A peer that dies silently keeps its links open at the other ends until the heartbeat
// timeout (minutes in a large network's settings), and every request sent into such a link
// is lost. A request that goes unanswered over a link that has carried nothing since makes
// its sender PING the link at once and close it if silent (dht-node.ts silentSince), so the
// next request takes another route within seconds.
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { SimCluster } from '../testing/sim-cluster';
import { nextHop } from './router';

// Heartbeats that would take 3 minutes to notice a death; plain greedy routing, so the
// route of a request is known in advance.
const SLOW_DEATH = { heartbeatMs: 60_000, heartbeatTimeoutMs: 180_000, failureCheckMs: 60_000, rpcTimeoutMs: 2000, spreadRoutes: false, joinRefresh: 'empty' as const };

describe('a silently dead first hop', () => {
  it('is closed within two RPC timeouts of a request lost in it, direct or routed', async () => {
    const c = new SimCluster({ seed: 5, dht: SLOW_DEATH });
    await c.grow(40, { maxBatch: 20 });
    await c.run(10_000);
    const [a] = [...c.nodes.values()];
    // A routed target of a: one it holds no link to, routed through a link b.
    const target = [...c.nodes.values()].find((n) => n !== a && !a!.links.map.has(n.selfHex) && nextHop(a!.selfId, n.selfId, a!.links.map, true) !== null)!;
    const b = nextHop(a!.selfId, target.selfId, a!.links.map, true)!;
    c.kill(b.hex);
    const t0 = c.clock.now();
    expect(await c.settle(a!.ping(target.selfId))).toBe(false); // lost inside b
    await c.run(2500); // b's probe goes unanswered
    expect(a!.links.map.has(b.hex)).toBe(false);
    expect(c.clock.now() - t0).toBeLessThan(5000);
    expect(a!.stats.suspectsDropped).toBe(1);
    // The next request goes another way and is answered.
    expect(await c.settle(a!.ping(target.selfId))).toBe(true);

    // Direct: a request to a linked peer that died, unanswered, closes its link too.
    const d = [...a!.links.map.values()].find((l) => c.nodes.has(l.hex))!;
    c.kill(d.hex);
    expect(await c.settle(a!.ping(d.id))).toBe(false);
    await c.run(2500);
    expect(a!.links.map.has(d.hex)).toBe(false);
    expect(a!.stats.suspectsDropped).toBe(2);
    // A live link that answers stays open.
    const live = [...a!.links.map.values()].find((l) => c.nodes.has(l.hex) && idToHex(l.id) !== target.selfHex)!;
    expect(await c.settle(a!.ping(live.id))).toBe(true);
    expect(a!.links.map.has(live.hex)).toBe(true);
    c.stopAll();
  }, 30_000);
});
