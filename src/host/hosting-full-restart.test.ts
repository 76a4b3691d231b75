// The browser test's full restart, simulated over many seeds: four hosts, edits, the
// primary closed, one more edit confirmed by the new primary, then every node stopped and
// started again one after another (the first alone, as a first tab finds nobody at the
// relay), each subscribing to the region. Every confirmed edit must be at the primary
// and at every subscriber afterwards.
import { describe, expect, it } from 'vitest';
import { chunkOf, localOf } from '../world/coords';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { columnIndex, regionName, type RegionCoord } from '../region/region-key';
import { entryKey } from '../region/region-state';

const REGION: RegionCoord = { rx: 0, rz: 0 };
const keyOf = (x: number, y: number, z: number) => entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z));
const SEEDS = (process.env.FULL_RESTART_SEEDS ?? '1-12').split('-').map(Number);

async function confirm(sim: HostSim, p: SimPeer, x: number, y: number, z: number, id: number): Promise<boolean> {
  for (let attempt = 0; attempt < 20; attempt++) {
    let ok: boolean | undefined;
    p.client.submit(x, y, z, id, { x, y, z: z + 2 }).then(() => (ok = true), () => (ok = false));
    await sim.clock.runUntil(() => ok !== undefined, 10_000);
    if (ok) return true;
    await sim.run(200);
  }
  return false;
}

describe('every host stopped and restarted (simulated, like the browser test)', () => {
  for (let seed = SEEDS[0]!; seed <= (SEEDS[1] ?? SEEDS[0]!); seed++) {
    it(`keeps the edit confirmed after a failover (seed ${seed})`, async () => {
      const sim = new HostSim({ seed });
      await sim.grow(4);
      const ids = sim.live().map((p) => p.dht.selfId);
      await sim.settle(Promise.all(sim.live().map((p) => p.client.subscribe(REGION))));
      const primary = () => sim.primaryOf(regionName(REGION));
      const editor = sim.live().find((p) => p !== primary())!;
      const edits: [number, number, number, number][] = [];
      for (let k = 1; k <= 6; k++) {
        const e: [number, number, number, number] = [k, 100, 5, 9];
        if (k === 6) {
          sim.kill(primary()!.hex);
        }
        expect(await confirm(sim, editor, ...e)).toBe(true);
        edits.push(e);
        await sim.run(100);
      }
      await sim.run(3000);
      sim.stopAll();
      await sim.run(2000);
      const order = ids.map((id, i) => ({ id, r: sim.rand() + i * 0 })).sort((a, b) => a.r - b.r);
      // The first nodes back may not be a majority of the last certified host set: they cannot
      // certify an epoch (a minority could fork the world), so they attach once enough are back.
      const attached: Promise<void>[] = [];
      for (const { id } of order) {
        const p = await sim.add(id);
        attached.push(p.client.subscribe(REGION));
        await sim.run(200 + sim.rand() * 1500);
      }
      await sim.settle(Promise.all(attached), 60_000);
      await sim.run(20_000);
      const prim = sim.primariesOf(regionName(REGION));
      expect(prim.length).toBe(1);
      const lacks = (state: { get(k: number): { id: number } | undefined } | undefined) =>
        edits.filter(([x, y, z, id]) => state?.get(keyOf(x, y, z))?.id !== id).map(([x]) => x);
      expect(lacks(prim[0]!.host.regionState(REGION)!.state), 'primary lacks').toEqual([]);
      for (const p of sim.live()) expect(lacks(p.client.state(REGION)), `subscriber ${p.hex.slice(0, 6)} lacks`).toEqual([]);
      expect(sim.doublePrimaries()).toEqual([]);
      sim.stopAll();
    });
  }
});
