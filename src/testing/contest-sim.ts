// One seeded contest for an item on a virtual clock: 2-8 claimants walk into it at about
// the same moment and claim it from its voters (the region's host set); frames travel
// with per-link latency (so it differs each way), per-frame jitter (so they reorder) and
// loss (dropped: the engine's ticks must make up for it); voters may die silently mid-vote
// (they send nothing more, frames to them vanish). Every frame goes through the vote
// codec, so the schemas are checked against everything the engine really sends.
// Run by src/agree/contest.test.ts and bench/contest-bench.ts.
import * as v from 'valibot';
import { defineCodec } from '../core/codec';
import { randomInt, seededRandom, shuffle, type Random } from '../core/seeded-random';
import { Vote, type VoteEffect } from '../agree/vote';
import { voteSpec, type VoteMessage } from '../agree/vote-messages';
import type { VoteStats } from '../agree/vote-stats';
import { VoteWatcher } from '../agree/vote-watcher';
import { voteTrial, type TrialOptions } from './vote-trial';

export interface ContestOptions extends TrialOptions {
  /** Claims go out over [0, claimSpreadMs) (default 20: about a frame apart). */
  claimSpreadMs?: number;
}

export interface ContestResult {
  /** Distinct owners anyone (voter, even one that died later, or claimant) decided on. */
  owners: string[];
  /** The decided owner is one of the claimants. */
  ownerIsClaimant: boolean;
  liveVoters: number;
  majorityLived: boolean;
  /** Every live voter and every claimant knows the owner. */
  settled: boolean;
  /** From the first claim to the first voter's decision (the owner is fixed then), and to the last claimant learning it. */
  fixedMs: number;
  knownMs: number;
  rounds: number;
  frames: number;
  stats: VoteStats;
}

type Node = { receive(from: string, m: VoteMessage<string>): VoteEffect<string>[]; tick(): VoteEffect<string>[] };

const codec = defineCodec(voteSpec(v.pipe(v.string(), v.maxLength(64)), 1));
const key = (c: string) => c;

export function runContest(o: ContestOptions): ContestResult {
  const { rand, clock, tickMs, maxMs, voterIds, claimIds, set, stats, dead, latency } = voteTrial(o, 7, 'c');
  const id = `item-${o.seed}`;
  const voters = voterIds.map((self) => new Vote<string>({ id, voters: set, self, key, rng: seededRandom(o.seed * 31 + self.length + voterIds.indexOf(self)), stats, admit: (c) => claimIds.includes(c) }));
  const claimants = claimIds.map((c) => new VoteWatcher<string>({ id, voters: set, key, claim: c, stats }));
  const nodes = new Map<string, Node>([...voterIds.map((n, i) => [n, voters[i]!] as const), ...claimIds.map((n, i) => [n, claimants[i]!] as const)]);
  const owners = new Set<string>();
  let firstClaim = Infinity, fixedAt = NaN, learnedAt = NaN, frames = 0;

  const apply = (from: string, effects: VoteEffect<string>[]): void => {
    for (const e of effects) {
      if ('decided' in e) {
        owners.add(e.decided.c);
        if (Number.isNaN(fixedAt) && voterIds.includes(from)) fixedAt = clock.now();
        if (claimIds.includes(from)) learnedAt = clock.now();
        continue;
      }
      const frame = codec.encode(e.send);
      for (const to of e.to) {
        frames++;
        if (rand() < o.loss) continue;
        clock.setTimeout(() => {
          if (dead.has(to)) return;
          apply(to, nodes.get(to)!.receive(from, codec.decode(frame) as VoteMessage<string>));
        }, latency(from, to));
      }
    }
  };
  const ticking = (name: string): void => {
    const tick = () => {
      if (dead.has(name)) return;
      apply(name, nodes.get(name)!.tick());
      clock.setTimeout(tick, tickMs);
    };
    clock.setTimeout(tick, rand() * tickMs);
  };

  for (const [i, c] of claimants.entries()) {
    const at = rand() * (o.claimSpreadMs ?? 20);
    firstClaim = Math.min(firstClaim, at);
    clock.setTimeout(() => apply(claimIds[i]!, c.start()), at);
  }
  for (const name of nodes.keys()) ticking(name);
  let lastCrash = 0;
  for (const victim of shuffle(rand, [...voterIds]).slice(0, o.crashes ?? 0)) {
    const at = randomInt(rand, 0, o.crashWithinMs ?? 400);
    lastCrash = Math.max(lastCrash, at);
    clock.setTimeout(() => dead.add(victim), at);
  }

  const live = () => voters.filter((_, i) => !dead.has(voterIds[i]!));
  const settled = () => live().every((x) => x.decided) && claimants.every((c) => c.decided);
  // Runs past the last death even when settled before it, so `liveVoters` counts it.
  let done = false;
  while (!(done && clock.now() > lastCrash) && clock.now() < maxMs) {
    clock.advanceSync(5);
    done ||= settled();
  }
  const liveVoters = live().length;
  const winner = [...owners][0];
  return {
    owners: [...owners],
    ownerIsClaimant: winner !== undefined && claimIds.includes(winner),
    liveVoters,
    majorityLived: set.isMajority(liveVoters),
    settled: done,
    fixedMs: fixedAt - firstClaim,
    knownMs: done ? learnedAt - firstClaim : NaN,
    rounds: Math.max(...voters.map((x) => x.currentRound)),
    frames,
    stats,
  };
}

/** A contest drawn from the seed: 3-5 voters, 2-8 claimants, 5-150 ms links, up to 10% loss, a voter dying in a third of them. */
export function randomContest(seed: number, rand: Random = seededRandom(seed ^ 0x5eed)): ContestOptions {
  const lo = 5 + rand() * 100;
  return {
    seed,
    voters: randomInt(rand, 3, 6),
    claimants: randomInt(rand, 2, 9),
    latencyMinMs: lo,
    latencyMaxMs: lo + rand() * 50,
    jitterMs: rand() * 30,
    loss: rand() < 0.5 ? 0 : rand() * 0.1,
    crashes: rand() < 1 / 3 ? 1 : 0,
  };
}
