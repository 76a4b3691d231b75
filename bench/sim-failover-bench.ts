// sim_failover_silent_*: the region failover of `measureFailover` (src/testing/host-bench.ts)
// with silent kills (a crashed tab: nothing sent, its links left open at the other ends) on
// the in-memory network (20 ms mean one-way latency, 5 ms jitter), 16 nodes, one player
// editing every 100 ms, the region's primary killed 8 times per seed, 30 seeds, and a new
// node joining after each kill. A sample is the time from the kill to the first edit
// confirmed in a later epoch. What the figures count:
// - _ms_p50 / _p90 / _max over the samples taken;
// - _down_at_kill: kills skipped because the region had no primary at that moment (it was
//   still recovering, e.g. waiting for a rebase): counted, not in the percentiles;
// - _no_recovery: kills after which no edit was confirmed within 30 s;
// - _lost_edits: confirmed edits missing at the final primary, over the seeds whose region
//   had a primary 5 s after the last kill; _no_primary_at_end: the seeds whose region had none.
// Run: `npm run bench -- sim_failover` (about 40 s). The seed range: SIM_FAILOVER_SEEDS=a-b.
import { percentile } from '../src/core/percentile';
import { measureFailover } from '../src/testing/host-bench';

const KILLS = 8;

export async function benchSimFailover(): Promise<Record<string, number>> {
  const [from, to] = (process.env.SIM_FAILOVER_SEEDS ?? '1-30').split('-').map(Number) as [number, number];
  const samples: number[] = [];
  let lost = 0, noRecovery = 0, down = 0, noPrimary = 0;
  for (let seed = from; seed <= to; seed++) {
    const f = await measureFailover({ seed, nodes: 16, kills: KILLS });
    samples.push(...f.failoverMs);
    if (f.primaryAtEnd) lost += f.lostEdits;
    else noPrimary++;
    noRecovery += f.noRecovery;
    down += f.downAtKill;
  }
  return {
    sim_failover_silent_seeds: to - from + 1,
    sim_failover_silent_samples: samples.length,
    sim_failover_silent_ms_p50: Math.round(percentile(samples, 0.5)),
    sim_failover_silent_ms_p90: Math.round(percentile(samples, 0.9)),
    sim_failover_silent_ms_max: Math.round(Math.max(...samples)),
    sim_failover_silent_down_at_kill: down,
    sim_failover_silent_no_recovery: noRecovery,
    sim_failover_silent_lost_edits: lost,
    sim_failover_silent_no_primary_at_end: noPrimary,
  };
}
