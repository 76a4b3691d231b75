// The idle cost of hosting over hours: players walk on across new ground
// for several virtual hours, through real NetworkChunkSources, on N real hosting peers
// (host-sim.ts: DhtNode + HostingService + RegionClient, in-memory network, virtual clock).
// Each walks a leg of one to one and a half regions, stands a minute and places a block or
// two, and walks on, now and then back toward where it started (so regions unloaded long
// ago are visited again and must come back with their blocks). Every `sampleMs` the whole
// network's cost is read off the counters:
// - regions held: HostedRegions in memory (any role), summed over the peers; and those
//   with a primary's duty (a tick loop, beats, a host-set lookup every RECHECK_MS);
// - timers: the virtual clock's pending timers (every loop and timeout of every layer);
// - lookups per minute: DHT lookups started, all peers, over the last sample period;
// - pinned links: DHT links held open against the link budget, summed over the peers;
// - upload: HostWires bytes out (hosting and play channels), all peers, kB/s;
// - ticks and beats per second (the per-region loops).
// And the proof that an unloaded region comes back right: at each return to a block it
// placed earlier, the walker's client (once its region is ready) must show that block.
import { every } from '../core/clock';
import { seededRandom } from '../core/seeded-random';
import { NetworkChunkSource } from '../play/network-chunk-source';
import { columnIndex, REGION_BLOCKS, regionAt } from '../region/region-key';
import { entryKey } from '../region/region-state';
import { PLACEABLE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { HostSim, type SimPeer } from './host-sim';
import type { WalkingPlayer } from './hosting-scale-sim';

export interface IdleCostOptions {
  peers: number;
  walkers: number;
  /** Virtual hours walked. */
  hours: number;
  seed?: number;
  /** HOST_DEFAULTS.unloadAfterMs unless given (Infinity: never unload). */
  unloadAfterMs?: number;
  /** How often the counters are read (virtual ms). */
  sampleMs?: number;
  log?: (line: string) => void;
}

export interface IdleCostSample {
  /** Virtual minutes since the walk began. */
  atMin: number;
  regionsHeld: number;
  primaries: number;
  timers: number;
  lookupsPerMin: number;
  pinnedLinks: number;
  uploadKbps: number;
  ticksPerSec: number;
  beatsPerSec: number;
  /** Distinct regions the walkers have stood in so far. */
  regionsVisited: number;
  unloads: number;
  reloads: number;
  /** Of the process (a rough memory figure: the whole simulation's heap). */
  heapMb: number;
}

export interface IdleCostResult {
  samples: IdleCostSample[];
  /**
   * Distinct regions that had a primary at some time in the run (read every 10 virtual s; a
   * region is held at least the unload delay): what the network would hold at the end
   * without unloading, as the walk is the same either way.
   */
  primariesEver: number;
  edits: { submitted: number; confirmed: number; failed: number };
  /** Returns to an earlier block whose region was shown; of them, those that showed another block. */
  returns: { checked: number; wrong: number };
  wallSec: number;
}

interface Walker extends WalkingPlayer {
  /** Where the current leg ends; undefined while standing. */
  to: { x: number; z: number } | undefined;
  standUntil: number;
  /** Blocks this walker placed (confirmed), by position: checked when it stands near one again. */
  placed: { x: number; y: number; z: number; id: number }[];
}

const Y = 100;
const SPEED = 4.3;
const STEP_MS = 100;
const STAND_MS = 60_000;

export async function runIdleCost(o: IdleCostOptions): Promise<IdleCostResult> {
  const t0 = performance.now();
  const seed = o.seed ?? 1;
  const sampleMs = o.sampleMs ?? 600_000;
  const log = o.log ?? (() => {});
  const sim = new HostSim({ seed, net: { latencyMs: 30, jitterMs: 5 }, ...(o.unloadAfterMs !== undefined ? { host: { unloadAfterMs: o.unloadAfterMs } } : {}) });
  const rand = seededRandom(seed * 977 + 3);
  await sim.grow(o.peers);
  const edits = { submitted: 0, confirmed: 0, failed: 0 };
  const returns = { checked: 0, wrong: 0 };
  const visited = new Set<string>();
  const walkers: Walker[] = sim.live().slice(0, o.walkers).map((peer, i) => {
    const source = new NetworkChunkSource({ seed: 'sim', world: sim.world, client: peer.client, dht: peer.dht, clock: sim.clock, options: { name: `w${i}` } });
    // Walkers start apart (they need not meet: the cost measured is the ground covered).
    return { peer, source, x: i * 8 * REGION_BLOCKS + 20, z: 20, heading: rand() * Math.PI * 2, to: undefined, standUntil: 0, placed: [] };
  });
  const start = walkers.map((w) => ({ x: w.x, z: w.z }));

  const place = (w: Walker) => {
    const x = Math.floor(w.x) + 2, z = Math.floor(w.z) + 1, y = Y + Math.floor(rand() * 4);
    const id = PLACEABLE[Math.floor(rand() * PLACEABLE.length)]!;
    edits.submitted++;
    w.source.submitEdit(x, y, z, id).then((r) => {
      if (!r.confirmed) return void edits.failed++;
      edits.confirmed++;
      w.placed = w.placed.filter((b) => b.x !== x || b.y !== y || b.z !== z);
      w.placed.push({ x, y, z, id });
      if (w.placed.length > 256) w.placed.shift();
    }, () => edits.failed++);
  };
  /** Blocks this walker placed in the region it stands in: its client must show each. */
  const check = (w: Walker) => {
    const here = regionAt(w.x, w.z);
    const state = w.peer.client.isReady(here) ? w.peer.client.state(here) : undefined;
    if (!state) return;
    for (const b of w.placed) {
      const r = regionAt(b.x, b.z);
      if (r.rx !== here.rx || r.rz !== here.rz) continue;
      returns.checked++;
      if (state.get(entryKey(columnIndex(chunkOf(b.x), chunkOf(b.z)), localOf(b.x), b.y, localOf(b.z)))?.id !== b.id) returns.wrong++;
    }
  };
  const step = () => {
    const now = sim.clock.now();
    walkers.forEach((w, i) => {
      if (!w.to) {
        if (now < w.standUntil) return;
        // A new leg: on, turning a little, or (one leg in four) back toward the start.
        const back = rand() < 0.25;
        const s = start[i]!;
        w.heading = back ? Math.atan2(s.z - w.z, s.x - w.x) : w.heading + (rand() - 0.5) * 1.2;
        const d = REGION_BLOCKS * (1 + rand() * 0.5);
        w.to = { x: w.x + Math.cos(w.heading) * d, z: w.z + Math.sin(w.heading) * d };
      }
      const dx = w.to.x - w.x, dz = w.to.z - w.z, d = Math.hypot(dx, dz), s = (SPEED * STEP_MS) / 1000;
      if (d <= s) {
        w.x = w.to.x;
        w.z = w.to.z;
        w.to = undefined;
        w.standUntil = now + STAND_MS;
        const r = regionAt(w.x, w.z);
        visited.add(`${r.rx},${r.rz}`);
        // Placed once it stood a while (its region attached), checked again before it leaves.
        sim.clock.setTimeout(() => place(w), 10_000 + rand() * 20_000);
        sim.clock.setTimeout(() => check(w), STAND_MS - 1000);
      } else {
        w.x += (dx / d) * s;
        w.z += (dz / d) * s;
      }
      w.source.setPosition({ x: w.x, y: Y, z: w.z, yaw: w.heading, pitch: 0 });
    });
  };
  const stopWalk = every(sim.clock, STEP_MS, step);

  const samples: IdleCostSample[] = [];
  const sum = (f: (p: SimPeer) => number) => sim.live().reduce((n, p) => n + f(p), 0);
  let last = { at: sim.clock.now(), lookups: sum((p) => p.dht.stats.lookups), bytes: sum((p) => p.wire.bytesOut), ticks: sum((p) => p.host.stats.ticks), beats: sum((p) => p.host.stats.heartbeats) };
  const startAt = sim.clock.now();
  const sample = () => {
    const now = sim.clock.now(), sec = (now - last.at) / 1000;
    const cur = { at: now, lookups: sum((p) => p.dht.stats.lookups), bytes: sum((p) => p.wire.bytesOut), ticks: sum((p) => p.host.stats.ticks), beats: sum((p) => p.host.stats.heartbeats) };
    const s: IdleCostSample = {
      atMin: Math.round((now - startAt) / 60_000),
      regionsHeld: sum((p) => p.host.knownRegions().length),
      primaries: sum((p) => p.host.roles().primary.length),
      timers: sim.clock.pending,
      lookupsPerMin: ((cur.lookups - last.lookups) / sec) * 60,
      pinnedLinks: sum((p) => p.dht.linkInfo().filter((l) => l.pinned).length),
      uploadKbps: (cur.bytes - last.bytes) / 1000 / sec,
      ticksPerSec: (cur.ticks - last.ticks) / sec,
      beatsPerSec: (cur.beats - last.beats) / sec,
      regionsVisited: visited.size,
      unloads: sum((p) => p.host.stats.unloads),
      reloads: sum((p) => p.host.stats.reloads),
      heapMb: process.memoryUsage().heapUsed / 1e6,
    };
    samples.push(s);
    last = cur;
    log(`${s.atMin} min: ${s.regionsHeld} regions held (${s.primaries} primaries), ${s.timers} timers, ${s.lookupsPerMin.toFixed(0)} lookups/min, ${s.pinnedLinks} pinned, ${s.uploadKbps.toFixed(1)} kB/s, ${s.ticksPerSec.toFixed(0)} ticks/s; visited ${s.regionsVisited}, unloads ${s.unloads}, reloads ${s.reloads}; heap ${s.heapMb.toFixed(0)} MB (${((performance.now() - t0) / 1000).toFixed(0)} s wall)`);
  };
  const stopSample = every(sim.clock, sampleMs, sample);
  const everPrimary = new Set<string>();
  const stopEver = every(sim.clock, 10_000, () => {
    for (const p of sim.live()) for (const name of p.host.roles().primary) everPrimary.add(name);
  });
  await sim.run(o.hours * 3600_000);
  stopSample();
  stopEver();
  stopWalk();
  for (const w of walkers) w.source.close();
  sim.stopAll();
  return { samples, primariesEver: everPrimary.size, edits, returns, wallSec: (performance.now() - t0) / 1000 };
}
