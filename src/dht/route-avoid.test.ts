// A node taken for dead (`suspect`) is passed over as a hop at once, before its probe ends:
// a tab that crashed keeps its links open at the other ends, and every frame routed through
// it was lost until the probe closed the link (the slow failovers `npm run bench -- sim_failover` showed).
import { describe, expect, it } from 'vitest';
import { nextHop } from './router';
import { SimCluster } from '../testing/sim-cluster';

const SIM = { heartbeatMs: 30_000, heartbeatTimeoutMs: 90_000, joinRefresh: 'empty' as const, rpcTimeoutMs: 600 };

describe('routes around a suspected node', () => {
  it('a frame whose first hop died silently is lost; once the hop is suspected, the next one arrives at once', async () => {
    const c = new SimCluster({ seed: 11, dht: SIM });
    await c.grow(60, { maxBatch: 20 });
    await c.clock.advance(10_000);
    // A sender, a destination it holds no link to, and the first hop its frames take.
    const nodes = [...c.nodes.values()];
    let pick: { from: (typeof nodes)[number]; to: (typeof nodes)[number]; hop: string } | undefined;
    for (const from of nodes) {
      for (const to of nodes) {
        if (to === from || from.links.map.has(to.selfHex)) continue;
        const hop = nextHop(from.selfId, to.selfId, from.links.map, true);
        // Another link must make progress too, or there is no other way.
        const other = hop && nextHop(from.selfId, to.selfId, from.links.map, true, (l) => l.hex === hop.hex);
        if (hop && other && hop.hex !== to.selfHex) pick ??= { from, to, hop: hop.hex };
      }
    }
    expect(pick).toBeDefined();
    const { from, to, hop } = pick!;
    const got: string[] = [];
    to.events.on('message', ({ body }) => got.push(new TextDecoder().decode(body)));
    c.kill(hop);
    from.send(to.selfId, new TextEncoder().encode('lost'));
    await c.clock.advance(300);
    expect(got).toEqual([]);
    expect(from.links.map.has(hop)).toBe(true); // still looks open from here
    from.suspect(from.links.map.get(hop)!.id);
    from.send(to.selfId, new TextEncoder().encode('around'));
    await c.clock.advance(300); // before the probe's RPC timeout
    expect(got).toEqual(['around']);
    await c.clock.advance(1000);
    expect(from.links.map.has(hop)).toBe(false); // the probe found it dead
  });
});
