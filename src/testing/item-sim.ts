// One seeded item life on a virtual clock, end to end through the item layer: rival hosts
// of an area propose a spawn at about the same moment (ItemVotes settle one), the item
// appears at its agreed time, then 2-8 players walk into it and claim it (one may claim
// from too far away), and the voters decide who takes it. Frames go through the vote codec
// with per-link latency (different each way), jitter (reordering) and loss; a voter may die
// silently at any moment of the spawn or pickup vote; each voter's world clock is off by a
// few ms (clock-sync's residual error). Run by src/agree/item-ledger.test.ts and
// bench/contest-bench.ts.
import { defineCodec } from '../core/codec';
import { randomInt, seededRandom, shuffle, type Random } from '../core/seeded-random';
import { candidateKey, ItemLedger, type ClaimCandidate, type Item, type ItemCandidate } from '../agree/item-ledger';
import { itemVoteSpec, ItemVotes, type ItemEffect } from '../agree/item-votes';
import type { VoteMessage } from '../agree/vote-messages';
import type { VoteStats } from '../agree/vote-stats';
import { VoteWatcher } from '../agree/vote-watcher';
import type { VoteEffect } from '../agree/vote';
import { randomContest } from './contest-sim';
import { voteTrial, type TrialOptions } from './vote-trial';

/** crashWithinMs defaults to 2600 here: deaths fall anywhere in the spawn and the pickup vote. */
export interface ItemSimOptions extends TrialOptions {
  /** Hosts proposing the spawn at about the same moment (1..voters). */
  proposers: number;
  /** One claimant claims from 6 blocks away: it must never win. */
  farClaimant?: boolean;
}

export interface ItemSimResult {
  /** Distinct spawned items (by id, position, kind, time) any voter applied: 1 when settled, never 2. */
  spawns: number;
  /** Distinct owners any voter's ledger or claimant recorded. */
  owners: string[];
  ownerIsNearClaimant: boolean;
  liveVoters: number;
  majorityLived: boolean;
  /** Every live voter's ledger and every claimant know the one owner. */
  settled: boolean;
  /** From the first claim to the last claimant knowing the owner. */
  pickupMs: number;
  /** From the first proposal to the first voter applying the spawn. */
  spawnMs: number;
  stats: VoteStats;
  /** Ledger refusals summed over the voters (by reason). */
  refused: Record<string, number>;
}

const codec = defineCodec(itemVoteSpec(1));
const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };
const GROUND_Y = 20;

