// What every seeded vote trial on a virtual clock shares (contest-sim.ts, item-sim.ts): the
// clock and rng of the seed, named voters and claimants, one voter set, shared counters,
// the set of silently dead nodes, and per-link latency drawn once per direction (so it
// differs each way) plus per-frame jitter (so frames reorder).
import { seededRandom, type Random } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { newVoteStats, type VoteStats } from '../agree/vote-stats';
import { VoterSet } from '../agree/voter-set';

export interface TrialOptions {
  seed: number;
  voters: number;
  claimants: number;
  /** A directed link's latency is drawn once in [min, max]; each frame adds [0, jitter). */
  latencyMinMs: number;
  latencyMaxMs: number;
  jitterMs: number;
  /** Probability that a frame is dropped. */
  loss: number;
  /** Voters that die silently (default 0), each at a random moment in [0, crashWithinMs). */
  crashes?: number;
  crashWithinMs?: number;
  /** Re-send period of voters and claimants (default 250). */
  tickMs?: number;
  /** Virtual time allowed (default 60 s). */
  maxMs?: number;
}

export interface Trial {
  rand: Random;
  clock: VirtualClock;
  tickMs: number;
  maxMs: number;
  voterIds: string[];
  claimIds: string[];
  set: VoterSet;
  stats: VoteStats;
  dead: Set<string>;
  /** One frame's delay from `from` to `to`. */
  latency(from: string, to: string): number;
}

export function voteTrial(o: TrialOptions, tag: number, claimPrefix: string): Trial {
  const rand = seededRandom(o.seed);
  const voterIds = Array.from({ length: o.voters }, (_, i) => `v${i}`);
  const linkMs = new Map<string, number>();
  return {
    rand,
    clock: new VirtualClock(),
    tickMs: o.tickMs ?? 250,
    maxMs: o.maxMs ?? 60_000,
    voterIds,
    claimIds: Array.from({ length: o.claimants }, (_, i) => `${claimPrefix}${i}`),
    set: new VoterSet(tag, voterIds),
    stats: newVoteStats(),
    dead: new Set(),
    latency(from, to) {
      const k = `${from}>${to}`;
      let base = linkMs.get(k);
      if (base === undefined) linkMs.set(k, (base = o.latencyMinMs + rand() * (o.latencyMaxMs - o.latencyMinMs)));
      return base + rand() * o.jitterMs;
    },
  };
}
