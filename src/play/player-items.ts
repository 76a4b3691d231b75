// The player's side of items over the network (docs/ITEMS.md): an ItemClient per subscribed
// region, whose voters are the region's certified host set (RegionClient.hostSet), fed by the
// hosts' ITEM_STATE (the region's ledger: a late joiner catches up, thesis 18) and their
// DECIDED frames; the player's claims go to every host of the item's region, its drops to the
// region's primary. The world clock follows the hosts of the region the player stands in.
// Frames are taken only from a host of the region's current set (ItemClient checks the vote
// frames; ITEM_STATE is checked here), and a decision or record only with the signatures of
// a majority of the set of its epoch (agree/decision-proof.ts); the rest is counted.
import { every, type Clock } from '../core/clock';
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { signOwnerRequest, type OwnerAsk, type OwnerSig } from '../agree/owner-request';
import { ProofChecker } from '../agree/decision-proof';
import { provenRecords } from '../agree/vote-signing';
import type { Item } from '../agree/item-ledger';
import type { HeldItem } from './player-record';
import { ItemClient } from '../agree/item-client';
import { isVoteFrame, voteFrame, voteOf, type ItemWire, type ItemWireMessage, type ItemWireOf } from '../agree/item-wire';
import { areaOf } from '../agree/region-items';
import { VoterSet } from '../agree/voter-set';
import type { WorldClock } from '../agree/world-clock';
import { regionAt, regionName, type RegionCoord } from '../region/region-key';
import type { RegionClient } from './region-client';

/** Claim re-sends and drop re-sends. */
const TICK_MS = 250;
/** A claim or drop not answered by then is given up ('undecided'; the item stays as the hosts have it). */
const ANSWER_MS = 5000;
/** Regions whose ledgers are kept once no longer subscribed (those holding our items). */
const MAX_KEPT = 25;
/** Held items remembered from the player's own record (play/player-record.ts MAX_HELD_IN_RECORD). */
const MAX_RECORDED = 32;

export interface PlayerItemsArgs {
  client: Pick<RegionClient, 'subscribed' | 'hostSet'>;
  wire: ItemWire;
  /** Our node id (hex): what the hosts see our claims come from. */
  self: string;
  /** Our node identity (its id is `self`): signs our drop and carry requests (agree/owner-request.ts). */
  signer: Signer;
  seed: string;
  clock: Clock;
  /** The world clock the page shows items by (its references: `clockReferences`). */
  world: Pick<WorldClock, 'now' | 'receive'>;
  /** Checks the hosts' signatures over decisions (a key must stand for the id it signs as). */
  verify: Verifier;
}

interface RegionItemsView {
  coord: RegionCoord;
  items: ItemClient;
  tag: number;
  hosts: NodeId[];
  primary: NodeId | undefined;
  /** The region's voter sets by epoch (this one, the one before it, those we followed): proofs name theirs. */
  sets: Map<number, VoterSet>;
}

/** Voter sets remembered per region. */
const MAX_SETS = 8;

/** The same voters in the same order (undefined: no set held). */
const sameVoters = (a: VoterSet | undefined, b: VoterSet): boolean => !!a && a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i]);

type Waiter = { until: number; check: () => boolean; done: (ok: boolean) => void };

export class PlayerItems {
  readonly stats = { statesIn: 0, notFromHost: 0, stray: 0, claims: 0, drops: 0, carries: 0, unsigned: 0 };
  readonly checker: ProofChecker;
  private readonly regions = new Map<string, RegionItemsView>();
  private readonly waiters = new Set<Waiter>();
  private stops: (() => void)[] = [];
  private here: RegionCoord | undefined;
  /** Our requests' numbers (each signed: owner-request.ts). */
  private requestNo = 0;
  /**
   * Items the player's own signed record says it holds, which no region ledger here knows
   * yet (after a reload, far from their regions): shown in the inventory until a ledger
   * answers, which then decides (the region state, not the record, says who holds an item).
   */
  private readonly recorded = new Map<string, HeldItem>();
  /** An ITEM_STATE that came before we knew the region's host set (its SNAPSHOT's certificate is still being checked): taken once we do. */
  private readonly early = new Map<string, { fromHex: string; m: ItemWireOf<'ITEM_STATE'> }>();

