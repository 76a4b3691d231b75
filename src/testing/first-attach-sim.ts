// A first subscription's wait, subscribe to first snapshot, for a player that joins a hosted
// world (its own region and the 8 around it, all at once) and then walks east across three
// region borders at a sprint-flying pace (each crossing subscribes the column of regions
// that enters its ring). A fresh subscriber judges each region's certificate against its own
// lookup of the key by disjoint paths (dht/near-view.ts `live`), at most two at a time: the
// wait the rank adds to a first attach, measured on one virtual clock with link latency.
import { regionName, type RegionCoord } from '../region/region-key';
import { NetworkChunkSource } from '../play/network-chunk-source';
import { HostSim, type HostSimOptions, type SimPeer } from './host-sim';
import { dist, type Dist } from './sample-dist';

export interface FirstAttachOptions {
  seed?: number;
  /** Peers hosting the world before the player joins. */
  peers?: number;
  /** Blocks a step of the walk covers, and ms between steps (default 1 and 50: e2e/hosting's walk). */
  stepBlocks?: number;
  stepMs?: number;
  sim?: HostSimOptions;
  /** Called with the joining peer before it plays (a trace hooks it). */
  onJoin?: (p: SimPeer, sim: HostSim) => void;
  /** Return the waits themselves too (bench/first-attach-bench.ts pools them over seeds). */
  samples?: boolean;
}

export interface FirstAttachFigures {
  /** The joining player's first subscriptions (its region and the 8 around it), ms. */
  join: Dist;
  /** Its own region's wait, ms. */
  own: number;
  /** The regions that entered its ring as it crossed borders, ms. */
  crossing: Dist;
  /** Crossing regions not shown within the walk's time plus 10 s. */
  unready: number;
  /** The player's live lookups by disjoint paths (near-view sweeps) and refreshes. */
  sweeps: number;
  /** Location reads counted as its live lookup (near-view `adopt`). */
  adopted: number;
  /** The waits (ms), when asked for (`samples`). */
  samples?: { join: number[]; crossing: number[] };
}

/** Hosts regions rx -1..4, rz -1..1; a new peer joins at 62.5, 5.5 (2 blocks short of region 0,0's east border) and walks to x = 200. */
export async function firstAttach(o: FirstAttachOptions = {}): Promise<FirstAttachFigures> {
  const sim = new HostSim({ seed: o.seed ?? 1, ...o.sim });
  await sim.grow(o.peers ?? 12, { batch: 4 });
  const area: RegionCoord[] = [];
  for (let rx = -1; rx <= 4; rx++) for (let rz = -1; rz <= 1; rz++) area.push({ rx, rz });
  // Two players already there hold the area hosted (each of its regions has a primary).
  const [a, b] = sim.live();
  await sim.settle(Promise.all(area.map((r) => a!.client.subscribe(r))));
  await sim.settle(Promise.all(area.map((r) => b!.client.subscribe(r))));
  await sim.run(5_000);

  const p = await sim.add();
  o.onJoin?.(p, sim);
  const asked = new Map<string, number>();
  const waits = new Map<string, number>();
  const subscribe = p.client.subscribe.bind(p.client);
  p.client.subscribe = (r: RegionCoord, ...rest: unknown[]) => {
    const name = regionName(r);
    const ready = (subscribe as (r: RegionCoord, ...x: unknown[]) => Promise<void>)(r, ...rest);
    if (!asked.has(name)) {
      const t0 = sim.clock.now();
      asked.set(name, t0);
      void ready.then(() => waits.set(name, sim.clock.now() - t0));
    }
    return ready;
  };
  const source = new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: p.client, dht: p.dht, clock: sim.clock, options: { name: 'walker' } });
  const pose = (x: number) => ({ x, y: 140, z: 5.5, yaw: 0, pitch: 0 });
  source.setPosition(pose(62.5));
  const first = [...asked.keys()];
  await sim.settle(Promise.all(first.map((n) => new Promise<void>((resolve) => {
    const poll = () => (waits.has(n) ? resolve() : void sim.clock.setTimeout(poll, 10));
    poll();
  }))));
  const step = o.stepBlocks ?? 1, ms = o.stepMs ?? 50;
  for (let x = 62.5 + step; x <= 200.5; x += step) {
    source.setPosition(pose(x));
    await sim.run(ms);
  }
  await sim.run(10_000);
  const crossed = [...asked.keys()].filter((n) => !first.includes(n));
  const join = first.map((n) => waits.get(n)!);
  const crossing = crossed.filter((n) => waits.has(n)).map((n) => waits.get(n)!);
  const figures: FirstAttachFigures = {
    join: dist(join),
    own: waits.get(regionName({ rx: 0, rz: 0 }))!,
    crossing: dist(crossing),
    unready: crossed.filter((n) => !waits.has(n)).length,
    sweeps: p.dht.nearView.stats.sweeps + p.dht.nearView.stats.refreshes,
    adopted: p.dht.nearView.stats.adopted,
    ...(o.samples ? { samples: { join, crossing } } : {}),
  };
  source.close();
  sim.stopAll();
  return figures;
}
