// Whole-world restart in an adversarial order: the first node back never hosted the
// regions (it claims them alone, from nothing); the nodes that hold the edits in their
// host stores come back later, one at a time, and must hand them to the live primary.
import { describe, expect, it } from 'vitest';
import { PLACEABLE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { columnIndex, REGION_BLOCKS, regionName, type RegionCoord } from '../region/region-key';
import { compareStamp, entryKey, type Stamp } from '../region/region-state';

const REGIONS: RegionCoord[] = [{ rx: 0, rz: 0 }, { rx: 1, rz: 0 }];

interface Confirmed { region: RegionCoord; key: number; id: number; stamp: Stamp }

describe('whole-world restart (simulated)', () => {
  for (const seed of [21, 22]) {
    it(`keeps every confirmed edit when a node that never hosted comes back first (seed ${seed})`, async () => {
      const sim = new HostSim({ seed });
      await sim.grow(7);
      const ids = sim.live().map((p) => p.dht.selfId);
      const player = sim.live()[0]!;
      await sim.settle(Promise.all(REGIONS.map((r) => player.client.subscribe(r))));
      const confirmed: Confirmed[] = [];
      let n = 0;
      const edit = (p: SimPeer) => {
        const region = REGIONS[n % REGIONS.length]!;
        const x = region.rx * REGION_BLOCKS + ((n * 13) % REGION_BLOCKS), z = region.rz * REGION_BLOCKS + ((n * 29) % REGION_BLOCKS), y = 110 + (n % 30);
        const id = PLACEABLE[n % PLACEABLE.length]!;
        n++;
        p.client.submit(x, y, z, id, { x, y, z: z + 2 }).then(
          (stamp) => confirmed.push({ region, key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z)), id, stamp }),
          () => {},
        );
      };
      // Edits, with a primary (never the player) killed halfway.
      for (let i = 0; i < 20; i++) { edit(player); await sim.run(150); }
      const victim = sim.live().find((p) => p !== player && p.host.roles().primary.length > 0);
      if (victim) sim.kill(victim.hex);
      for (let i = 0; i < 20; i++) { edit(player); await sim.run(150); }
      await sim.run(3000);
      expect(confirmed.length).toBeGreaterThan(30);
      sim.stopAll();
      await sim.run(5000);
      // The first back stored nothing of either region.
      const stored = (hex: string) => sim.stores.get(hex)!.loadAll().then((l) => l.length);
      const hexes = ids.map((id) => Buffer.from(id).toString('hex'));
      const counts = await sim.settle(Promise.all(hexes.map(stored)));
      const order = ids.map((id, i) => ({ id, c: counts[i]! })).sort((a, b) => a.c - b.c);
      expect(order[0]!.c).toBe(0);
      // Alone it cannot certify an epoch (a quorum of one could fork the world): it attaches
      // once others are back, and the certified claim merges their states.
      const first = await sim.add(order[0]!.id);
      const attached = Promise.all(REGIONS.map((r) => first.client.subscribe(r)));
      for (const o of order.slice(1)) {
        await sim.add(o.id);
        await sim.run(1500);
      }
      await sim.settle(attached, 60_000);
      await sim.run(15_000);
      for (const r of REGIONS) {
        const list = confirmed.filter((c) => c.region === r);
        const prim = sim.primariesOf(regionName(r));
        expect(prim.length, `one primary of ${regionName(r)}`).toBe(1);
        const lacks = (state: { get(k: number): { id: number; e: number; s: number } | undefined } | undefined) =>
          list.filter((c) => state?.get(c.key)?.id !== c.id).length;
        expect(lacks(prim[0]!.host.regionState(r)!.state), `primary of ${regionName(r)}`).toBe(0);
        expect(lacks(first.client.state(r)), `subscriber of ${regionName(r)}`).toBe(0);
        expect(first.client.state(r)!.fingerprint()).toBe(prim[0]!.host.regionState(r)!.state.fingerprint());
      }
      // And new edits win over the old stamps.
      const before = confirmed.length;
      edit(first);
      await sim.run(8000);
      expect(confirmed.length, 'the new edit is confirmed').toBe(before + 1);
      const last = confirmed[confirmed.length - 1]!;
      const older = confirmed.slice(0, before).filter((c) => c.region === last.region);
      expect(older.every((c) => compareStamp(last.stamp, c.stamp) > 0)).toBe(true);
      expect(sim.doublePrimaries()).toEqual([]);
      sim.stopAll();
    });
  }
});
