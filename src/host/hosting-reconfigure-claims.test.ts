// A primary's new host set comes while one of its backups, taking its slowness for death, is
// claiming: the backup promised its claim's epoch to itself. The primary's claim for the new
// set must go above that epoch (it refused the claim, so it knows it: election.ts
// `claimRefused`), not to the epoch after its own: the backup refused that one, and with the
// set's third host silent no majority of the old set was left, so the primary was deposed by
// its own set change (8 tabs on 2 cores; hosting-rebase-hostile's 'not deposed' case met it
// only by timing).
import { describe, expect, it } from 'vitest';
import { idToHex, sortByDistance } from '../core/node-id';
import { type RegionCoord } from '../region/region-key';
import { HostSim, type SimPeer } from '../testing/host-sim';

const R: RegionCoord = { rx: 3, rz: 1 };

describe('a primary changes its host set while its backup claims (simulated)', () => {
  it.each([1])('its claim goes above the backup\'s and wins (seed %i)', async (seed) => {
    const sim = new HostSim({ seed });
    await sim.grow(12);
    const player = await sim.editedRegion(R);
    const primary = sim.primaryOf(R)!;
    const [silent, claimant] = sim.backupsOf(R) as [SimPeer, SimPeer];
    // One backup's hosting stops (its DHT still answers pings): the other's claim waits for
    // its answer until the round times out, its promise to itself held all that while.
    silent.host.stop();
    const region = primary.host.regionState(R)!;
    const from = region.epoch;
    void claimant.host.regionState(R)!.claim(0, true);
    const own = () => claimant.host.regionState(R)!.el;
    expect(await sim.clock.runUntil(() => own().promisedTo === claimant.hex && own().promised > from, 1000), 'the backup claims').toBe(true);
    // Its CLAIM reached the primary, which refused it.
    await sim.run(100);
    expect(own().promisedTo, 'its claim is still under way').toBe(claimant.hex);
    // The primary's new set: the claimant, and a node that neither granted that claim nor is
    // silent, the nearest such to the key (a granter takes a host into the set only from its
    // own view of it: region-granter.ts).
    const asked = new Set([primary.hex, silent.hex, claimant.hex]);
    const third = sortByDistance(sim.live(), (p) => p.dht.selfId, region.key).find((p) => !asked.has(p.hex) && p.host.regionState(R)?.el.promisedTo !== claimant.hex)!;
    const hosts = sortByDistance([primary.dht.selfId, claimant.dht.selfId, third.dht.selfId], (x) => x, region.key);
    const failed = primary.host.stats.claimsFailed;
    region.reconfigure(hosts, 'test: new set');
    await sim.clock.runUntil(() => region.role === 'primary' || primary.host.stats.claimsFailed > failed, 5000);
    expect(primary.host.stats.claimsFailed - failed, 'the new set\'s claim failed').toBe(0);
    expect(sim.primariesOf(R)).toEqual([primary]);
    expect(region.cert!.hosts.map(idToHex).sort()).toEqual(hosts.map(idToHex).sort());
    expect(region.epoch).toBeGreaterThan(from + 1);
    const x = R.rx * 64 + 6, z = R.rz * 64 + 6;
    const stamp = await sim.settle(player.client.submit(x, 121, z, 1, { x, y: 121, z: z + 3 }), 10_000);
    expect(stamp.e).toBe(region.epoch);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  }, 30_000);
});
