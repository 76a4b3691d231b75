// A node that hosts nothing (a `?hosting=off` tab: a full DHT node, no hosting service) is
// never taken into a region's host set, however near its id: it answers pings, but it never
// grants a claim nor acks a replica, so a set holding it is smaller than it looks, and it is
// sent every beat and SYNC of the region for nothing (the member tab of `npm run bench --
// tab_cpu` took ~120 such frames a second).
import { describe, expect, it } from 'vitest';
import { idEquals, idToHex } from '../core/node-id';
import { RegionKeys } from '../region/region-key';
import { HostSim, simKeyHash, type SimPeer } from '../testing/host-sim';
import { STONE } from '../world/blocks';

describe('a node that hosts nothing (simulated)', () => {
  it('is left out of the host set of a region whose key it stands next to, and the region is held by the hosts behind it', async () => {
    const sim = new HostSim({ seed: 11 });
    await sim.grow(8);
    const region = { rx: 0, rz: 0 };
    const key = await new RegionKeys(sim.world, simKeyHash).key(region);
    // The two ids nearest the key there can be (distance 1 and 2): without the flag they are
    // two of the region's three hosts, and no claim ever finds a majority.
    const idle: SimPeer[] = [];
    for (const bit of [1, 2]) {
      const id = new Uint8Array(key);
      id[id.length - 1]! ^= bit;
      idle.push(await sim.add(id, { noHost: true }));
    }
    const player = sim.live().find((p) => !idle.includes(p))!;
    await sim.settle(player.client.subscribe(region));
    const stamp = await sim.settle(player.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
    expect(stamp.e).toBeGreaterThan(0);
    await sim.run(3000);
    const primary = sim.primaryOf(region);
    expect(primary, 'a primary holds the region').toBeDefined();
    const hosts = primary!.host.regionState(region)!.cert!.hosts;
    expect(hosts.map(idToHex).filter((h) => idle.some((p) => p.hex === h)), 'hosts that host nothing').toEqual([]);
    expect(hosts).toHaveLength(3);
    expect(sim.live().filter((p) => p.host.roles().backup.includes('0,0'))).toHaveLength(2);
    // Their links carry no region's frames: nobody counts them as hosts.
    for (const p of idle) expect(hosts.some((h) => idEquals(h, p.dht.selfId))).toBe(false);
    sim.stopAll();
  });
});
