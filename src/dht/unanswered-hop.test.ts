// A link handed a request that has answered nothing since is passed over as a hop after
// `unansweredHopMs` and PINGed (overlay-router.ts `unanswered`): a peer that died silently
// swallows every route through it until the heartbeat timeout, and the RPC timeout that
// otherwise reveals it (dead-hop.test.ts) comes seconds later.
import { describe, expect, it } from 'vitest';
import { SimCluster } from '../testing/sim-cluster';
import { nextHop } from './router';

// Heartbeats that take minutes to notice a death, the app's RPC timeout, plain greedy
// routing (the route of a frame is known in advance).
const SLOW_DEATH = { heartbeatMs: 60_000, heartbeatTimeoutMs: 180_000, failureCheckMs: 60_000, rpcTimeoutMs: 4000, spreadRoutes: false, joinRefresh: 'empty' as const };

async function afterLostRequest(unansweredHopMs: number) {
  const c = new SimCluster({ seed: 11, dht: { ...SLOW_DEATH, unansweredHopMs } });
  await c.grow(60, { maxBatch: 20 });
  await c.run(10_000);
  // A sender, a destination it holds no link to, its first hop there, and another link that makes progress.
  const nodes = [...c.nodes.values()];
  let pick: { from: (typeof nodes)[number]; to: (typeof nodes)[number]; hop: string } | undefined;
  for (const from of nodes) {
    for (const to of nodes) {
      if (pick || to === from || from.links.map.has(to.selfHex)) continue;
      const hop = nextHop(from.selfId, to.selfId, from.links.map, true);
      const other = hop && nextHop(from.selfId, to.selfId, from.links.map, true, (l) => l.hex === hop.hex);
      if (hop && other && hop.hex !== to.selfHex) pick = { from, to, hop: hop.hex };
    }
  }
  const { from, to, hop } = pick!;
  const got: string[] = [];
  to.events.on('message', ({ body }) => got.push(new TextDecoder().decode(body)));
  c.kill(hop);
  void from.ping(to.selfId); // a request, lost inside the dead hop
  await c.clock.advance(1100);
  from.send(to.selfId, new TextEncoder().encode('after 1.1 s'));
  await c.clock.advance(300); // still within the ping's RPC timeout
  const closedBy = (ms: number) => c.clock.advance(ms).then(() => !from.links.map.has(hop));
  return { got, closedAt5s: await closedBy(3800), suspectsDropped: () => from.stats.suspectsDropped, stop: () => c.stopAll() };
}

describe('a link that answers nothing', () => {
  it('is passed over a second after a request went into it, and closed once its PING times out', async () => {
    const on = await afterLostRequest(1000);
    expect(on.got).toEqual(['after 1.1 s']);
    expect(on.closedAt5s).toBe(true); // PINGed at 1.1 s, closed at its 4 s timeout
    expect(on.suspectsDropped()).toBe(1);
    on.stop();
    // Without the rule the next frame goes into the dead hop too, until the request's RPC
    // timeout (4 s) and a probe (4 s more) close it.
    const off = await afterLostRequest(0);
    expect(off.got).toEqual([]);
    expect(off.closedAt5s).toBe(false);
    off.stop();
  });
});

/**
 * A stream of data (no request) from a sender to a node it holds no link to, routed through
 * a forwarder whose next hop toward it dies silently: what reaches the destination, the
 * sender's second frame on, at 100 ms apart for 3 s.
 */
async function dataPastDeadHop(unansweredHopMs: number) {
  const c = new SimCluster({ seed: 11, dht: { ...SLOW_DEATH, unansweredHopMs } });
  await c.grow(60, { maxBatch: 20 });
  await c.run(10_000);
  const nodes = [...c.nodes.values()];
  let pick: { from: (typeof nodes)[number]; to: (typeof nodes)[number]; dead: string } | undefined;
  for (const from of nodes) {
    for (const to of nodes) {
      if (pick || to === from || from.links.map.has(to.selfHex)) continue;
      // The sender's first hop, that one's next hop (not the destination, nor a link of the
      // sender's), and another link of the forwarder that makes progress.
      const fwd = nextHop(from.selfId, to.selfId, from.links.map, false);
      const f = fwd && fwd.hex !== to.selfHex ? c.nodes.get(fwd.hex) : undefined;
      const dead = f && nextHop(f.selfId, to.selfId, f.links.map, false, (l) => l.hex === from.selfHex);
      if (!f || !dead || dead.hex === to.selfHex || from.links.map.has(dead.hex)) continue;
      const other = nextHop(f.selfId, to.selfId, f.links.map, false, (l) => l.hex === from.selfHex || l.hex === dead.hex);
      if (other) pick = { from, to, dead: dead.hex };
    }
  }
  const { from, to, dead } = pick!;
  const got: number[] = [];
  to.events.on('message', ({ body }) => got.push(Number(new TextDecoder().decode(body))));
  c.kill(dead);
  for (let i = 0; i < 30; i++) {
    from.send(to.selfId, new TextEncoder().encode(String(i)));
    await c.clock.advance(100);
  }
  await c.clock.advance(500);
  c.stopAll();
  return got;
}

describe('a forwarder handing data into a dead hop', () => {
  // The subscriber of a region's new primary routed its SUBSCRIBE and edits through a node
  // whose next hop was the crashed old primary, still linked at that node's end: every frame
  // was lost until that link's heartbeat probe (sim_failover_silent seed 28, 5.8 s).
  it('passes it over a second after the first frame went into it', async () => {
    const on = await dataPastDeadHop(1000);
    // The frames of the first second are lost inside the dead hop; from then on the
    // forwarder takes another link, every frame of the last 1.5 s arrives.
    for (let i = 15; i < 30; i++) expect(on).toContain(i);
    // The heartbeat (a minute) is what closes the dead link without the watch: nothing arrives.
    expect(await dataPastDeadHop(0)).toEqual([]);
  });
});
