// Items at one hosting node: a RegionItems beside each region the node hosts (as primary or
// backup), the items wire's frames routed to them, and the node's world clock, which answers
// the clock probes of players and other hosts. The clock follows the primaries of the
// regions this node backs up (a backup follows its primary, docs/ITEMS.md), only those with
// a lower id than ours, and never one that draws frames (a node that draws follows an idle
// one first, any id: `mayFollowClock`): the "follows" graph then has no cycle, so errors cannot
// feed on each other; a node following nobody is a reference itself (epoch ms).
//
//   const items = new HostItems({ host, wire: openItemWire(channels, clock), clock, seed, rng });
//   items.start(); ... items.stop();
import { every, type Clock } from '../core/clock';
import { hexToId, idToHex, type NodeId } from '../core/node-id';
import type { Random } from '../core/seeded-random';
import type { Signer, Verifier } from '../core/signer';
import type { Dht } from '../dht/dht';
import type { HostingService } from '../host/hosting-service';
import { CertChecker } from '../region/cert-checker';
import { getLocation, type RecordVerifier } from '../region/region-records';
import type { ItemsRegion } from '../host/items-region';
import { regionName } from '../region/region-key';
import { columnTop, terrainNoise, WATER_LEVEL } from '../world/heightmap';
import { bareRecord, ProofChecker, ProofSigner } from './decision-proof';
import { OwnerRequestChecker } from './owner-request';
import type { Carried } from './replicated-drops';
import type { Item, ItemLedgerOptions } from './item-ledger';
import { isClockFrame, type ItemWire, type ItemWireMessage } from './item-wire';
import { newHostItemStats, RegionItems, type HostItemStats } from './region-items';
import { newVoteStats, type VoteStats } from './vote-stats';
import { VoterSet } from './voter-set';
import { WorldClock } from './world-clock';

/** How long another region's location record is trusted for its host sets before it is read again. */
const LOCATED_MS = 5000;

/** Vote ticks (re-sends, patience), spawn timers, state sharing. */
const TICK_MS = 100;
/** The host's clock numbers its probes from here (a tab's player clock from 1). */
const FIRST_NONCE = 0x80000000;

export interface HostItemsArgs {
  host: Pick<HostingService, 'knownRegions' | 'selfHex' | 'keys'>;
  /** Reads other regions' location records (an item carried in is checked against its region's certified hosts). */
  dht: Pick<Dht, 'get' | 'nearView' | 'idWorkBits'>;
  wire: ItemWire;
  /** Local time and timers. */
  clock: Clock;
  /** World time minus local time while this node follows nobody (a tab: performance.timeOrigin). */
  base?: number;
  /** This node draws frames (a player tab rendering): its clock answers late by up to a frame (world-clock.ts `busy`). */
  busy?: boolean;
  /** When this node's clock probe rounds go out (world-clock.ts `sendAt`; a drawing page: at the top of a frame it skips). Default: at once. */
  sendAt?: (go: () => void) => void;
  seed: string;
  rng: Random;
  /** The node's identity: it signs the decisions this node votes for (decision-proof.ts). */
  signer: Signer;
  /** Checks other nodes' signatures (a key must stand for the id it signs as). */
  verify: Verifier;
  /** Standing height at a column (default: the generated terrain's surface). */
  ground?: (x: number, z: number) => number | undefined;
  /** The ledgers' options (tests: spawns sooner). */
  ledger?: Partial<ItemLedgerOptions>;
}

/**
 * Whether host clock `me` may follow host clock `ref`, so that no two clocks follow each
 * other round a cycle (errors would feed on themselves): an idle node follows idle nodes of
 * lower id only, a node that draws frames (busy) any idle node or a busy one of lower id.
 * Idle ids only fall, busy ids only fall, and nothing leads from idle back to busy. (A busy
 * reference's readings are late by up to a frame: nobody idle should follow it.)
 */
export function mayFollowClock(me: { id: string; busy: boolean }, ref: { id: string; busy: boolean }): boolean {
  const lower = ref.id < me.id;
  return ref.busy ? me.busy && lower : lower || me.busy;
}

