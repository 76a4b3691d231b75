// Item pickups contested under loss and death, simulated: 1,000 seeded contested pickups (3-5 voters, 2-8 claimants,
// 5-155 ms links each way, jitter, up to 10% loss, a voter dying silently mid-vote in a
// third of them). Every item ends with exactly one owner, a claimant; while a majority of
// voters lives, every live voter and every claimant learns it.
import { describe, expect, it } from 'vitest';
import { randomContest, runContest } from '../testing/contest-sim';

describe('contested pickups (simulated)', () => {
  it('1,000 contests: exactly one owner each, and a decision whenever a majority lives', () => {
    const bad: string[] = [];
    let crashed = 0, lossy = 0, splits = 0;
    for (let seed = 1; seed <= 1000; seed++) {
      const o = randomContest(seed);
      const r = runContest(o);
      crashed += o.crashes ?? 0;
      lossy += o.loss > 0 ? 1 : 0;
      splits += r.stats.splits > 0 ? 1 : 0;
      if (r.owners.length !== 1 || !r.ownerIsClaimant) bad.push(`seed ${seed}: owners ${r.owners.join(',')}`);
      if (r.majorityLived && !r.settled) bad.push(`seed ${seed}: undecided with ${r.liveVoters}/${o.voters} voters alive`);
      if (r.stats.conflictingDecision || r.stats.forgedDecision) bad.push(`seed ${seed}: ${JSON.stringify(r.stats)}`);
    }
    expect(bad).toEqual([]);
    // The mix really holds deaths, loss and re-votes.
    expect(crashed).toBeGreaterThan(250);
    expect(lossy).toBeGreaterThan(400);
    expect(splits).toBeGreaterThan(200);
  });

  it('with a majority of voters dead there may be no decision, but never two owners', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const r = runContest({ ...randomContest(seed), voters: 3, crashes: 2, crashWithinMs: 150, maxMs: 5000 });
      expect(r.majorityLived).toBe(false);
      expect(r.owners.length).toBeLessThanOrEqual(1);
    }
  });
});
