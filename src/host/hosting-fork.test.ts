// A tab must not fork the world by being alone. A (primary), B and C host region R; A
// dies silently, B's epoch confirms two edits of block K, everyone stops; A comes back alone
// (or with one brand-new node D) and edits K; then B and C come back and A re-submits. The
// lone A (and A + D) must not certify an epoch, so its edit is never confirmed while alone;
// afterwards every confirmed edit is kept in one order on every host and subscriber, K
// holds the last confirmed edit, no epoch has two primaries and nothing applies twice.
// Scenario: src/testing/fork-scenario.ts (also the bench figure sim_fork_lost_edits).
import { describe, expect, it } from 'vitest';
import { runForkScenario, type ForkResult } from '../testing/fork-scenario';

const SEEDS = (process.env.HOST_FORK_SEEDS ?? '1-3').split('-').map(Number);
const seeds: number[] = [];
for (let s = SEEDS[0]!; s <= (SEEDS[1] ?? SEEDS[0]!); s++) seeds.push(s);

function expectSound(r: ForkResult): void {
  if (process.env.HOST_FORK_LOG) console.log(JSON.stringify(r, null, 1));
  // Before the stop: v0 at A's epoch, v1 and v2 at a later one (B's), all confirmed.
  expect(r.before.map((b) => b.outcome)).toEqual(['confirmed', 'confirmed', 'confirmed']);
  // On its own, A's edit is answered 'uncertified' (or times out); never confirmed.
  expect(r.alone.length).toBeGreaterThan(0);
  expect(r.alone.filter((o) => o === 'confirmed')).toEqual([]);
  expect(r.aloneCertified, 'the lone A (or A + D) became primary of R').toBe(false);
  // Back with B and C, K still holds B's last confirmed edit (not A's older value).
  expect(r.kAfterRejoin).toBe(`${r.before[2]!.outcome === 'confirmed' ? '' : '?'}${r.before[2]!.id}@${r.before[2]!.stamp}`);
  // A's re-submitted edit is confirmed and is what K ends with, everywhere.
  expect(r.resubmit).toBe('confirmed');
  for (const k of r.finalK) expect(k.endsWith(`: ${r.lastConfirmed}`), k).toBe(true);
  expect(r.lost).toEqual([]);
  expect(r.reapplied).toEqual([]);
  expect(r.doublePrimaries).toEqual([]);
  expect(r.leaseOverlaps).toEqual([]);
  expect(r.primaries.length).toBe(1);
  expect(r.diverged).toEqual([]);
}

describe('the fork sequence: a lone restarted primary (simulated, silent deaths)', () => {
  it.each(seeds)('a lone restarted primary cannot confirm; no confirmed edit is lost (seed %i)', async (seed) => {
    expectSound(await runForkScenario({ seed }));
  });

  it.each(seeds)('nor can it with one brand-new node beside it (seed %i)', async (seed) => {
    expectSound(await runForkScenario({ seed, withNewNode: true }));
  });

  it.each(seeds)('nor with a new node when B\'s chain went on to later epochs (seed %i)', async (seed) => {
    expectSound(await runForkScenario({ seed, withNewNode: true, cycles: 4 }));
  });
});