export class HostItems {
  readonly clock: WorldClock;
  readonly stats: HostItemStats = newHostItemStats();
  readonly voteStats: VoteStats = newVoteStats();
  readonly signer: ProofSigner;
  readonly checker: ProofChecker;
  /** The owners' signatures on drop and carry requests, checked (refusals counted by reason). */
  readonly requests: OwnerRequestChecker;
  private readonly regions = new Map<string, RegionItems>();
  private stops: (() => void)[] = [];
  private readonly ground: (x: number, z: number) => number | undefined;
  /** Other regions' certified sets, read from their location records, by name (kept a while: carries come in bursts). */
  private readonly located = new Map<string, { at: number; sets: Promise<VoterSet[]> }>();
  private readonly records: RecordVerifier;

  constructor(private readonly a: HostItemsArgs) {
    this.signer = new ProofSigner(a.signer);
    this.checker = new ProofChecker(a.verify);
    this.requests = new OwnerRequestChecker(a.verify);
    this.records = { certs: new CertChecker(a.verify, a.dht.nearView, { idWorkBits: a.dht.idWorkBits }), verify: a.verify, hash: a.host.keys.hash };
    this.clock = new WorldClock({
      local: a.clock, ...(a.base !== undefined ? { base: a.base } : {}), firstNonce: FIRST_NONCE,
      send: (to, msg) => void a.wire.send(hexToId(to), msg),
      references: () => this.references(),
      ...(a.sendAt ? { sendAt: a.sendAt } : {}),
      busy: a.busy === true, mayFollow: (id, busy) => mayFollowClock({ id: a.host.selfHex, busy: a.busy === true }, { id, busy }),
    });
    const noise = terrainNoise(a.seed);
    this.ground = a.ground ?? ((x, z) => Math.max(columnTop(noise, x, z), WATER_LEVEL) + 1);
  }

  start(): void {
    this.clock.start();
    this.stops.push(this.a.wire.events.on('frame', ({ from, fromHex, msg }) => this.onFrame(from, fromHex, msg)));
    this.stops.push(every(this.a.clock, TICK_MS, () => this.tick()));
  }

  stop(): void {
    for (const s of this.stops) s();
    this.stops = [];
    this.clock.stop();
    for (const r of this.regions.values()) r.stop();
    this.regions.clear();
  }

  /** The items of a region this node hosts (undefined: not hosted here). */
  region(name: string): RegionItems | undefined {
    return this.regions.get(name);
  }

  /**
   * A hosted region's item records, each with whether its proof checks now against the set
   * of its epoch as this host knows it (tests and diagnostics: a fresh checker, so the
   * node's counters and cache stay as the protocol left them).
   */
  async checkedRecords(name: string): Promise<{ rec: Item; valid: boolean }[]> {
    const ri = this.regions.get(name);
    if (!ri) return [];
    const checker = new ProofChecker(this.a.verify);
    return Promise.all(ri.ledger.items.map(async (rec) => ({
      rec, valid: rec.proof !== undefined && (await checker.check(ri.ledger.area, bareRecord(rec), rec.proof, ri.setOf(rec.proof.e))) === null,
    })));
  }

