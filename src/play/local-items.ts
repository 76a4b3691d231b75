// The one-tab mode of items (like the one-tab world): this tab keeps the item ledgers of the
// areas the player walks through and is itself their only voter, so spawns and pickups go
// through the very ItemVotes and ItemLedger code the region hosts will run, decided at once
// by a voter set of one. Nobody else sees these items: until the host wiring carries the
// vote frames and the ledger in the region state (docs/ITEMS.md), they are this tab's own.
// Areas are region-sized (64 blocks); spawns come at random intervals in the area the player
// stands in (only areas with a player spawn). `states()` / `restore()` let the page keep the
// ledgers across reloads (app/page-items.ts), as the region state will keep them for the hosts.
import type { Random } from '../core/seeded-random';
import { ItemLedger, PICKUP_REACH, type LedgerRejection, type LedgerState } from '../agree/item-ledger';
import { ItemVotes } from '../agree/item-votes';
import { VoterSet } from '../agree/voter-set';
import type { WorldClock } from '../agree/world-clock';
import { itemInfo, type DropOutcome, type ItemInfo, type ItemService, type PickupOutcome, type Point } from './item-service';

/** Blocks per area side: a region's (4 chunk columns of 16). */
const AREA_SIZE = 64;
/** Ledgers kept for areas walked through (those holding the player's items are always kept). */
const MAX_AREAS = 25;
/** Vote ticks (re-sends; with one voter there is nothing to re-send, but the code path is the hosts'). */
const TICK_MS = 250;

interface Area {
  ledger: ItemLedger;
  votes: ItemVotes;
}

export interface LocalItemsOptions {
  seed: string;
  self: string;
  clock: WorldClock;
  /** Standing height at a block column, undefined while its chunk is not loaded. */
  ground: (x: number, z: number) => number | undefined;
  rng: Random;
  /** Mean time between spawns in the player's area (default: the ledger's). */
  spawnMeanMs?: number;
}

export class LocalItems implements ItemService {
  readonly self: string;
  private readonly areas = new Map<string, Area>();
  private readonly voters: VoterSet;
  private nextSpawn = NaN;
  private nextTick = 0;

  constructor(private readonly o: LocalItemsOptions) {
    this.self = o.self;
    this.voters = new VoterSet(0, [o.self]);
  }

  inView(p: Point, radius: number, worldMs = this.o.clock.now()): ItemInfo[] {
    const now = worldMs;
    return [...this.areas.values()].flatMap((a) => a.ledger.onGround(now)).filter((i) => Math.hypot(i.x - p.x, i.z - p.z) <= radius).map(info);
  }

  inventory(): ItemInfo[] {
    return [...this.areas.values()].flatMap((a) => a.ledger.heldBy(this.self)).map(info);
  }

  item(id: string): ItemInfo | undefined {
    const it = this.holding(id)?.ledger.item(id);
    return it && info(it);
  }

  touch(id: string, p: Point): Promise<PickupOutcome> {
    const area = this.holding(id);
    if (!area) return Promise.resolve({ taken: false, reason: 'unknown-item' });
    const before = { ...area.ledger.stats };
    area.votes.claim(id, { t: 'c', who: this.self, x: p.x, y: p.y, z: p.z });
    const it = area.ledger.item(id)!;
    if (it.owner === this.self) return Promise.resolve({ taken: true, item: info(it) });
    return Promise.resolve({ taken: false, reason: it.owner !== null ? 'owned' : refusedSince(before, area.ledger.stats) ?? 'undecided' });
  }

  drop(id: string, p: Point): Promise<DropOutcome> {
    let from = this.holding(id);
    if (!from) return Promise.resolve({ dropped: false, reason: 'unknown-item' });
    const to = this.areaAt(p.x, p.z);
    if (to !== from) {
      // Carried into another area: it leaves one ledger for the other (both this tab's here).
      const moved = from.ledger.release(id, this.self);
      if (typeof moved === 'string') return Promise.resolve({ dropped: false, reason: moved });
      const adopted = to.ledger.adopt(moved);
      if (typeof adopted === 'string') {
        from.ledger.adopt(moved);
        return Promise.resolve({ dropped: false, reason: adopted });
      }
      from = to;
    }
    const r = from.ledger.drop(id, this.self, p, this.o.clock.now());
    return Promise.resolve(typeof r === 'string' ? { dropped: false, reason: r } : { dropped: true, item: info(r) });
  }

