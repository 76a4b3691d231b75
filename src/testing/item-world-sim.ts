// An area's hosts and players on virtual time, with everything the items layer puts between them:
// each node's own drifting clock and WorldClock (hosts follow the first host, players follow
// the hosts), the spawn proposed by rival hosts, every player's replica (ItemClient) shown
// frame by frame at 60 Hz from the agreed world time, the players walking into the item, and
// the vote deciding who takes it, the hosts signing their proposals and every replica taking
// a decision only by the signatures (agree/vote-signing.ts, a SimKeyring's keys). Clock and vote frames share links whose latency differs
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
import { VoteSigning } from '../agree/vote-signing';
import { ProofChecker, ProofSigner } from '../agree/decision-proof';
import { WorldClock } from '../agree/world-clock';
import { hexToId } from '../core/node-id';
import { DriftingClock } from './drifting-clock';
import { SimKeyring } from './sim-keyring';

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

/** A node id (hex) for the simulation: hosts 0a.., players 0b.. */
const simId = (kind: 'a' | 'b', i: number) => `0${kind}${i.toString(16).padStart(38, '0')}`;

export async function runItemWorld(o: ItemWorldOptions): Promise<ItemWorldResult> {
  const rand = seededRandom(o.seed);
  const truth = new VirtualClock();
  const keyring = new SimKeyring(`world ${o.seed}`);
  const hostIds = Array.from({ length: o.hosts }, (_, i) => simId('a', i));
  const playerIds = Array.from({ length: o.players }, (_, i) => simId('b', i));
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

  const checker = new ProofChecker(keyring.verify, () => truth.now());
  const unsigned = { unsigned: 0, unprovable: 0 };
  const hosts = hostIds.map((self, i) => {
    const clock = worldClock(self, i === 0 ? [] : [hostIds[0]!]);
    const ledger = new ItemLedger(`w${o.seed}`, AREA);
    const votes = new ItemVotes({ self, voters: set, ledger, rng: seededRandom(o.seed * 13 + i), now: () => clock.now(), subscribers: () => playerIds });
    const signing = new VoteSigning({ area: AREA, ledger, signer: new ProofSigner(keyring.signer(hexToId(self)), () => truth.now()), checker, stats: unsigned });
    return { self, clock, votes, signing };
  });
  const byId = new Map(hosts.map((h) => [h.self, h]));
  const out = (from: string, fx: (ItemEffect | ClientEffect)[]) => {
    const h = byId.get(from);
    for (const e of fx) {
      if (h && 'vote' in e) void h.signing.decided(set, e.vote, e.decision, 'spawned' in e ? e.spawned : e.taken);
      if (!('send' in e)) continue;
      const ready = h ? h.signing.outgoing(set, e.send) : Promise.resolve(e.send);
      void ready.then((m) => { if (m) for (const to of e.to) send(from, to, m); });
    }
  };
  for (const h of hosts) {
    handlers.set(h.self, (from, m) => {
      if (m.t === 'PROPOSE') h.signing.book.heard(set.tag, from, m);
      if (m.t !== 'DECIDED') return out(h.self, h.votes.receive(from, m));
      void h.signing.checkDecided(set, m).then((ok) => ok && out(h.self, h.votes.receive(from, m)));
    });
  }

  let item: Item | undefined;
  const shownAt = new Map<string, number>();
  const firedAt = new Map<string, number>();
  let late = 0, boundMs = 0;
  const players = playerIds.map((self) => {
    const clock = worldClock(self, hostIds);
    const client = new ItemClient({ self, seed: `w${o.seed}`, area: AREA, voters: set });
    const took = (fx: ClientEffect[]) => {
      for (const e of fx) {
        if ('check' in e) {
          const { vote, d, rec, proof } = e.check;
          void checker.check(AREA, rec, proof, set).then((fault) => fault === null && took(client.applyChecked(vote, d, proof)));
        }
        if ('appeared' in e) {
          item ??= e.appeared;
          if (clock.now() >= e.appeared.at) late++;
          clock.at(e.appeared.at, () => firedAt.set(self, truth.now()));
        }
      }
    };
    handlers.set(self, (from, m) => took(client.receive(from, m)));
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
  await truth.runUntil(() => settled() && shownAt.size === o.players, maxMs);
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
