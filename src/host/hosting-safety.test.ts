// The hosting safety property, tested over many seeds, random silent crashes, restarts from the host
// store, network splits that heal, single-node stalls (cut off past failoverMs), message
// loss and jitter, with editors editing throughout; then everything heals and the four
// properties of src/testing/safety-scenario.ts are checked: (a) one primary per (region,
// epoch), (b) no two primaries confirming at once (an older epoch never confirms after a
// newer one), (c) every confirmed edit on the final primary and every subscriber, in one
// order, (d) no edit applied twice. `HOST_SAFETY_SEEDS=1-200 npx vitest run
// src/host/hosting-safety.test.ts` for a longer run (or a list: 3,17,40);
// HOST_SAFETY_IDLE_SEEDS the same for the runs whose regions go quiet and unload.
import { describe, expect, it } from 'vitest';
import { runSafetyScenario, violationCount } from '../testing/safety-scenario';
import { SIM_TIMEOUT_MS } from '../testing/sim-timeout';

function seedList(spec: string): number[] {
  return spec.split(',').flatMap((part) => {
    const [lo, hi] = part.split('-').map(Number);
    const out: number[] = [];
    for (let s = lo!; s <= (hi ?? lo!); s++) out.push(s);
    return out;
  });
}

// The default run: the seeds that found faults since fixed (15, granted sets a claim could
// not all name, spread by granters that kept the pend of claims they granted; 37, claimants
// outside a far certified set holding back for a rebase that is off; 38, a handoff under
// way at the instant the settling ended, counted as a region without a primary until the
// check gave it the failover target; 200, a grant orphaned by a lost ABANDON; 226, a re-send
// refused by a primary that could not judge it; 228, epochs past the certificate by more
// than a step; 276, a rebaser gone idle), 1, and idle seed 1: 2-5 CPU-s a run, 9 runs.
// Seeds 1-5 assert the same four properties over the same scenario, so one stands for the
// five (each seed's path is a sample, not a fault of its own; the seven above each found
// one). Seed 2 was dropped after a check of what it reaches: its path ran no product code the
// other runs here do not, but for a restart holding a learnt certificate (adversary.test.ts
// restarts one such host, election.test.ts holds the rule) and a claim's lookup that beat
// its timer. Wider sweeps: HOST_SAFETY_SEEDS=1-20 (and
// HOST_SAFETY_IDLE_SEEDS=1-5) before a change to claims, grants or commits, and `npm run
// bench -- sim_safety` (seeds 1-50, rebase off and on). A seed's path moves with any change
// of timing, so these guard the fault only while that path holds; claim-orphan,
// commit-machine and grant-rules tests hold the rules themselves.
const SEEDS = seedList(process.env.HOST_SAFETY_SEEDS ?? '1,15,37,38,200,226,228,276');
/** The same with regions going quiet and unloaded meanwhile (`HOST_SAFETY_IDLE_SEEDS`). */
const IDLE_SEEDS = seedList(process.env.HOST_SAFETY_IDLE_SEEDS ?? '1');
const runs = [...SEEDS.map((seed) => ({ seed, idle: false })), ...IDLE_SEEDS.map((seed) => ({ seed, idle: true }))];
describe('region hosting safety under crashes, splits, stalls and loss (simulated)', () => {
  for (const { seed, idle } of runs) {
    it(`holds every property (seed ${seed}${idle ? ', regions unloaded when quiet' : ''})`, async () => {
      const r = await runSafetyScenario({ seed, idle });
      if (idle) expect(r.unloads, 'regions unloaded in the quiet spells').toBeGreaterThan(0);
      const { violations, ...counts } = r;
      console.log(JSON.stringify({ ...counts, violations: violationCount(r) }));
      expect(violations.a, '(a) one primary per (region, epoch)').toEqual([]);
      expect(violations.b, '(b) no older epoch confirms after a newer one').toEqual([]);
      const atHosts = (list: string[]) => list.filter((v) => v.startsWith('primary '));
      expect(atHosts(violations.c), '(c) every confirmed edit on the final primary').toEqual([]);
      expect(atHosts(violations.d), '(d) nothing applied twice at the final primary').toEqual([]);
      expect(violations.c, '(c) every confirmed edit everywhere, in one order').toEqual([]);
      expect(violations.d, '(d) nothing applied twice').toEqual([]);
    }, SIM_TIMEOUT_MS);
  }
});
