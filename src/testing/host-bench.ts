// Failover on the virtual clock: a player edits a region every `editEveryMs`; its primary
// is killed; failover = kill -> the first edit confirmed again. Also counts confirmed
// edits missing from the final primary (must be 0). Used by host-bench.test.ts and
// docs/HOSTING.md; run directly: npx tsx src/testing/host-bench.ts
import { percentile } from '../core/percentile';
import type { DhtOptions } from '../dht/dht-node';
import { PLACEABLE } from '../world/blocks';
import type { HostOptions } from '../host/host-options';
import { HostSim, type SimPeer } from './host-sim';
import { REGION_BLOCKS, regionName, type RegionCoord } from '../region/region-key';
import { compareStamp, entryKey, type Stamp } from '../region/region-state';
import { columnIndex } from '../region/region-key';

export interface FailoverBenchOptions {
  seed?: number;
  nodes?: number;
  kills?: number;
  editEveryMs?: number;
  host?: Partial<HostOptions>;
  dht?: Partial<DhtOptions>;
  net?: { latencyMs?: number; jitterMs?: number };
  /** Kill primaries politely (links close at the remote ends) instead of silently (default). */
  politeKills?: boolean;
}

export interface FailoverFigures {
  nodes: number;
  kills: number;
  failoverMs: number[];
  p50: number;
  p90: number;
  max: number;
  confirmedEdits: number;
  lostEdits: number;
  /** Kills after which no edit was confirmed within 30 s (not in failoverMs). */
  noRecovery: number;
  /** Kills skipped: the region had no primary at that moment (not in failoverMs). */
  downAtKill: number;
  /** The region had a primary 5 s after the last kill (else lostEdits counts every confirmed edit). */
  primaryAtEnd: boolean;
  /** Frames and bytes the region's hosts sent, per second, averaged over the run. */
  hostFramesPerSec: number;
  hostBytesPerSec: number;
}

export async function measureFailover(o: FailoverBenchOptions = {}): Promise<FailoverFigures> {
  const sim = new HostSim({ seed: o.seed ?? 1, ...(o.host ? { host: o.host } : {}), ...(o.dht ? { dht: o.dht } : {}), ...(o.net ? { net: o.net } : {}) });
  const nodes = o.nodes ?? 24;
  const every = o.editEveryMs ?? 100;
  const R: RegionCoord = { rx: 1, rz: 1 };
  await sim.grow(nodes);
  const primaryOf = () => sim.primaryOf(regionName(R));
  let player: SimPeer = sim.pick();
  await sim.settle(player.client.subscribe(R));
  const confirmed: { key: number; id: number; stamp: Stamp; at: number }[] = [];
  let i = 0;
  const edit = () => {
    const lx = i % REGION_BLOCKS, lz = Math.floor(i / REGION_BLOCKS) % REGION_BLOCKS, y = 100 + (Math.floor(i / 4096) % 100);
    const x = R.rx * REGION_BLOCKS + lx, z = R.rz * REGION_BLOCKS + lz;
    const id = PLACEABLE[i % PLACEABLE.length]!;
    i++;
    const key = entryKey(columnIndex(Math.floor(x / 16), Math.floor(z / 16)), x & 15, y, z & 15);
    player.client.submit(x, y, z, id, { x, y, z: z + 2 }).then(
      (stamp) => confirmed.push({ key, id, stamp, at: sim.clock.now() }),
      () => {},
    );
  };
  const failoverMs: number[] = [];
  let noRecovery = 0, downAtKill = 0;
  const t0run = sim.clock.now();
  const bytes0 = sim.live().reduce((n, p) => n + p.wire.bytesOut, 0);
  const frames0 = sim.live().reduce((n, p) => n + p.wire.framesOut, 0);
  for (let k = 0; k < (o.kills ?? 10); k++) {
    for (let t = 0; t < 3000; t += every) {
      edit();
      await sim.run(every);
    }
    let victim = primaryOf();
    if (!victim) {
      downAtKill++;
      continue;
    }
    if (victim === player) {
      // The player must survive to measure; let another peer play.
      player.client.unsubscribe(R);
      player = sim.live().find((p) => p !== victim)!;
      await sim.settle(player.client.subscribe(R));
      victim = primaryOf()!;
    }
    const killedAt = sim.clock.now();
    if (process.env.HOST_TRACE) console.log(`${killedAt} KILL ${victim.hex.slice(0, 6)}`);
    sim.kill(victim.hex, { polite: o.politeKills ?? false });
    const seen = confirmed.length;
    let traced = 0;
    while (sim.clock.now() - killedAt < 30_000 && !confirmed.slice(seen).some((c) => c.at > killedAt && c.stamp.e > 0 && c.at - killedAt >= 0 && c.stamp.e > (victimEpoch(victim) ?? 0))) {
      edit();
      await sim.run(every);
      if (process.env.HOST_TRACE && sim.clock.now() - killedAt > 1500 * (traced + 1)) {
        traced++;
        console.log(`${sim.clock.now()} PLAYER ${player.hex.slice(0, 6)} ${JSON.stringify(player.client.attachment(R))} ${JSON.stringify(player.client.stats)}`);
      }
    }
    const first = confirmed.slice(seen).find((c) => c.at > killedAt && c.stamp.e > (victimEpoch(victim) ?? 0));
    if (process.env.HOST_TRACE) console.log(`${first?.at} CONFIRMED e${first?.stamp.e} after ${first ? first.at - killedAt : 'none'}`);
    if (first) failoverMs.push(first.at - killedAt);
    else noRecovery++;
    await sim.add();
  }
  await sim.run(5000);
  const runSec = (sim.clock.now() - t0run) / 1000;
  const state = primaryOf()?.host.regionState(R)?.state;
  const lost = confirmed.filter((c) => {
    const held = state?.get(c.key);
    return !held || compareStamp(held, c.stamp) < 0;
  }).length;
  const bytes = sim.live().reduce((n, p) => n + p.wire.bytesOut, 0) - bytes0;
  const frames = sim.live().reduce((n, p) => n + p.wire.framesOut, 0) - frames0;
  sim.stopAll();
  return {
    nodes, kills: o.kills ?? 10, failoverMs, p50: percentile(failoverMs, 0.5), p90: percentile(failoverMs, 0.9), max: Math.max(...failoverMs),
    confirmedEdits: confirmed.length, lostEdits: lost, noRecovery, downAtKill, primaryAtEnd: !!state, hostFramesPerSec: Math.round(frames / runSec), hostBytesPerSec: Math.round(bytes / runSec),
  };

  function victimEpoch(v: SimPeer): number | undefined {
    return v.host.regionState(R)?.epoch;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureFailover({ kills: Number(process.argv[2] ?? 10) });
  console.log(JSON.stringify(figures, null, 2));
}
