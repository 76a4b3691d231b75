// `npm run bench -- hostile`: the seeded hostile-peer simulation of src/testing/hostile-scenario.ts
// over several seeds. sim_hostile_accepted: rogue blocks any honest peer stored or showed
// (no certified primary ordered them), summed over the seeds; the failover under the CLAIM
// storm as virtual ms (median and max) and how many seeds did not fail over.
import { runHostileScenario } from '../src/testing/hostile-scenario';
import { percentile } from '../src/core/percentile';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

export async function benchHostile(): Promise<Record<string, number>> {
  let accepted = 0, failed = 0, doubles = 0;
  const failover: number[] = [];
  for (const seed of SEEDS) {
    const r = await runHostileScenario(seed);
    accepted += r.acceptedAfterAttacks + r.acceptedAtEnd;
    doubles += r.doublePrimaries;
    if (r.failoverOk) failover.push(r.failoverMs);
    else failed++;
  }
  return {
    sim_hostile_accepted: accepted,
    sim_hostile_seeds: SEEDS.length,
    sim_hostile_double_primaries: doubles,
    sim_hostile_failover_ms_p50: percentile(failover, 0.5),
    sim_hostile_failover_ms_max: failover.length ? Math.max(...failover) : -1,
    sim_hostile_failover_failed: failed,
  };
}
