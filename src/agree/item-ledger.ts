// The items of one area (a region: its hosts are the voters) as pure state: what exists,
// where it lies, who holds it (the thesis's name tag, 4.1: the item records its single
// owner, so it can never have two), and which spawn slot and pickup vote come next. No
// I/O, no clock, no votes of its own: item-votes.ts runs the votes and hands their
// decisions here; the region state carries `toState()` (bounded, serializable) so the items
// survive failover, and `merge` joins two hosts' states in any order.
//
// Each vote has an id naming exactly what it decides: `spawn:<area>:<slot>` (which item
// appears as the slot-th spawn of the area) and `take:<item>:<gen>` (who takes the item
// in its gen-th time on the ground; a drop opens the next gen). A decision is applied
// only to the vote its id names, so a replayed one (an old gen, a slot already filled)
// changes nothing. Every refusal is counted by reason.
import type { Random } from '../core/seeded-random';
import { COMMON_KINDS, ITEM_KINDS, STAR_RULE, starCap, starHome, starId, starsHomedAt, type ItemKind } from './item-kinds';
import type { DecisionProof } from './decision-proof';
import { MAX_ITEMS, type Item } from './item-schemas';
import { sameRecord, splitVote, takes } from './record-merge';
import type { Decision } from './vote';
import type { VoterSet } from './voter-set';

export const ITEM_LEDGER_DEFAULTS = {
  /** Mean time between one host's spawn proposals while players are in the area. */
  spawnMeanMs: 30_000,
  /** Item records an area keeps (on the ground or held): bounds the state (msgpack, ~70 bytes a record and a proof of 2-5 signatures, ~130 bytes each: well under a region frame). */
  maxItems: MAX_ITEMS,
} as const;

/** A claimant's feet within this many blocks of the item (horizontally 1.5 plus the item's hover) take it. */
export const PICKUP_REACH = 2.5;
/** The claimed position may differ this much from where the hosts last saw the player (they lag a little). */
const CLAIM_SLACK = 4;
/** A spawn appears this long after it was proposed: longer than a vote at 150 ms one-way with loss, so every peer has it in time and shows it on the same frame. */
const SPAWN_LEAD_MS = 2000;
/** Items lying in an area at once; no spawn is proposed beyond. */
export const MAX_GROUND = 6;
/** A proposed appearance time may lie this far from the voter's world clock (clocks disagree a little, votes take time). */
const TIME_SLACK_MS = 10_000;

export type ItemLedgerOptions = { [K in keyof typeof ITEM_LEDGER_DEFAULTS]: number };

/** The area the ledger holds items for: world blocks [x0, x0 + size) x [z0, z0 + size); (ax, az) names it. */
export interface ItemArea {
  ax: number;
  az: number;
  x0: number;
  z0: number;
  size: number;
}

export type { Item } from './item-schemas';

/** A host's proposal of the slot-th spawn of an area. */
export interface SpawnCandidate {
  t: 's';
  slot: number;
  kind: ItemKind;
  /** The star's number (kind 'star' only). */
  star?: number | undefined;
  x: number;
  y: number;
  z: number;
  at: number;
  /** The proposing host (candidates differ by it, so two hosts' proposals are two candidates). */
  by: string;
}

/** A player walking into an item: who, and where they stand. */
export interface ClaimCandidate {
  t: 'c';
  who: string;
  x: number;
  y: number;
  z: number;
}

export type ItemCandidate = SpawnCandidate | ClaimCandidate;

export { itemCandidateSchema, itemIdSchema, itemSchema, ledgerStateSchema } from './item-schemas';

/** A candidate's identity in a vote: the proposing host of a spawn, the claimant of a pickup. */
export const candidateKey = (c: ItemCandidate): string => (c.t === 's' ? `s ${c.by} ${c.slot}` : `c ${c.who}`);

export const LEDGER_REJECTIONS = [
  'unknown-item', 'not-yet-shown', 'owned', 'too-far', 'position-mismatch', 'outside-area', 'bad-kind', 'star-not-home',
  'star-spent', 'full', 'wrong-slot', 'bad-time', 'wrong-candidate', 'replayed-decision', 'conflicting-decision',
  'forged-decision', 'not-owner', 'bad-vote-id',
] as const;
export type LedgerRejection = (typeof LEDGER_REJECTIONS)[number];

export interface LedgerState {
  area: ItemArea;
  /** The next spawn slot. */
  slot: number;
  /** Bit k: star k has spawned here (it never spawns again). */
  stars: number;
  items: Item[];
}

export class ItemLedger {
  readonly stats: Record<LedgerRejection, number> & { spawned: number; taken: number; dropped: number; merged: number };
  private readonly byId = new Map<string, Item>();
  private slot = 0;
  private stars = 0;
  private readonly o: ItemLedgerOptions;

