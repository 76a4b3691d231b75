// The primary dies while one of its backups is starved (tasks of 300-600 ms: it answers a
// ping, late). The other backup's claim cannot win the old set's majority without the starved
// one's grant, so it keeps it in the new set (region-claimant.ts `liveHosts`) rather than
// take the nearest linked node answering in time in its place: that left a set holding fewer
// of the key's nearest nodes, and after one more such claim none, which readers with no
// certificate of the region refuse.
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { type RegionCoord } from '../region/region-key';
import { HostSim, type SimPeer } from '../testing/host-sim';

const R: RegionCoord = { rx: 2, rz: -1 };

describe('a claim after the primary\'s death while a backup is starved (simulated)', () => {
  it.each([2])('keeps the starved backup in the set (seed %i)', async (seed) => {
    const sim = new HostSim({ seed });
    await sim.grow(10);
    const player = await sim.editedRegion(R);
    const primary = sim.primaryOf(R)!;
    const before = primary.host.regionState(R)!.cert!;
    const [a, b] = sim.backupsOf(R) as [SimPeer, SimPeer];
    const survivors = [a, b];
    sim.starve(b.hex, 8000, 300, 600);
    sim.kill(primary.hex);
    await sim.clock.runUntil(() => survivors.some((p) => p.host.regionState(R)?.role === 'primary'), 10_000);
    const now = survivors.find((p) => p.host.regionState(R)?.role === 'primary');
    expect(now, 'a survivor took the region').toBeDefined();
    const cert = now!.host.regionState(R)!.cert!;
    expect(cert.e).toBeGreaterThan(before.e);
    expect(cert.hosts.map(idToHex), `e${cert.e} after e${before.e} (${before.hosts.map((h) => idToHex(h).slice(0, 6)).join(',')})`).toEqual(expect.arrayContaining([a.hex, b.hex]));
    const x = R.rx * 64 + 6, z = R.rz * 64 + 6;
    if (player !== primary) await sim.settle(player.client.submit(x, 121, z, 1, { x, y: 121, z: z + 3 }), 10_000);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  }, 30_000);
});