  /** Refusals of the ledgers this node keeps, summed by reason. */
  ledgerStats(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.regions.values()) for (const [k, n] of Object.entries(r.ledger.stats)) out[k] = (out[k] ?? 0) + n;
    return out;
  }

  private tick(): void {
    const seen = new Set<string>();
    for (const r of this.a.host.knownRegions()) {
      // A region hosted once keeps its ledger while the node knows it, between epochs and
      // roles too (it stops voting, hands its votes over, and catches up when it hosts again).
      if (r.stopped || (r.role !== 'primary' && r.role !== 'backup' && !this.regions.has(r.name))) continue;
      seen.add(r.name);
      this.items(r).tick();
    }
    // A region the node forgot (or stopped) keeps its ledger in its stored record only.
    for (const [name, ri] of this.regions) {
      if (seen.has(name)) continue;
      ri.stop();
      this.regions.delete(name);
    }
  }

  private items(r: ItemsRegion): RegionItems {
    let ri = this.regions.get(r.name);
    if (!ri) {
      ri = new RegionItems({
        region: r, seed: this.a.seed, worldNow: () => this.clock.now(), localNow: () => this.a.clock.now(), rng: this.a.rng,
        send: (to, msg) => void this.a.wire.send(to, msg), ground: this.ground, stats: this.stats, signer: this.signer, checker: this.checker, requests: this.requests, checkCarried: (f, via) => this.checkCarried(f, via), voteStats: this.voteStats, ...(this.a.ledger ? { ledger: this.a.ledger } : {}),
      });
      this.regions.set(r.name, ri);
    }
    return ri;
  }

  /** Whether a tombstone is proven by the hosts of its region as the DHT's location record certifies them (that set or the one before); `via`: its sender (hex). */
  private async checkCarried(from: Carried, via?: string): Promise<boolean> {
    const proof = from.rec.proof;
    const sets = proof ? await this.certifiedSets(from).catch((): VoterSet[] => []) : [];
    const fault = proof ? await this.checker.check({ ax: from.rx, az: from.rz }, bareRecord(from.rec), proof, sets.find((s) => s.tag === proof.e), via) : 'unsigned';
    if (fault) this.stats.unprovenCarry++;
    return fault === null;
  }

  /**
   * Region (rx, rz)'s host sets as its DHT location record certifies them (its certificate's
   * set and the one before it), the certificate anchored near the key as we see it: a set the
   * record merely names could be anyone's keys, and would prove a carry out of the region.
   */
  private certifiedSets(c: { rx: number; rz: number }): Promise<VoterSet[]> {
    const name = regionName(c), now = this.a.clock.now();
    const held = this.located.get(name);
    if (held && now - held.at < LOCATED_MS) return held.sets;
    const sets = this.a.host.keys.key({ rx: c.rx, rz: c.rz }).then((key) => getLocation(this.a.dht, key, this.records, 'near')).then((loc) => {
      if (!loc) return [];
      const cert = loc.cert;
      return [new VoterSet(cert.e, cert.hosts.map(idToHex)), ...(cert.prev ? [new VoterSet(cert.prev.e, cert.prev.hosts.map(idToHex))] : [])];
    });
    this.located.set(name, { at: now, sets });
    if (this.located.size > 64) this.located.delete(this.located.keys().next().value!);
    return sets;
  }

  private onFrame(from: NodeId, fromHex: string, m: ItemWireMessage): void {
    if (isClockFrame(m)) {
      // A reply to a probe of this node's player clock (a tab) is not ours: its number is far from ours.
      this.clock.receive(fromHex, m);
      return;
    }
    const ri = this.regions.get(regionName(m));
    if (!ri) {
      // Not hosted here: answers to a player (its own claims' PROPOSE, DECIDED, state) are the player's.
      if (m.t === 'ITEM_CLAIM' || m.t === 'ITEM_REPORT' || m.t === 'ITEM_DROP' || m.t === 'ITEM_HANDOVER' || m.t === 'ITEM_SEEN' || m.t === 'ITEM_HELD' || m.t === 'ITEM_DROPPING' || m.t === 'ITEM_KEEP' || m.t === 'ITEM_CARRY' || m.t === 'ITEM_BRING') this.stats.stray++;
      return;
    }
    if (m.t === 'ITEM_HANDOVER') return ri.onHandover(fromHex, m.e, m.votes);
    ri.receive(from, fromHex, m);
  }

  /**
   * The primaries of the regions we back up, with lower ids than ours; a node that draws
   * frames probes the higher ones too (it may follow those that do not draw: mayFollowClock).
   */
  private references(): string[] {
    const out = new Set<string>();
    for (const r of this.a.host.knownRegions()) {
      const p = r.primaryHex;
      if (r.role === 'backup' && p && (p < this.a.host.selfHex || this.a.busy)) out.add(p);
    }
    return [...out].sort();
  }
}