  constructor(
    readonly seed: string,
    readonly area: ItemArea,
    options: Partial<ItemLedgerOptions> = {},
  ) {
    this.o = { ...ITEM_LEDGER_DEFAULTS, ...options };
    this.stats = { ...Object.fromEntries(LEDGER_REJECTIONS.map((r) => [r, 0])), spawned: 0, taken: 0, dropped: 0, merged: 0 } as ItemLedger['stats'];
  }

  get options(): ItemLedgerOptions {
    return this.o;
  }

  get name(): string {
    return `${this.area.ax},${this.area.az}`;
  }

  get items(): Item[] {
    return [...this.byId.values()];
  }

  item(id: string): Item | undefined {
    return this.byId.get(id);
  }

  /** Items lying in the world and shown at world time `now`. */
  onGround(now: number): Item[] {
    return this.items.filter((i) => i.owner === null && i.at <= now);
  }

  heldBy(who: string): Item[] {
    return this.items.filter((i) => i.owner === who);
  }

  get spawnVoteId(): string {
    return `spawn:${this.name}:${this.slot}`;
  }

  pickupVoteId(itemId: string): string | undefined {
    const it = this.byId.get(itemId);
    return it ? `take:${it.id}:${it.gen}` : undefined;
  }

  /** Room for another spawn (players present is the caller's condition). */
  wantsSpawn(): boolean {
    return this.byId.size < this.o.maxItems && this.items.filter((i) => i.owner === null).length < MAX_GROUND;
  }

  /** How long a host waits before its next spawn proposal while players are in the area: exponential, mean spawnMeanMs (the thesis's random intervals). */
  nextSpawnIn(rng: Random): number {
    return -Math.log(1 - rng()) * this.o.spawnMeanMs;
  }

  /** A host's proposal for the next slot: a random spot in the area, appearing SPAWN_LEAD_MS from now. `ground` gives the standing height at (x, z). */
  /**
   * `near`: a column within reach of a player the proposer sees, avoided while another of the
   * tries is free: a player standing there would take the item on the frame it appears,
   * before any other player's next frame could show it (docs/ITEMS.md "What the tab figures
   * measure"). Not a rule the voters check (players move; where they stand is each host's
   * own view): a crowded area still gets its items.
   */
  propose(rng: Random, now: number, by: string, ground: (x: number, z: number) => number | undefined, near?: (x: number, z: number) => boolean): SpawnCandidate | undefined {
    if (!this.wantsSpawn()) return undefined;
    // A few random columns: the host may not hold every column's blocks yet (loading).
    let x = 0, y: number | undefined, z = 0;
    let crowded: { x: number; y: number; z: number } | undefined;
    for (let tries = 0; tries < 8 && y === undefined; tries++) {
      x = this.area.x0 + Math.floor(rng() * this.area.size) + 0.5;
      z = this.area.z0 + Math.floor(rng() * this.area.size) + 0.5;
      y = ground(Math.floor(x), Math.floor(z));
      if (y !== undefined && near?.(x, z)) {
        crowded ??= { x, y, z };
        y = undefined;
      }
    }
    if (y === undefined && crowded) ({ x, y, z } = crowded);
    if (y === undefined) return undefined;
    const star = starsHomedAt(this.seed, this.area.ax, this.area.az).find((k) => !(this.stars & (1 << k)));
    const base = { t: 's' as const, slot: this.slot, x, y, z, at: Math.round(now + SPAWN_LEAD_MS), by };
    if (star !== undefined && rng() < STAR_RULE.chance) return { ...base, kind: 'star', star };
    return { ...base, kind: COMMON_KINDS[Math.floor(rng() * COMMON_KINDS.length)]! };
  }

  /** Why a spawn candidate is refused (counted), or undefined. `now` undefined: the time is not checked (a decided one). */
  checkSpawn(c: ItemCandidate, now?: number): LedgerRejection | undefined {
    if (c.t !== 's') return this.refuse('wrong-candidate');
    if (c.slot !== this.slot) return this.refuse('wrong-slot');
    if (!this.inside(c.x, c.z) || !(c.y >= 0 && c.y <= 256)) return this.refuse('outside-area');
    if (!ITEM_KINDS.includes(c.kind) || (c.kind === 'star') !== (c.star !== undefined)) return this.refuse('bad-kind');
    if (c.star !== undefined) {
      const home = starHome(this.seed, c.star);
      if (c.star >= starCap(this.seed) || home.ax !== this.area.ax || home.az !== this.area.az) return this.refuse('star-not-home');
      if (this.stars & (1 << c.star) || this.byId.has(starId(c.star))) return this.refuse('star-spent');
    }
    if (this.byId.size >= this.o.maxItems) return this.refuse('full');
    if (now !== undefined && Math.abs(c.at - now) > TIME_SLACK_MS) return this.refuse('bad-time');
    return undefined;
  }