  constructor(private readonly a: PlayerItemsArgs) {
    this.checker = new ProofChecker(a.verify);
  }

  start(): void {
    this.stops.push(this.a.wire.events.on('frame', ({ fromHex, msg }) => this.onFrame(fromHex, msg)));
    this.stops.push(every(this.a.clock, TICK_MS, () => this.tick()));
  }

  stop(): void {
    for (const s of this.stops) s();
    this.stops = [];
    for (const w of this.waiters) w.done(false);
    this.waiters.clear();
  }

  /** Where the player stands: the world clock follows that region's hosts. */
  standAt(x: number, z: number): void {
    this.here = regionAt(x, z);
  }

  /** The hosts of the region the player stands in (hex; ourselves left out: a tab's host clock answers others, not its own player). */
  clockReferences(): string[] {
    const r = this.here && this.regions.get(regionName(this.here));
    return r ? r.hosts.map(idToHex).filter((h) => h !== this.a.self) : [];
  }

  /** Every region's items as this player knows them. */
  items(): Item[] {
    return [...this.regions.values()].flatMap((r) => r.items.ledger.items);
  }

  /** Items lying in the world and shown at world time `now`. */
  onGround(now = this.a.world.now()): Item[] {
    return [...this.regions.values()].flatMap((r) => r.items.ledger.onGround(now));
  }

  /** The latest record of an item here (a carried one has a tombstone in the region it left). */
  latest(id: string): Item | undefined {
    const r = this.holding(id);
    return r?.items.ledger.item(id);
  }

  /** What we hold: of each item's records here (a carried item has one in each region it passed), the latest. */
  inventory(): Item[] {
    const latest = new Map<string, Item>();
    for (const r of this.regions.values()) {
      for (const it of r.items.ledger.items) if ((latest.get(it.id)?.gen ?? -1) < it.gen) latest.set(it.id, it);
    }
    return [...latest.values()].filter((i) => i.owner === this.a.self);
  }

  /** The held items of the player's record (loaded at start), for the inventory until their regions answer. */
  remember(held: readonly HeldItem[]): void {
    for (const h of held.slice(0, MAX_RECORDED)) if (!this.holding(h.id)) this.recorded.set(h.id, { id: h.id, kind: h.kind });
  }

  /** Held per the player's record and not yet known to any region ledger here. */
  recordedHeld(): HeldItem[] {
    for (const id of this.recorded.keys()) if (this.holding(id)) this.recorded.delete(id); // a ledger knows it now: the ledger decides
    return [...this.recorded.values()];
  }

  /** Walking into an item: the claim to the hosts of its region; true once decided ours, false when another's or unanswered. */
  claim(itemId: string, p: { x: number; y: number; z: number }): Promise<boolean> {
    const r = this.holding(itemId);
    if (!r) return Promise.resolve(false);
    this.stats.claims++;
    this.send(r, r.items.claim(itemId, p, this.a.world.now()));
    const it = () => r.items.ledger.item(itemId);
    return this.await(() => it()?.owner != null || !it()).then(() => it()?.owner === this.a.self);
  }

  /** Puts a held item down at `p`, in its region or another one (carried: agree/carry-record.ts); true once the hosts' state shows it. */
  async drop(itemId: string, p: { x: number; y: number; z: number }): Promise<boolean> {
    const r = this.holding(itemId);
    const it = r?.items.ledger.item(itemId);
    if (!r || !it || it.owner !== this.a.self || !r.primary) return false;
    const want = regionAt(p.x, p.z);
    if (want.rx !== r.coord.rx || want.rz !== r.coord.rz) return this.carry(r, it, want, p);
    if (it.away !== undefined) return false; // on its way elsewhere: put down only there
    this.stats.drops++;
    const gen = it.gen, primary = r.primary;
    const at = { x: p.x, y: p.y, z: p.z };
    const req = await this.sign(r.coord, { kind: 'drop', item: itemId, gen, p: at });
    this.a.wire.send(primary, { t: 'ITEM_DROP', ...r.coord, ...req, item: itemId, ...at });
    return this.await(() => (r.items.ledger.item(itemId)?.gen ?? gen) > gen);
  }

