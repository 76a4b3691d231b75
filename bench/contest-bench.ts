// `npm run bench -- contest`: the items layer's simulated figures, all on virtual time (seeded,
// a few seconds of CPU). Contested pickups (src/testing/contest-sim.ts): 10,000 drawn
// contests (3-5 voters, 2-8 claimants, 5-155 ms links each way, jitter, up to 10% loss,
// a voter dying silently in a third) for duplicate owners and undecided contests; 2,000
// contests at 50 ms one-way (40-50 ms per link each way + 0-10 ms jitter, 3 voters, no
// loss) for the time from the first claim until every claimant knows the owner. Clock
// sync (src/testing/clock-sim.ts): offset error against the stated bound on asymmetric
// jittery 2-60 ms links, and the spread of one world event across 3 peers on 1-3 ms links.
// Items end to end (src/testing/item-sim.ts: rival spawn proposals, then a contested pickup
// through ItemVotes and each host's ItemLedger): 10,000 drawn trials for duplicate spawns
// and owners, far claimants winning and undecided trials, and 2,000 at 50 ms one-way for the
// pickup and spawn decision times. The WorldClock service (src/testing/world-clock-sim.ts):
// error against its bound on loopback-like links (0.1-1 ms each way) over a two-hop chain.
// A whole area (src/testing/item-world-sim.ts: hosts and players each on its own WorldClock,
// players' replicas shown at 60 Hz): 500 spawns-and-pickups on loopback-like links for the
// spread of the appearance across players (event clocks, and first frames), and 500 at
// 40-60 ms links with 5% loss.
import { randomInt, seededRandom } from '../src/core/seeded-random';
import { percentile } from '../src/core/percentile';
import { randomContest, runContest } from '../src/testing/contest-sim';
import { runClockSim } from '../src/testing/clock-sim';
import { randomItemSim, runItemSim } from '../src/testing/item-sim';
import { runWorldClockSim } from '../src/testing/world-clock-sim';
import { runItemWorld } from '../src/testing/item-world-sim';

/**
 * Random contests and item lives, each (10,000 until 2026-12-06: half of this benchmark's
 * ~200 s, and the default `npm run bench` must stay under 30 minutes; the vote's own tests
 * in npm test run their seeds too).
 */
const CONTESTS = 5000;

export async function benchContest(): Promise<Record<string, number>> {
  let duplicates = 0, noOwner = 0, undecided = 0, notClaimant = 0, deaths = 0, majorityDead = 0;
  const rounds: number[] = [];
  for (let seed = 1; seed <= CONTESTS; seed++) {
    const o = randomContest(seed);
    const r = runContest(o);
    deaths += o.crashes ?? 0;
    if (r.owners.length > 1) duplicates++;
    if (!r.majorityLived) majorityDead++;
    else {
      if (r.owners.length === 0) noOwner++;
      if (!r.settled) undecided++;
    }
    if (r.owners.length === 1 && !r.ownerIsClaimant) notClaimant++;
    rounds.push(r.rounds);
  }

  const rand = seededRandom(50);
  const known: number[] = [], fixed: number[] = [];
  let failed = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const r = runContest({ seed: 100_000 + seed, voters: 3, claimants: randomInt(rand, 2, 9), latencyMinMs: 40, latencyMaxMs: 50, jitterMs: 10, loss: 0 });
    if (!r.settled) failed++;
    else {
      known.push(r.knownMs);
      fixed.push(r.fixedMs);
    }
  }

  const errors: number[] = [];
  let violations = 0;
  const skews: number[] = [];
  for (let seed = 1; seed <= 8; seed++) {
    const c = runClockSim({ seed, peers: 3 });
    errors.push(...c.errors);
    violations += c.violations;
    skews.push(...runClockSim({ seed, peers: 3, latencyMinMs: 1, latencyMaxMs: 3, jitterMeanMs: 0.5 }).skews);
  }

  const contests = {
    sim_contests: CONTESTS,
    sim_contest_duplicate_owners: duplicates,
    sim_contest_undecided: undecided,
    sim_contest_no_owner: noOwner,
    sim_contest_owner_not_claimant: notClaimant,
    sim_contest_voter_deaths: deaths,
    sim_contest_majority_dead: majorityDead,
    sim_contest_rounds_p50: percentile(rounds, 0.5),
    sim_contest_rounds_p99: percentile(rounds, 0.99),
    pickup_decision_ms_p50: round1(percentile(known, 0.5)),
    pickup_decision_ms_p99: round1(percentile(known, 0.99)),
    pickup_fixed_ms_p50: round1(percentile(fixed, 0.5)),
    pickup_decision_samples: known.length,
    pickup_decision_failed: failed,
  };
  return { ...contests, ...clockFigures(errors, violations, skews), ...items(), ...worldClock(), ...(await areas()) };
}