  /** A decided spawn vote: the item it names joins the area (shown from its `at`). */
  applySpawn(voteId: string, d: Decision<ItemCandidate>, voters: VoterSet, proof?: DecisionProof): Item | LedgerRejection {
    const slot = parseVoteId(voteId, 'spawn', this.name);
    if (slot === undefined) return this.refuse('bad-vote-id');
    if (!voters.maskOk(d.proof, voters.decides)) return this.refuse('forged-decision');
    if (Number(slot) < this.slot) return this.refuse('replayed-decision');
    if (Number(slot) > this.slot) return this.refuse('wrong-slot');
    const c = d.c;
    const why = this.checkSpawn(c);
    if (why || c.t !== 's') return why ?? 'wrong-candidate';
    const it: Item = { ...this.spawnRecord(c), ...(proof ? { proof } : {}) };
    this.byId.set(it.id, it);
    this.slot++;
    if (c.star !== undefined) this.stars |= 1 << c.star;
    this.stats.spawned++;
    return it;
  }

  /** Why a claim is refused (counted), or undefined. `known`: where the hosts last saw the claimant. */
  checkClaim(itemId: string, c: ItemCandidate, now: number, known?: { x: number; y: number; z: number }): LedgerRejection | undefined {
    if (c.t !== 'c') return this.refuse('wrong-candidate');
    const it = this.byId.get(itemId);
    if (!it) return this.refuse('unknown-item');
    if (it.owner !== null) return this.refuse('owned');
    if (it.at > now) return this.refuse('not-yet-shown');
    if (!near(c, it, PICKUP_REACH)) return this.refuse('too-far');
    if (known && !near(c, known, CLAIM_SLACK)) return this.refuse('position-mismatch');
    return undefined;
  }

  /** A decided pickup vote: the claimant it names becomes the item's one owner. */
  applyPickup(voteId: string, d: Decision<ItemCandidate>, voters: VoterSet, proof?: DecisionProof): Item | LedgerRejection {
    const ref = parseVoteId(voteId, 'take');
    if (ref === undefined) return this.refuse('bad-vote-id');
    const cut = ref.lastIndexOf(':');
    const [itemId, gen] = [ref.slice(0, cut), Number(ref.slice(cut + 1))];
    const it = this.byId.get(itemId);
    if (!it) return this.refuse('unknown-item');
    if (!voters.maskOk(d.proof, voters.decides)) return this.refuse('forged-decision');
    if (d.c.t !== 'c') return this.refuse('wrong-candidate');
    if (gen < it.gen) return this.refuse('replayed-decision');
    if (gen > it.gen) return this.refuse('bad-vote-id');
    if (it.owner !== null) return this.refuse(it.owner === d.c.who ? 'replayed-decision' : 'conflicting-decision');
    it.owner = d.c.who;
    if (proof) it.proof = proof;
    else delete it.proof;
    this.stats.taken++;
    return it;
  }

  /** The record a spawn candidate makes (what its voters sign). */
  spawnRecord(c: SpawnCandidate): Item {
    return { id: c.star !== undefined ? starId(c.star) : `${this.name}/${c.slot}`, kind: c.kind, x: c.x, y: c.y, z: c.z, at: c.at, owner: null, gen: 0 };
  }

  /**
   * The record that results if `c` wins vote `voteId` (what a voter signs with its
   * proposal, decision-proof.ts); undefined when this ledger cannot tell (the item unknown
   * here, or at another gen).
   */
  recordFor(voteId: string, c: ItemCandidate): Item | undefined {
    if (voteId.startsWith('spawn:')) return c.t === 's' && voteId === `spawn:${this.name}:${c.slot}` ? this.spawnRecord(c) : undefined;
    const ref = parseVoteId(voteId, 'take');
    if (ref === undefined || c.t !== 'c') return undefined;
    const cut = ref.lastIndexOf(':');
    const it = this.byId.get(ref.slice(0, cut));
    if (!it || it.gen !== Number(ref.slice(cut + 1)) || it.away !== undefined) return undefined;
    const { proof: _p, ...bare } = it;
    return { ...bare, owner: c.who };
  }

  /** The signatures over a record this ledger holds as is (assembled after its decision took effect here). */
  prove(rec: Item, proof: DecisionProof): boolean {
    const it = this.byId.get(rec.id);
    if (!it || !sameRecord(it, rec)) return false;
    if (it.proof && it.proof.e >= proof.e) return false;
    it.proof = proof;
    return true;
  }

