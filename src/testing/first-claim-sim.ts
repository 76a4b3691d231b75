// What a region's first claim costs a player: subscribe to attach (the first snapshot shown)
// for regions nobody hosts yet, so each subscription waits for the region's first claim (no
// certificate held, no location record: docs/HOSTING.md "First certificates"), on one
// virtual clock with link latency. Every first claim happens while tabs join, so this is
// part of `tab_join_ms`. `npm run sim -- --first-claims [--seeds 10] [--peers 13] [--regions 40]`.
import { regionName, type RegionCoord } from '../region/region-key';
import { HostSim } from './host-sim';
import { dist, type Dist } from './sample-dist';

export interface FirstClaimFigures {
  /** Subscribe to attach, ms, over every region and seed. */
  attach: Dist;
  /** Regions not attached within the wait. */
  unattached: number;
}

/** `regions` regions nobody hosts, subscribed at once by one peer of `peers`, per seed. */
export async function firstClaims(o: { seeds?: readonly number[]; peers?: number; regions?: number; waitMs?: number } = {}): Promise<FirstClaimFigures> {
  const waits: number[] = [];
  let unattached = 0;
  for (const seed of o.seeds ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    const sim = new HostSim({ seed });
    await sim.grow(o.peers ?? 13, { batch: 4 });
    await sim.run(2_000);
    const area: RegionCoord[] = [];
    for (let i = 0; i < (o.regions ?? 40); i++) area.push({ rx: i % 8, rz: Math.floor(i / 8) });
    const p = sim.live()[0]!;
    const t0 = sim.clock.now();
    const done = new Map<string, number>();
    for (const r of area) void p.client.subscribe(r).then(() => done.set(regionName(r), sim.clock.now() - t0), () => {});
    await sim.clock.runUntil(() => done.size === area.length, o.waitMs ?? 30_000);
    waits.push(...done.values());
    unattached += area.length - done.size;
    sim.stopAll();
  }
  return { attach: dist(waits), unattached };
}