export function runItemSim(o: ItemSimOptions): ItemSimResult {
  const { rand, clock, tickMs, maxMs, voterIds, claimIds, set, stats, dead, latency } = voteTrial(o, 5, 'p');
  const skew = new Map(voterIds.map((id) => [id, (rand() - 0.5) * 10] as const));
  const ledgers = voterIds.map(() => new ItemLedger(`sim-${o.seed}`, AREA));
  const hosts = voterIds.map((self, i) => new ItemVotes({ self, voters: set, ledger: ledgers[i]!, rng: seededRandom(o.seed * 97 + i), now: () => clock.now() + skew.get(self)!, stats }));
  const watchers = new Map<string, VoteWatcher<ItemCandidate>>();
  const spawns = new Map<string, Item>();
  const owners = new Set<string>();
  const far = o.farClaimant ? claimIds[0] : undefined;
  let firstClaim = NaN, learnedAt = NaN, spawnedAt = NaN;
  let item: Item | undefined;

  const deliver = (to: string, from: string, msg: VoteMessage<ItemCandidate>): void => {
    const v = voterIds.indexOf(to);
    if (v >= 0) return apply(to, hosts[v]!.receive(from, msg));
    const w = watchers.get(to);
    if (!w) return;
    for (const e of w.receive(from, msg)) {
      if ('decided' in e && e.decided.c.t === 'c') {
        owners.add(e.decided.c.who);
        if ([...watchers.values()].every((x) => x.decided)) learnedAt = clock.now();
      }
    }
  };
  const apply = (from: string, effects: (ItemEffect | VoteEffect<ItemCandidate>)[]): void => {
    for (const e of effects) {
      if ('spawned' in e) {
        spawns.set(JSON.stringify([e.spawned.id, e.spawned.kind, e.spawned.x, e.spawned.z, e.spawned.at]), e.spawned);
        if (!item) onSpawn((item = { ...e.spawned }));
        continue;
      }
      if ('taken' in e) {
        owners.add(e.taken.owner!);
        continue;
      }
      if ('decided' in e) continue;
      const frame = codec.encode(e.send);
      for (const to of e.to) {
        if (rand() < o.loss) continue;
        clock.setTimeout(() => {
          if (!dead.has(to)) deliver(to, from, codec.decode(frame) as VoteMessage<ItemCandidate>);
        }, latency(from, to));
      }
    }
  };
  // Players see the item (the region state tells them) and walk into it about when it appears.
  const onSpawn = (it: Item): void => {
    spawnedAt = clock.now();
    for (const p of claimIds) {
      const d = p === far ? 6 : rand() * 1.5;
      const angle = rand() * 2 * Math.PI;
      const c: ClaimCandidate = { t: 'c', who: p, x: it.x + d * Math.cos(angle), y: it.y, z: it.z + d * Math.sin(angle) };
      const w = new VoteWatcher<ItemCandidate>({ id: `take:${it.id}:0`, voters: set, key: candidateKey, claim: c, stats });
      const at = Math.max(0, it.at - clock.now()) + rand() * 20;
      clock.setTimeout(() => {
        watchers.set(p, w);
        if (Number.isNaN(firstClaim)) firstClaim = clock.now();
        apply(p, w.start());
        const tick = () => {
          apply(p, w.tick());
          if (!w.decided) clock.setTimeout(tick, tickMs);
        };
        clock.setTimeout(tick, tickMs);
      }, at);
    }
  };

  for (const [i, id] of voterIds.entries()) {
    const tick = () => {
      if (dead.has(id)) return;
      apply(id, hosts[i]!.tick());
      clock.setTimeout(tick, tickMs);
    };
    clock.setTimeout(tick, rand() * tickMs);
  }
  const propose = (p: string) => {
    const h = hosts[voterIds.indexOf(p)]!;
    if (!dead.has(p) && h.ledger.spawnVoteId.endsWith(':0')) apply(p, h.proposeSpawn(() => GROUND_Y));
  };
  for (const p of shuffle(rand, [...voterIds]).slice(0, Math.max(1, o.proposers))) clock.setTimeout(() => propose(p), rand() * 20);
  // The hosts' random spawn timers fire again later: a proposal that died with its proposer is made anew.
  for (const p of voterIds) clock.setTimeout(() => propose(p), 3000 + rand() * 1000);
  let lastCrash = 0;
  for (const victim of shuffle(rand, [...voterIds]).slice(0, o.crashes ?? 0)) {
    const at = randomInt(rand, 0, o.crashWithinMs ?? 2600);
    lastCrash = Math.max(lastCrash, at);
    clock.setTimeout(() => dead.add(victim), at);
  }

  const live = () => voterIds.map((_, i) => i).filter((i) => !dead.has(voterIds[i]!));
  const settled = () =>
    item !== undefined && watchers.size === claimIds.length && [...watchers.values()].every((w) => w.decided) &&
    live().every((i) => ledgers[i]!.item(item!.id)?.owner != null);
  let done = false;
  while (!(done && clock.now() > lastCrash) && clock.now() < maxMs) {
    clock.advanceSync(5);
    done ||= settled();
  }
  for (const l of ledgers) for (const it of l.items) if (it.owner) owners.add(it.owner);
  const refused: Record<string, number> = {};
  for (const l of ledgers) for (const [k, n] of Object.entries(l.stats)) refused[k] = (refused[k] ?? 0) + n;
  const liveVoters = live().length;
  const winner = [...owners][0];
  return {
    spawns: spawns.size,
    owners: [...owners],
    ownerIsNearClaimant: winner !== undefined && claimIds.includes(winner) && winner !== far,
    liveVoters,
    majorityLived: set.isMajority(liveVoters),
    settled: done,
    pickupMs: learnedAt - firstClaim,
    spawnMs: spawnedAt,
    stats,
    refused,
  };
}

/** A trial drawn from the seed: 3-5 voters, 1-3 rival proposers, 2-8 claimants, 5-155 ms links, up to 10% loss, a voter dying in a third, a far claimant in a quarter. */
export function randomItemSim(seed: number, rand: Random = seededRandom(seed ^ 0x17e4)): ItemSimOptions {
  const base = randomContest(seed, rand);
  return { ...base, proposers: randomInt(rand, 1, Math.min(3, base.voters) + 1), farClaimant: rand() < 0.25 };
}