  /** The records of `s` that merging it would change or add here (the ones whose proofs need checking). */
  changesFrom(s: LedgerState): Item[] {
    return s.items.filter((theirs) => {
      const ours = this.byId.get(theirs.id);
      return !ours || takes(ours, theirs);
    });
  }

  /** The owner puts a held item back in the world at (x, y, z) (an ordered region operation, like an edit: only the owner may). */
  drop(itemId: string, by: string, p: { x: number; y: number; z: number }, now: number): Item | LedgerRejection {
    const it = this.byId.get(itemId);
    if (!it) return this.refuse('unknown-item');
    if (it.owner !== by || it.away !== undefined) return this.refuse('not-owner'); // a tombstone's item lies elsewhere (carry-record.ts)
    if (!this.inside(p.x, p.z)) return this.refuse('outside-area');
    Object.assign(it, { x: p.x, y: p.y, z: p.z, at: now, owner: null, gen: it.gen + 1 });
    delete it.proof;
    this.stats.dropped++;
    return it;
  }

  /**
   * The owner carries a held item out of this area (to drop it in another): the record
   * leaves this ledger (a star's spent bit stays) and the other area's `adopt` takes it.
   * Both steps must happen together; across two host sets that is the wiring's job.
   */
  release(itemId: string, by: string): Item | LedgerRejection {
    const it = this.byId.get(itemId);
    if (!it) return this.refuse('unknown-item');
    if (it.owner !== by) return this.refuse('not-owner');
    this.byId.delete(itemId);
    return it;
  }

  /** A held item carried in from another area (released there). */
  adopt(it: Item): Item | LedgerRejection {
    if (it.owner === null) return this.refuse('not-owner');
    if (this.byId.has(it.id)) return this.refuse('replayed-decision');
    if (this.byId.size >= this.o.maxItems) return this.refuse('full');
    const mine = { ...it };
    this.byId.set(it.id, mine);
    return mine;
  }

  toState(): LedgerState {
    return { area: { ...this.area }, slot: this.slot, stars: this.stars, items: this.items.map((i) => ({ ...i })) };
  }

  /**
   * Joins another host's state (a backup's copy after failover, a region SYNC): slots and
   * stars take the larger, an item the record of the higher gen, and at one gen the owned
   * one (a decision) over the unowned. Two owners at one gen would mean two decisions of one
   * vote: kept as ours, counted.
   */
  merge(s: LedgerState): void {
    if (s.area.ax !== this.area.ax || s.area.az !== this.area.az) {
      this.refuse('outside-area');
      return;
    }
    this.slot = Math.max(this.slot, s.slot);
    this.stars |= s.stars;
    for (const theirs of s.items) {
      const ours = this.byId.get(theirs.id);
      if (!ours) {
        if (this.byId.size >= this.o.maxItems) this.refuse('full');
        else this.byId.set(theirs.id, { ...theirs });
        continue;
      }
      // Two proven records of one vote: a voter signed both sides (record-merge.ts), counted whichever wins.
      if (splitVote(ours, theirs)) this.refuse('conflicting-decision');
      if (takes(ours, theirs)) {
        if (theirs.away === undefined) delete ours.away;
        if (theirs.proof === undefined) delete ours.proof;
        Object.assign(ours, theirs);
      }
    }
    this.stats.merged++;
  }

  static fromState(seed: string, s: LedgerState, options?: Partial<ItemLedgerOptions>): ItemLedger {
    const l = new ItemLedger(seed, s.area, options);
    l.merge(s);
    return l;
  }

  private inside(x: number, z: number): boolean {
    const a = this.area;
    return x >= a.x0 && x < a.x0 + a.size && z >= a.z0 && z < a.z0 + a.size;
  }

  private refuse(r: LedgerRejection): LedgerRejection {
    this.stats[r]++;
    return r;
  }
}

/** Feet within `r` blocks of the item (3D distance). */
function near(a: { x: number; y: number; z: number }, b: { x: number; y: number; z: number }, r: number): boolean {
  return (a.x - b.x) ** 2 + (a.y - b.y) ** 2 + (a.z - b.z) ** 2 <= r * r;
}

/** `spawn:<area>:<slot>` -> slot (as a string of digits), `take:<item>:<gen>` -> '<item>:<gen>'; undefined when malformed. */
function parseVoteId(id: string, kind: 'spawn' | 'take', area?: string): string | undefined {
  if (kind === 'spawn') {
    const m = /^spawn:(-?\d+,-?\d+):(\d+)$/.exec(id);
    return m && m[1] === area ? m[2] : undefined;
  }
  const m = /^take:(.+):(\d+)$/.exec(id);
  return m ? `${m[1]}:${m[2]}` : undefined;
}