function items(): Record<string, number> {
  let dupSpawns = 0, dupOwners = 0, undecided = 0, farWon = 0, majorityDead = 0;
  for (let seed = 1; seed <= CONTESTS; seed++) {
    const r = runItemSim(randomItemSim(seed));
    if (r.spawns > 1) dupSpawns++;
    if (r.owners.length > 1) dupOwners++;
    if (r.owners.length === 1 && !r.ownerIsNearClaimant) farWon++;
    if (!r.majorityLived) majorityDead++;
    else if (!r.settled || r.owners.length !== 1) undecided++;
  }
  const rand = seededRandom(51);
  const pickup: number[] = [], spawn: number[] = [];
  for (let seed = 1; seed <= 2000; seed++) {
    const r = runItemSim({ seed: 200_000 + seed, voters: 3, proposers: randomInt(rand, 1, 4), claimants: randomInt(rand, 2, 9), latencyMinMs: 40, latencyMaxMs: 50, jitterMs: 10, loss: 0 });
    if (r.settled) {
      pickup.push(r.pickupMs);
      spawn.push(r.spawnMs);
    }
  }
  return {
    sim_item_trials: CONTESTS,
    sim_item_duplicate_spawns: dupSpawns,
    sim_item_duplicate_owners: dupOwners,
    sim_item_far_claimant_won: farWon,
    sim_item_undecided: undecided,
    sim_item_majority_dead: majorityDead,
    item_pickup_ms_p50: round1(percentile(pickup, 0.5)),
    item_pickup_ms_p99: round1(percentile(pickup, 0.99)),
    item_spawn_decision_ms_p50: round1(percentile(spawn, 0.5)),
    item_decision_samples: pickup.length,
  };
}

function worldClock(): Record<string, number> {
  const errors: number[] = [], bounds: number[] = [], skews: number[] = [];
  let violations = 0;
  for (let seed = 1; seed <= 4; seed++) {
    const r = runWorldClockSim(seed, { lo: 0.1, hi: 1, jitterMean: 0.2, loss: 0.02 });
    errors.push(...r.errors);
    bounds.push(...r.bounds);
    skews.push(...r.skews);
    violations += r.violations;
  }
  return {
    sim_world_clock_error_ms_p99: round1(percentile(errors, 0.99)),
    sim_world_clock_bound_ms_p99: round1(percentile(bounds, 0.99)),
    sim_world_clock_bound_violations: violations,
    sim_world_clock_event_skew_ms_max: round1(Math.max(...skews)),
  };
}

async function areas(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, lo, hi, jitter, loss] of [['loopback', 0.2, 2, 0.3, 0.02], ['50ms', 40, 60, 5, 0.05]] as const) {
    const rand = seededRandom(52);
    const fire: number[] = [], frame: number[] = [];
    let dup = 0, unsettled = 0, late = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const r = await runItemWorld({ seed, hosts: randomInt(rand, 3, 6), players: randomInt(rand, 2, 9), proposers: randomInt(rand, 1, 4), latencyMinMs: lo, latencyMaxMs: hi, jitterMeanMs: jitter, loss });
      if (r.owners.length > 1) dup++;
      if (!r.settled) unsettled++;
      late += r.late;
      fire.push(r.fireSkewMs);
      frame.push(r.skewMs);
    }
    Object.assign(out, {
      [`sim_area_${name}_spawn_fire_skew_ms_max`]: round1(Math.max(...fire)),
      [`sim_area_${name}_spawn_frame_skew_ms_max`]: round1(Math.max(...frame)),
      [`sim_area_${name}_late_shows`]: late,
      [`sim_area_${name}_duplicate_owners`]: dup,
      [`sim_area_${name}_unsettled`]: unsettled,
    });
  }
  return out;
}

function clockFigures(errors: number[], violations: number, skews: number[]): Record<string, number> {
  return {
    sim_clock_offset_error_ms_p50: round1(percentile(errors, 0.5)),
    sim_clock_offset_error_ms_p99: round1(percentile(errors, 0.99)),
    sim_clock_bound_violations: violations,
    sim_spawn_skew_ms_p50: round1(percentile(skews, 0.5)),
    sim_spawn_skew_ms_max: round1(Math.max(...skews)),
    sim_spawn_events: skews.length,
  };
}

const round1 = (x: number) => Math.round(x * 10) / 10;
