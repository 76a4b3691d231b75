// An area's hosts and players on virtual time, with everything issue 10 puts between them:
// each node's own drifting clock and WorldClock (hosts follow the first host, players follow
// the hosts), the spawn proposed by rival hosts, every player's replica (ItemClient) shown
// frame by frame at 60 Hz from the agreed world time, the players walking into the item, and
// the vote deciding who takes it. Clock and vote frames share links whose latency differs
// each way, with jitter and loss. Measures the true-time spread of the item's first frame
// across the players (spawn skew), and whether every ledger and replica ends with the one
// owner. Run by src/agree/item-client.test.ts and bench/contest-bench.ts.
import { defineCodec } from '../core/codec';
import { seededRandom, shuffle } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { clockSpec, type ClockMessage } from '../agree/clock-probe';
import { ItemClient, type ClientEffect } from '../agree/item-client';
import { ItemLedger, type Item } from '../agree/item-ledger';
import { itemVoteSpec, ItemVotes, type ItemEffect, type ItemVoteMessage } from '../agree/item-votes';
import { VoterSet } from '../agree/voter-set';
import { WorldClock } from '../agree/world-clock';
import { DriftingClock } from './drifting-clock';

export interface ItemWorldOptions {
  seed: number;
  hosts: number;
  players: number;
  proposers: number;
  latencyMinMs: number;
  latencyMaxMs: number;
  /** Mean of the exponential per-frame jitter. */
  jitterMeanMs: number;
  loss: number;
  /** Clock sync before the spawn is proposed (default 3 s). */
  warmupMs?: number;
  maxMs?: number;
}

export interface ItemWorldResult {
  /** True-time spread of the frames on which each player first showed the item (ms): the clocks' spread plus up to a frame (60 Hz frames of random phase). */
  skewMs: number;
  /** True-time spread of the moments each player's event clock fired the appearance (`WorldClock.at(item.at)`): the clocks alone. */
  fireSkewMs: number;
  /** Players that learned the item only after its agreed time (shown late, on hearing). */
  late: number;
  owners: string[];
  /** Every host ledger and every player replica names the same one owner. */
  settled: boolean;
  /** The players' clock bounds at the spawn (ms, max). */
  boundMs: number;
}

export const FRAME_MS = 1000 / 60;
const codec = defineCodec({ ...itemVoteSpec(1), ...clockSpec(10) });
const AREA = { ax: 0, az: 0, x0: 0, z0: 0, size: 64 };