  /** Our signature on a request of ours to the hosts of region `to` (numbered by the requests sent). */
  private sign(to: RegionCoord, ask: OwnerAsk): Promise<{ r: number; o: OwnerSig }> {
    return signOwnerRequest(this.a.signer, { ax: to.rx, az: to.rz }, ask, ++this.requestNo, this.a.world.now());
  }

  /** Refused input, by reason: the replicas' ledgers and vote counters, and ours. */
  counters(): Record<string, number> {
    const out: Record<string, number> = { ...this.stats };
    for (const r of this.regions.values()) {
      for (const [k, n] of Object.entries(r.items.ledger.stats)) out[k] = (out[k] ?? 0) + n;
      for (const [k, n] of Object.entries(r.items.stats)) out[`vote.${k}`] = (out[`vote.${k}`] ?? 0) + n;
    }
    for (const [k, n] of Object.entries(this.checker.stats)) out[`proof.${k}`] = n;
    return out;
  }

  /** The region whose record of the item is the latest (a carried item has a tombstone behind it). */
  private holding(itemId: string): RegionItemsView | undefined {
    let best: RegionItemsView | undefined;
    for (const r of this.regions.values()) {
      const it = r.items.ledger.item(itemId);
      if (it && (!best || best.items.ledger.item(itemId)!.gen < it.gen)) best = r;
    }
    return best;
  }

  /**
   * Carries a held item from its region r into region `to` and puts it down at p: the
   * tombstone in r first (proven by r's hosts, still ours), then its arrival in `to`, whose
   * hosts check r's proof. A carry cut between the two resumes from the tombstone.
   */
  private async carry(r: RegionItemsView, it: Item, to: RegionCoord, p: { x: number; y: number; z: number }): Promise<boolean> {
    const dest = regionName(to);
    if (it.away !== undefined && it.away !== dest) return false;
    this.stats.carries++;
    if (it.away === undefined) {
      const req = await this.sign(r.coord, { kind: 'carry', item: it.id, gen: it.gen, to: dest });
      this.a.wire.send(r.primary!, { t: 'ITEM_CARRY', ...r.coord, ...req, item: it.id, to: { rx: to.rx, rz: to.rz } });
      const tombstone = () => { const t = r.items.ledger.item(it.id); return t?.away === dest && t.proof !== undefined; };
      if (!(await this.await(tombstone))) return false;
    }
    const tomb = r.items.ledger.item(it.id)!;
    const there = this.regions.get(dest);
    if (!there?.primary) return false;
    const at = { x: p.x, y: p.y, z: p.z };
    const req = await this.sign(to, { kind: 'arrive', item: tomb.id, gen: tomb.gen, p: at, from: regionName(r.coord) });
    this.a.wire.send(there.primary, { t: 'ITEM_BRING', ...to, ...req, from: { ...r.coord, rec: tomb }, ...at });
    return this.await(() => (there.items.ledger.item(it.id)?.gen ?? -1) > tomb.gen);
  }

  private await(check: () => boolean): Promise<boolean> {
    if (check()) return Promise.resolve(true);
    return new Promise((done) => this.waiters.add({ until: this.a.clock.now() + ANSWER_MS, check, done }));
  }

  private tick(): void {
    const subscribed = new Set<string>();
    for (const coord of this.a.client.subscribed()) {
      subscribed.add(regionName(coord));
      this.refresh(coord);
    }
    for (const [name, e] of this.early) {
      const r = this.regions.get(name);
      if (!subscribed.has(name) || (r && r.tag > e.m.e)) this.early.delete(name);
      else if (r && r.tag === e.m.e) {
        this.early.delete(name);
        void this.takeState(r, e.fromHex, e.m);
      }
    }
    for (const [name, r] of this.regions) {
      if (subscribed.has(name)) this.send(r, r.items.tick());
      else if (this.regions.size > MAX_KEPT || r.items.ledger.heldBy(this.a.self).length === 0) this.regions.delete(name);
    }
    const now = this.a.clock.now();
    for (const w of this.waiters) {
      const ok = w.check();
      if (ok || now >= w.until) {
        this.waiters.delete(w);
        w.done(ok);
      }
    }
  }

