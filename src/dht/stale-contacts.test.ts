// A node that vanishes leaves every table within the heartbeat timeout, also the tables of
// nodes that knew it only through lookups and held no link to it (their routed probe starts
// early enough to time out by then).
import { describe, expect, it } from 'vitest';
import { SimCluster } from '../testing/sim-cluster';

describe('stale contacts', () => {
  it('a killed node is dropped from every table, linked or not, within the heartbeat timeout', async () => {
    // A small link budget: most contacts are known without a direct link. The bound holds
    // while the probe budget covers every unlinked contact (~8 of them here, each probed
    // once per ~12 s of silence): 6 per heartbeat (5 s).
    // Partition healing's relay dials (every dormantProbeMs) open links whose lookups can
    // teach a node the victim again from a table that has not dropped it yet: this test
    // bounds stale-contact dropping alone, so those dials stay at their old, slow pace here.
    const c = new SimCluster({ seed: 5, dht: { maxLinks: 3, softLinks: 2, linksPerBucket: 1, rpcTimeoutMs: 2000, staleProbesPerHeartbeat: 6, dormantProbeMs: 60_000 } });
    await c.grow(12);
    await c.clock.advance(10_000);
    const victim = c.pick();
    const knewIt = [...c.nodes.values()].filter((n) => n !== victim && n.table.has(victim.selfHex));
    const unlinked = knewIt.filter((n) => !n.linkInfo().some((l) => l.hex === victim.selfHex));
    expect(unlinked.length).toBeGreaterThan(0); // the case this test is about
    c.kill(victim.selfHex);
    const o = victim.opts;
    await c.clock.advance(o.heartbeatTimeoutMs - 3000);
    // Not too early: a contact is not dropped on the first silence (it is probed first).
    const early = [...c.nodes.values()].filter((n) => n.table.has(victim.selfHex)).length;
    expect(early).toBeGreaterThan(0);
    await c.clock.advance(3000);
    const still = [...c.nodes.values()].filter((n) => n.table.has(victim.selfHex)).map((n) => n.selfHex.slice(0, 6));
    expect(still).toEqual([]);
    c.stopAll();
  });
});
