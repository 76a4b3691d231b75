// A subscriber cut off while its region failed over twice comes back holding a certificate
// two epochs old. The newest one's grants are not a majority of the hosts it knows, and the
// new hosts need not be near the key in its view: under churn a view lists dead nodes
// nearest the key for a long while (silent deaths leave links open; in hosting-churn seed 10
// seven of a subscriber's eight nearest were dead, and all six subscribers of a region stayed
// detached from its live primary to the end). Only the chain from the certificate it holds
// proves the new primary, so the SNAPSHOT carries the certificates between (docs/TRUST.md
// rule 1).
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { chainedFrom } from '../region/cert-anchor';
import { HostSim, type SimPeer } from '../testing/host-sim';
import type { RegionCoord } from '../region/region-key';

const R: RegionCoord = { rx: 3, rz: 1 };

describe('a subscriber that missed epochs (simulated)', () => {
  it("attaches to the new primary through the chain its SNAPSHOT carries, though the new hosts are not near the key in the subscriber's view", async () => {
    const sim = new HostSim({ seed: 6 });
    await sim.grow(12);
    const editor = await sim.editedRegion(R);
    const hostOf = (p: SimPeer) => !!p.host.regionState(R)?.cert?.hosts.some((h) => idToHex(h) === p.hex);
    const sub = sim.live().find((p) => p !== editor && !hostOf(p))!;
    await sim.settle(sub.client.subscribe(R));
    await sim.run(1000);
    const primaryCert = () => sim.primaryOf(R)?.host.regionState(R)?.cert;
    const held = primaryCert()!;
    expect(sub.client.attachment(R)?.epoch).toBe(held.e);

    // Cut off, it misses two failovers (each primary dies silently).
    sim.net.partition([[sub.dht.selfId], sim.live().filter((p) => p !== sub).map((p) => p.dht.selfId)]);
    for (let i = 0; i < 2; i++) {
      const victim = sim.primaryOf(R)!;
      sim.kill(victim.hex);
      const until = sim.clock.now() + 10_000;
      while ((!sim.primaryOf(R) || sim.primaryOf(R) === victim) && sim.clock.now() < until) await sim.run(100);
      await sim.run(1000);
    }
    const now = primaryCert()!;
    // The newest certificate is not one the subscriber could take from its own (rule 1).
    expect(chainedFrom(now, held)).toBe(false);

    // Its view of the nodes nearest the key: the hosts it knew, dead or alive.
    const stale: NodeId[] = held.hosts;
    sub.dht.nearView!.near = () => stale;
    sim.net.heal();
    const until = sim.clock.now() + 15_000;
    while (sub.client.attachment(R)?.epoch !== now.e && sim.clock.now() < until) await sim.run(200);
    expect(sub.client.attachment(R)).toEqual({ primary: idToHex(now.primary), epoch: now.e });
    expect(sub.client.state(R)!.fingerprint()).toBe(sim.primaryOf(R)!.host.regionState(R)!.state.fingerprint());
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
