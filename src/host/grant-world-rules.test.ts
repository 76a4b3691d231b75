// The world's rules on a claim's merge of its granters' state (region-claimant.ts onGrant):
// a host of the set whose store holds what no edit may write (AIR at the world floor, a
// block that cannot be placed: a corrupt store, or a host an attacker runs) hands it on in
// its GRANT when the primary fails over. The claimant merges grants as it merges an OFFER
// or the DHT edit log: only entries that obey the world's rules (region-state.ts
// obeysWorldRules). Before: the new primary held both blocks and its subscriber showed them.
import { describe, expect, it } from 'vitest';
import { sortByDistance } from '../core/node-id';
import { AIR, BEDROCK } from '../world/blocks';
import { chunkOf, localOf, WORLD_FLOOR_Y } from '../world/coords';
import { columnIndex, REGION_BLOCKS, RegionKeys, type RegionCoord } from '../region/region-key';
import { entryKey, type Entry } from '../region/region-state';
import { HostSim, simKeyHash } from '../testing/host-sim';

const R: RegionCoord = { rx: 1, rz: 1 };

function at(x: number, y: number, z: number): number {
  const wx = R.rx * REGION_BLOCKS + x, wz = R.rz * REGION_BLOCKS + z;
  return entryKey(columnIndex(chunkOf(wx), chunkOf(wz)), localOf(wx), y, localOf(wz));
}

describe('a failover claim merges its granters\' state within the world\'s rules (simulated)', () => {
  it('drops AIR at the floor and unplaceable blocks a backup hands on in its GRANT', async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(8);
    const player = await sim.editedRegion(R);
    const primary = sim.primaryOf(R)!;
    const key = await new RegionKeys(sim.world, simKeyHash).key(R);
    // The backup farther from the key: the nearer one claims when the primary dies, and
    // takes the corrupt state through the grant (not as its own).
    const backups = sortByDistance(sim.backupsOf(R), (p) => p.dht.selfId, key);
    expect(backups.length).toBe(2);
    const corrupt = backups[1]!;
    const e = corrupt.host.regionState(R)!.epoch;
    const bad: Entry[] = [
      { key: at(3, WORLD_FLOOR_Y, 3), id: AIR, e, s: 900 },
      { key: at(4, 120, 4), id: BEDROCK, e, s: 901 },
    ];
    corrupt.host.regionState(R)!.state.merge(bad);
    sim.kill(primary.hex);
    await sim.clock.runUntil(() => !!sim.primaryOf(R), 10_000);
    await sim.run(2000);
    const next = sim.primaryOf(R);
    expect(next, 'a new primary').toBeDefined();
    expect(next).not.toBe(corrupt);
    const held = (p: typeof next) => bad.filter((b) => p?.host.regionState(R)?.state.get(b.key)?.id === b.id).length;
    expect(held(next), 'held by the new primary').toBe(0);
    expect(bad.filter((b) => player.client.state(R)?.get(b.key)?.id === b.id).length, 'shown to the subscriber').toBe(0);
    sim.stopAll();
  });
});