  step(p: Point): void {
    const now = this.o.clock.now();
    const here = this.areaAt(p.x, p.z);
    if (Number.isNaN(this.nextSpawn)) this.nextSpawn = now + this.spawnDelay(here);
    if (now >= this.nextSpawn) {
      this.nextSpawn = now + this.spawnDelay(here);
      here.votes.proposeSpawn(this.o.ground);
    }
    // Walking into an item: every item the player stands in is claimed.
    for (const a of this.areas.values()) {
      for (const it of a.ledger.onGround(now)) {
        if ((it.x - p.x) ** 2 + (it.y - p.y) ** 2 + (it.z - p.z) ** 2 <= PICKUP_REACH ** 2) void this.touch(it.id, p);
      }
    }
    if (now >= this.nextTick) {
      this.nextTick = now + TICK_MS;
      for (const a of this.areas.values()) a.votes.tick();
    }
  }

  /** A spawn proposed now in the area of `p` (the spawn timer's code path); the item, shown from its `at`, or undefined (no room, ground not loaded). */
  spawnNow(p: Point): ItemInfo | undefined {
    const fx = this.areaAt(p.x, p.z).votes.proposeSpawn(this.o.ground);
    const spawned = fx.find((e) => 'spawned' in e);
    return spawned && 'spawned' in spawned ? info(spawned.spawned) : undefined;
  }

  /** The ledgers worth keeping (anything spawned in them), for storage. */
  states(): LedgerState[] {
    return [...this.areas.values()].filter((a) => a.ledger.spawnVoteId !== `spawn:${a.ledger.name}:0` || a.ledger.items.length).map((a) => a.ledger.toState());
  }

  /** Ledgers kept from before (already checked against ledgerStateSchema), joined into ours. */
  restore(states: readonly LedgerState[]): void {
    for (const s of states.slice(0, MAX_AREAS)) this.areaAt(s.area.x0, s.area.z0).ledger.merge(s);
  }

  stats(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const a of this.areas.values()) for (const [k, n] of Object.entries(a.ledger.stats)) out[k] = (out[k] ?? 0) + n;
    return out;
  }

  private spawnDelay(area: Area): number {
    return area.ledger.nextSpawnIn(this.o.rng);
  }

  private holding(id: string): Area | undefined {
    for (const a of this.areas.values()) if (a.ledger.item(id)) return a;
    return undefined;
  }

  private areaAt(x: number, z: number): Area {
    const size = AREA_SIZE;
    const ax = Math.floor(x / size), az = Math.floor(z / size);
    const key = `${ax},${az}`;
    let a = this.areas.get(key);
    if (a) {
      this.areas.delete(key); // most recent last
      this.areas.set(key, a);
      return a;
    }
    const ledger = new ItemLedger(this.o.seed, { ax, az, x0: ax * size, z0: az * size, size }, this.o.spawnMeanMs === undefined ? {} : { spawnMeanMs: this.o.spawnMeanMs });
    a = { ledger, votes: new ItemVotes({ self: this.self, voters: this.voters, ledger, rng: this.o.rng, now: () => this.o.clock.now() }) };
    this.areas.set(key, a);
    for (const [k, old] of this.areas) {
      if (this.areas.size <= MAX_AREAS) break;
      if (old.ledger.heldBy(this.self).length === 0) this.areas.delete(k);
    }
    return a;
  }
}

const info = itemInfo;

/** The refusal counted between two readings of a ledger's stats. */
function refusedSince(before: Record<string, number>, after: Record<string, number>): LedgerRejection | undefined {
  for (const [k, n] of Object.entries(after)) if (n > (before[k] ?? 0) && !['spawned', 'taken', 'dropped', 'merged'].includes(k)) return k as LedgerRejection;
  return undefined;
}