  /** The region's items view, following its certified host set (a new epoch: new voters, open claims re-sent). */
  private refresh(coord: RegionCoord): RegionItemsView | undefined {
    const name = regionName(coord);
    let r = this.regions.get(name);
    const set = this.a.client.hostSet(coord);
    if (!set) return r;
    const voters = new VoterSet(set.epoch, set.hosts.map(idToHex));
    if (!r) {
      r = { coord: { rx: coord.rx, rz: coord.rz }, items: new ItemClient({ self: this.a.self, seed: this.a.seed, area: areaOf(coord), voters }), tag: set.epoch, hosts: set.hosts, primary: set.primary, sets: new Map() };
      this.regions.set(name, r);
    } else if (r.tag !== set.epoch || !sameVoters(r.sets.get(set.epoch), voters)) {
      // A new epoch, or another set of the same one: the region client showed a fork's
      // certificate (an attacker's, outside the limit of docs/TRUST.md) and now the chain it
      // holds. Its voters replace the other set's, whose keys would prove decisions to us
      // and whose hosts' ledger state alone we would take (captured-voters.test.ts).
      r.tag = set.epoch;
      r.hosts = set.hosts;
      this.send(r, r.items.setVoters(voters));
    }
    if (!sameVoters(r.sets.get(set.epoch), voters)) {
      r.sets.set(set.epoch, voters);
      if (set.prev) r.sets.set(set.prev.epoch, new VoterSet(set.prev.epoch, set.prev.hosts.map(idToHex)));
      while (r.sets.size > MAX_SETS) r.sets.delete(Math.min(...r.sets.keys()));
    }
    r.primary = set.primary;
    return r;
  }

  /** The hosts' ledger state: its records taken only by their proofs. */
  private async takeState(r: RegionItemsView, fromHex: string, m: ItemWireOf<'ITEM_STATE'>): Promise<void> {
    if (m.e !== r.tag || !r.hosts.some((h) => idToHex(h) === fromHex)) return void this.stats.notFromHost++;
    this.stats.statesIn++;
    const { state } = await provenRecords(r.items.ledger, m.state, this.checker, (e) => r.sets.get(e), this.stats, fromHex);
    r.items.applyState(state);
    this.wake();
  }

  private send(r: RegionItemsView, fx: ReturnType<ItemClient['tick']>): void {
    for (const e of fx) {
      if ('check' in e) {
        // On the budget of the voter whose message completed the decision.
        const { vote, d, rec, proof, via } = e.check;
        void this.checker.check(r.items.ledger.area, rec, proof, r.sets.get(proof.e), via).then((fault) => {
          if (fault) return;
          r.items.applyChecked(vote, d, proof);
          this.wake();
        });
      }
      if (!('send' in e)) continue;
      const frame = voteFrame(r.coord, e.send);
      for (const hex of e.to) this.a.wire.send(hexToId(hex), frame);
    }
  }

  /** Waiters whose condition holds now are answered. */
  private wake(): void {
    for (const w of this.waiters) if (w.check()) {
      this.waiters.delete(w);
      w.done(true);
    }
  }

  private onFrame(fromHex: string, m: ItemWireMessage): void {
    if (m.t === 'TIME_REP') return this.a.world.receive(fromHex, m);
    if (m.t !== 'ITEM_STATE' && m.t !== 'ITEM_PROPOSE' && m.t !== 'ITEM_DECIDED') return; // the host side's (host-items.ts)
    const r = this.refresh(m);
    if (m.t === 'ITEM_STATE' && (!r || m.e > r.tag)) {
      // Our attachment to this epoch's primary may not be complete yet: kept (one per region) until it is.
      if (this.early.size < 2 * MAX_KEPT || this.early.has(regionName(m))) this.early.set(regionName(m), { fromHex, m });
      return;
    }
    if (!r) return void this.stats.stray++;
    if (m.t === 'ITEM_STATE') void this.takeState(r, fromHex, m);
    else if (isVoteFrame(m)) this.send(r, r.items.receive(fromHex, voteOf(m)));
  }
}