export function runItemWorld(o: ItemWorldOptions): ItemWorldResult {
  const rand = seededRandom(o.seed);
  const truth = new VirtualClock();
  const hostIds = Array.from({ length: o.hosts }, (_, i) => `h${i}`);
  const playerIds = Array.from({ length: o.players }, (_, i) => `p${i}`);
  const set = new VoterSet(1, hostIds);
  const linkMs = new Map<string, number>();
  const clocks = new Map<string, WorldClock>();
  const handlers = new Map<string, (from: string, msg: ItemVoteMessage) => void>();

  const send = (from: string, to: string, msg: ItemVoteMessage | ClockMessage): void => {
    const k = `${from}>${to}`;
    if (!linkMs.has(k)) linkMs.set(k, o.latencyMinMs + rand() * (o.latencyMaxMs - o.latencyMinMs));
    if (rand() < o.loss) return;
    const frame = codec.encode(msg);
    truth.setTimeout(() => {
      const m = codec.decode(frame);
      if (m.t === 'TIME_REQ' || m.t === 'TIME_REP') clocks.get(to)?.receive(from, m);
      else handlers.get(to)?.(from, m as ItemVoteMessage);
    }, linkMs.get(k)! - Math.log(1 - rand()) * o.jitterMeanMs);
  };
  const worldClock = (id: string, refs: string[]) => {
    const local = new DriftingClock(truth, rand() * 1e6, (rand() - 0.5) * 2e-4);
    const c = new WorldClock({ local, base: 1.7e12 - local.now(), send: (to, m) => send(id, to, m), references: () => refs });
    clocks.set(id, c);
    c.start();
    return c;
  };

  const hosts = hostIds.map((self, i) => {
    const clock = worldClock(self, i === 0 ? [] : [hostIds[0]!]);
    const votes = new ItemVotes({ self, voters: set, ledger: new ItemLedger(`w${o.seed}`, AREA), rng: seededRandom(o.seed * 13 + i), now: () => clock.now(), subscribers: () => playerIds });
    return { self, clock, votes };
  });
  const out = (from: string, fx: (ItemEffect | ClientEffect)[]) => {
    for (const e of fx) if ('send' in e) for (const to of e.to) send(from, to, e.send);
  };
  for (const h of hosts) handlers.set(h.self, (from, m) => out(h.self, h.votes.receive(from, m)));

  let item: Item | undefined;
  const shownAt = new Map<string, number>();
  const firedAt = new Map<string, number>();
  let late = 0, boundMs = 0;
  const players = playerIds.map((self) => {
    const clock = worldClock(self, hostIds);
    const client = new ItemClient({ self, seed: `w${o.seed}`, area: AREA, voters: set });
    handlers.set(self, (from, m) => {
      for (const e of client.receive(from, m)) {
        if ('appeared' in e) {
          item ??= e.appeared;
          if (clock.now() >= e.appeared.at) late++;
          clock.at(e.appeared.at, () => firedAt.set(self, truth.now()));
        }
      }
    });
    // The frame loop: show what the replica holds at world time now; walk into it soon after.
    const phase = rand() * FRAME_MS;
    const reach = rand() * 1.5;
    const frame = () => {
      const now = clock.now();
      // Its first frame: from its agreed time on (it may be taken a moment later, by a player quicker to reach it).
      const shown = client.ledger.items.find((i) => i.at <= now);
      if (shown && !shownAt.has(self)) {
        shownAt.set(self, truth.now());
        boundMs = Math.max(boundMs, clock.status().bound);
        truth.setTimeout(() => out(self, client.claim(shown.id, { x: shown.x + reach, y: shown.y, z: shown.z }, clock.now())), rand() * 20);
      }
      truth.setTimeout(frame, FRAME_MS);
    };
    truth.setTimeout(frame, phase);
    return { self, clock, client };
  });

  const tick = (id: string, fn: () => (ItemEffect | ClientEffect)[]) => {
    const t = () => { out(id, fn()); truth.setTimeout(t, 250); };
    truth.setTimeout(t, rand() * 250);
  };
  for (const h of hosts) tick(h.self, () => h.votes.tick());
  for (const p of players) tick(p.self, () => p.client.tick());
  const warm = o.warmupMs ?? 3000;
  for (const h of shuffle(rand, [...hosts]).slice(0, Math.max(1, o.proposers))) {
    // Rivals for the first slot: a host that already applied it stays quiet (its next timer would propose the next slot).
    truth.setTimeout(() => { if (h.votes.ledger.spawnVoteId.endsWith(':0')) out(h.self, h.votes.proposeSpawn(() => 20)); }, warm + rand() * 20);
  }

  const ownerOf = (l: ItemLedger) => (item ? l.item(item.id)?.owner ?? null : null);
  const ledgers = [...hosts.map((h) => h.votes.ledger), ...players.map((p) => p.client.ledger)];
  const settled = () => item !== undefined && ledgers.every((l) => ownerOf(l) !== null && ownerOf(l) === ownerOf(ledgers[0]!));
  const maxMs = o.maxMs ?? 30_000;
  while (!(settled() && shownAt.size === o.players) && truth.now() < maxMs) truth.advanceSync(10);
  const times = [...shownAt.values()];
  const fired = [...firedAt.values()];
  for (const c of clocks.values()) c.stop();
  return {
    skewMs: times.length === o.players ? Math.max(...times) - Math.min(...times) : NaN,
    fireSkewMs: fired.length === o.players ? Math.max(...fired) - Math.min(...fired) : NaN,
    late,
    owners: [...new Set(ledgers.map(ownerOf).filter((x): x is string => x !== null))],
    settled: settled(),
    boundMs,
  };
}
