// A HANDOFF reaches a node restarted from an old store: it holds a certificate the region
// has moved on from by epochs it missed (a host-set change, then a failover), and the
// handed certificate's grants are not a majority of the hosts it knows. Its view of the
// nodes nearest the key lists the hosts it knew (under churn a view lists dead nodes nearest
// the key for a long while), so nearness proves nothing either. Only the chain from what it
// holds proves the handed certificate, so the HANDOFF carries the certificates before it
// (docs/TRUST.md rule 1), as SYNC and SNAPSHOT do. Without them the node cannot build on the
// handed certificate, and the primary takes the region back after the handoff's wait.
import { describe, expect, it } from 'vitest';
import { idEquals, type NodeId } from '../core/node-id';
import { chainedFrom, chainLinks } from '../region/cert-anchor';
import { decodeCert } from '../region/epoch-cert';
import type { RegionCoord } from '../region/region-key';
import { HostSim, type SimPeer } from '../testing/host-sim';

const R: RegionCoord = { rx: 3, rz: 1 };

async function until(sim: HostSim, ok: () => boolean, ms: number): Promise<void> {
  const end = sim.clock.now() + ms;
  while (!ok() && sim.clock.now() < end) await sim.run(100);
}

describe('a handoff to a node restarted from an old store (simulated)', () => {
  it('is claimed at once on the handed certificate, reached through the chain the HANDOFF carries', async () => {
    const sim = new HostSim({ seed: 6 });
    await sim.grow(12);
    const editor = await sim.editedRegion(R);
    const certOf = (p: SimPeer | undefined) => p?.host.regionState(R)?.cert;
    const first = sim.primaryOf(R)!;
    const held = certOf(first)!;
    const hosts = (p: SimPeer) => held.hosts.some((h) => idEquals(h, p.dht.selfId));
    const to = sim.live().find((p) => p !== editor && p !== first && hosts(p))!;
    const id = to.dht.selfId;
    // It dies; the primary replaces it in the set (a link of the chain), then dies too, and
    // its backup claims over the changed set (another link).
    sim.kill(to.hex, { polite: true });
    await until(sim, () => !!certOf(first) && !certOf(first)!.hosts.some((h) => idEquals(h, id)), 30_000);
    sim.kill(first.hex);
    await until(sim, () => !!sim.primaryOf(R) && sim.primaryOf(R) !== first, 15_000);
    await sim.run(1000);
    const primary = sim.primaryOf(R)!;
    const now = certOf(primary)!;
    // The handed certificate is not one the node could take from its own (rule 1), but the
    // primary's chain leads to it from there.
    expect(chainedFrom(now, held)).toBe(false);
    const walked = chainLinks(held, primary.host.regionState(R)!.chain, now.e).at(-1);
    expect(walked && chainedFrom(now, walked)).toBe(true);

    // The node comes back: the same node id, its host store kept (a reloaded tab), so it
    // starts from the certificate it held. Its view lists the hosts it knew from before it
    // joins. It lies nearer the key than a host of the primary's set, so the primary hands it
    // the region as soon as they link, while it still joins: its app channels, made before
    // the join, hold the HANDOFF for its host (bootstrap/peer.ts).
    const stored = await sim.stores.get(to.hex)!.load(R.rx, R.rz);
    expect(decodeCert(stored!.cert!)?.e, 'it restarts holding the old certificate').toBe(held.e);
    const stale: NodeId[] = held.hosts;
    const handoffs = primary.host.stats.handoffs;
    const back = await sim.add(id, { beforeJoin: (dht) => { dht.nearView.near = () => stale; } });
    await until(sim, () => sim.primaryOf(R) === back, 1500);
    expect(primary.host.stats.handoffs, 'the primary handed it the region').toBe(handoffs + 1);
    expect(sim.primaryOf(R), 'the node handed the region is its primary').toBe(back);
    expect(certOf(back)!.prev?.e, 'its claim built on the handed certificate').toBe(now.e);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
