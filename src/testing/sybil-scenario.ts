// A Sybil attacker against a region's certificates: one live rogue node with a random id
// (not among the region's closest nodes: the region is picked so) plus a few keypairs of
// its own that are no live nodes. It mints certificates that name whatever hosts and
// previous set it likes, granted by its own keys only, and tries them where a certificate
// is believed: a CLAIM's `known` and a HANDOFF (freeze the region at a forged epoch), the
// DHT's location record and edit log (send newcomers to itself, plant blocks in a first
// claimant's state), a SYNC (depose the live primary) and an OFFER (write blocks, AIR at
// the world floor among them). It also replays certificates it did not mint: the region's
// own, and one of another region where it really is primary, in a SYNC and in a SNAPSHOT to
// a fresh subscriber. The rogue's own HostingService is stopped: the harness speaks for
// it, and it answers SUBSCRIBE with a SNAPSHOT under the certificate it chose.
// Every live node's id shows id work (SIM_ID_WORK_BITS, as a tab's shows ID_WORK_BITS), and
// the attacker's live nodes pay it too; its keys that are no node it drew without the work,
// so every reader counts them far from the region key wherever their ids fall
// (cert-anchor.ts `workedId`). Near ids are ground as an attacker must grind them.
// Planted blocks are GLASS at y = 250 (no honest editor writes there) and, through OFFER,
// AIR at y = 0. Options widen the attacker for the benchmark (bench/sybil-bench.ts): how
// many keys, some of them live nodes near the key (the case the anchor does not stop:
// docs/TRUST.md), and the primary killed silently while the attack goes on.
// Node only (the simulator harness); run by hosting-sybil.test.ts.
import { every } from '../core/clock';
import { HOST_DEFAULTS } from '../host/host-options';
import { PUBLISH_MS } from '../host/region-publisher';
import { idWorkOk } from '../core/id-work';
import { compareDistance, randomId, sortByDistance, idEquals, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import type { RecordRule } from '../dht/record-rules';
import type { Signer } from '../core/signer';
import { AIR, GLASS, PLACEABLE } from '../world/blocks';
import { chunkOf, localOf, WORLD_FLOOR_Y } from '../world/coords';
import { MAX_CERT_HOSTS, MAX_EPOCH, signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { putEdits, putLocation } from '../region/region-records';
import { columnAt, columnIndex, REGION_BLOCKS, RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import { decodeEntries, encodeEntries, entryKey, type Entry, type RegionState } from '../region/region-state';
import { NetworkChunkSource } from '../play/network-chunk-source';
import { ANCHOR_RANK, LEARN_EPOCH_CAP } from '../region/cert-anchor';
import { claimTerms } from '../host/grant-rules';
import { CHUNK_VOLUME } from '../world/coords';
import { editAt } from '../world/chunk-edits';
import { HostSim, SIM_ID_WORK_BITS, simKeyHash, type SimPeer } from './host-sim';

/** Honest peers besides the rogue (the rogue makes 13). */
const HONEST = 12;
/** The rogue must not be among this many nodes closest to the region key. */
export const NEAR_RANKS = 4;
/** How long the region has to confirm an honest edit again after an attack (virtual). */
export const RECOVER_MS = 30_000;
/** Honest hosts of a region: near attacker nodes are placed just past them. */
const HOST_SET = HOST_DEFAULTS.replicas;
/** Kill mode: the attack's frames land this long before the primary dies, and repeat this often after (virtual ms). */
const STRIKE_MS = 100;
const STORM_MS = 500;
/** A location record fits the 'chunk' cap of 1 KiB with a certificate of at most this many hosts. */
const RECORD_HOSTS = 4;
const PLANTED_Y = 250;
const PLANTED = 32;

export interface SybilResult {
  /** The rogue's rank among live nodes by distance to the region key (0: closest). */
  rogueRank: number;
  /** Honest peers holding a certificate that names the rogue as primary (the most seen). */
  adopted: number;
  /** Planted blocks shown by honest subscribers (the most seen). */
  plantedShown: number;
  /** Planted blocks stored by honest hosts (the most seen). */
  plantedStored: number;
  /** AIR at y = 0 from the rogue's OFFER stored or shown by honest peers (the most seen). */
  floorAir: number;
  /** AIR at y = 0 from an OFFER by a genuine host of the set (a corrupt store) stored or shown by honest peers. */
  hostFloorAir: number;
  /** The live primary before the attack was primary no more right after it. */
  deposed: boolean;
  /** Kill mode: the region's primary was killed during the attack (none to kill, or the editor itself: false). */
  killed: boolean;
  /** Virtual ms from the attack (kill mode: from the kill) to the first honest edit confirmed after it; -1: none within RECOVER_MS. */
  recoverMs: number;
  /** Of 3 honest edits after that one, those confirmed. */
  confirmedAfter: number;
  /** An honest live primary of the region at the end. */
  primaryAtEnd: boolean;
  doublePrimaries: number;
  /** Snapshots live honest subscribers refused for their certificate (the rogue's, in the SNAPSHOT scenario). */
  snapshotsRefused: number;
  /** Records scenario: virtual ms from the reader's SUBSCRIBE to its first edit confirmed; -1: none. */
  firstEditMs?: number;
  /** The epoch of the honest primary's certificate at the end (the chain the region runs on). */
  epochAtEnd?: number;
  /** Records scenario with `refusers`: CLAIMs the attacker's nodes refused. */
  claimsRefused?: number;
}

export type ReplicaMsg = Parameters<SimPeer['wire']['replicas']['send']>[1];
export type PlayerMsg = Parameters<SimPeer['wire']['players']['send']>[1];

/** The attacker: its live nodes (the rogue first), its keys (those nodes' first), and what it serves to subscribers (adversary.ts builds on it). */
export class Attacker {
  readonly nodes: SimPeer[] = [];
  readonly keys: Signer[] = [];
  private readonly served = new Map<string, { cert: EpochCert; entries: Entry[] }>();

  constructor(readonly sim: HostSim, readonly node: SimPeer, extra: number, seed: number, private readonly broken: boolean) {
    const rand = seededRandom(seed * 7919 + 17);
    this.own(node);
    this.keys.push(...Array.from({ length: extra }, () => sim.keyring.signer(randomId(rand))));
    node.wire.players.events.on('frame', ({ from, msg }) => {
      if (msg.t !== 'SUBSCRIBE') return;
      const s = this.served.get(regionName(msg));
      if (s) node.wire.players.send(from, this.snapshot(msg, s.cert, s.entries));
    });
  }

  get id(): NodeId {
    return this.node.dht.selfId;
  }

  /**
   * Draws its keys that are no node again, without id work, until each id lies nearer `key`
   * than `edge`: nearness bought with key generations alone (a few dozen in 13 nodes).
   */
  drawNear(key: NodeId, edge: NodeId, bits: number): void {
    const rand = seededRandom(this.sim.seed * 7919 + 29);
    for (let i = this.nodes.length; i < this.keys.length; i++) {
      let id = randomId(rand);
      while (compareDistance(id, edge, key) >= 0 || (bits > 0 && idWorkOk(id, bits))) id = randomId(rand);
      this.keys[i] = this.sim.keyring.signer(id);
    }
  }

  /** A live node of the attacker's (its key goes after the live ones already held). */
  own(p: SimPeer): void {
    // The attacker runs its own code: nothing of the honest host answers for it, and its
    // node stores and sends on any record (its own rule may refuse what it puts).
    p.host.stop();
    const anything: RecordRule = { check: () => Promise.resolve({ ok: true, version: 1 }) };
    p.dht.opts.records = { chunk: anything, edits: anything };
    this.keys.splice(this.nodes.length, 0, this.sim.keyring.signer(p.dht.selfId));
    this.nodes.push(p);
  }

  owns(p: SimPeer | undefined): boolean {
    return !!p && this.nodes.includes(p);
  }

  /** A certificate of `terms` for the region `key`, granted by the attacker's keys among its hosts (the rogue's own first). */
  async mint(key: NodeId, terms: ClaimTerms): Promise<EpochCert> {
    const mine = this.keys.filter((k) => terms.hosts.some((h) => idEquals(h, k.id)) || terms.prev?.hosts.some((h) => idEquals(h, k.id)));
    const grants = await Promise.all(mine.map((k) => signGrant(k, key, terms)));
    return { ...terms, grants: this.broken ? grants.map((g) => ({ ...g, s: g.s.map((b, i) => (i === 0 ? b ^ 1 : b)) })) : grants };
  }

  /** A certificate of epoch `e` over the attacker's first `n` keys (its live ones first), built on a "previous" epoch of the same set when there is one. */
  mintAt(key: NodeId, n: number, e: number): Promise<EpochCert> {
    const hosts = this.keys.slice(0, n).map((k) => k.id);
    return this.mint(key, { e, primary: this.id, hosts, ...(e > 1 ? { prev: { e: e - 1, hosts } } : {}) });
  }

  /** Answers subscribers of `r` with a snapshot of `entries` under `cert`. */
  serve(r: RegionCoord, cert: EpochCert, entries: Entry[]): void {
    this.served.set(regionName(r), { cert, entries });
  }

  snapshot(r: RegionCoord, cert: EpochCert, entries: Entry[]): PlayerMsg {
    const last = entries.reduce((n, x) => (x.e === cert.e ? Math.max(n, x.s) : n), 0);
    return { t: 'SNAPSHOT', rx: r.rx, rz: r.rz, e: cert.e, v: { e: cert.e, s: last }, full: true, hosts: cert.hosts, entries: encodeEntries(entries), cert };
  }

  send(to: SimPeer, m: ReplicaMsg, from = this.node): void {
    from.wire.replicas.send(to.dht.selfId, m);
  }
}

/** GLASS at y = 250 across region `r`, stamped (e, 1..). */
function plantedEntries(r: RegionCoord, e: number): Entry[] {
  return Array.from({ length: PLANTED }, (_, i) => {
    const x = r.rx * REGION_BLOCKS + i, z = r.rz * REGION_BLOCKS + ((i * 7) % REGION_BLOCKS);
    return { key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), PLANTED_Y, localOf(z)), id: GLASS, e, s: i + 1 };
  });
}

/** AIR at the world floor across region `r` (a row at z offset `dz`), stamped (e, 1000..). */
function floorEntries(r: RegionCoord, e: number, dz: number): Entry[] {
  return Array.from({ length: 16 }, (_, i) => {
    const x = r.rx * REGION_BLOCKS + 4 * i + 1, z = r.rz * REGION_BLOCKS + dz;
    return { key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), WORLD_FLOOR_Y, localOf(z)), id: AIR, e, s: 1000 + i };
  });
}

const count = (state: RegionState | undefined, list: Entry[]) => (state ? list.filter((x) => state.get(x.key)?.id === x.id).length : 0);

/** `p`'s rank among the live nodes by distance to `key`. */
export function rankOf(sim: HostSim, p: SimPeer, key: NodeId): number {
  return sortByDistance(sim.live(), (x) => x.dht.selfId, key).indexOf(p);
}

/** The attack's world: 12 honest peers and the rogue, and a region that is not near the rogue. */
interface World {
  sim: HostSim;
  atk: Attacker;
  o: SybilOptions;
  honest: () => SimPeer[];
  keys: RegionKeys;
  /** Honest edits made so far (each edit's block follows from it). */
  edits: number;
  /** A real certificate of another region whose primary is the rogue (cert 'other-region'). */
  elsewhere?: EpochCert;
}

/**
 * How the runs go. `broken`: every grant the attacker mints has a broken signature, so any
 * verifier refuses its certificates: the control run, whose figures are those the attack
 * must come to once certificates are anchored (a failure there is the harness's own).
 */
export interface SybilOptions {
  broken?: boolean;
  /** The attacker's keys in all, its live nodes' among them (default: the attack's own, 2 to 8). */
  keys?: number;
  /**
   * Of those keys, live nodes placed among the 8 nodes nearest the region key, just past its
   * hosts (each ground, showing the work, into the gap before an honest node there).
   */
  near?: number;
  /** Id work every live node's id shows and every peer asks (HostSimOptions.idWorkBits; default SIM_ID_WORK_BITS). */
  idWorkBits?: number;
  /**
   * The attacker's keys that are no node drawn (without id work) until each lies nearer the
   * region key than its third nearest honest node: without the work rule a set of them is
   * near, so nobody outside it may rebase over a chain they signed (cert-anchor.ts `farSet`).
   */
  drawnNear?: boolean;
  /**
   * The region's primary dies silently while the attack goes on (its frames or records sent
   * again every STORM_MS): `recoverMs` is then the failover's, from the kill.
   */
  kill?: boolean;
  /** SYNC and SNAPSHOT: a certificate the attacker minted, the region's own replayed, or a real one of another region (default 'minted'). */
  cert?: 'minted' | 'replayed' | 'other-region';
  /**
   * The epoch of the certificates minted for CLAIM, HANDOFF and the DHT records: MAX_EPOCH
   * ('top', the default: a freeze if believed), or the region's next (1 for a region nobody
   * visited): the lowest that can pass, within a holder's jump and below LEARN_EPOCH_CAP; or
   * LEARN_EPOCH_CAP ('cap'), the highest a host or holder with none of its own learns.
   */
  epoch?: 'top' | 'next' | 'cap';
  /**
   * DHT records of a region nobody visited: a second live node of the attacker's, far from the
   * key, and the certificate over both; the two answer the first claimant's CLAIMs (built on
   * it) with valid GRANTs carrying the planted blocks as their state, and OFFER them to the
   * primary once the reader attached.
   */
  farGranters?: boolean;
  /**
   * DHT records: the edit log alone, no location record. The first claimant of a region
   * nobody visited then learns no chain and reads the log under its own first certificate
   * (region-claimant.ts fallbackToDht), which the log's is not.
   */
  editLogOnly?: boolean;
  /**
   * DHT records: this many of the attacker's live nodes (the rogue, primary of the chain it
   * signed, first; then its near ids) refuse every CLAIM of the region, naming nothing, as a
   * live set's primary ('alive primary') and backups ('primary alive') do.
   */
  refusers?: number;
  /**
   * OFFER: the attacker runs this many genuine backups of the region's host set (keys the
   * set names, placed there as any node near the key is) and offers from each, with the
   * region's own certificate; those nodes host honestly otherwise.
   */
  member?: number;
}

/** The epoch of a minted certificate for a region whose newest certificate is `cert` (none: nobody visited it). */
const mintedEpoch = (o: SybilOptions, cert: EpochCert | undefined) => (o.epoch === 'next' ? (cert?.e ?? 0) + 1 : o.epoch === 'cap' ? LEARN_EPOCH_CAP : MAX_EPOCH);

async function world(seed: number, keys: number, o: SybilOptions): Promise<World> {
  const sim = new HostSim({ seed, idWorkBits: o.idWorkBits ?? SIM_ID_WORK_BITS });
  await sim.grow(HONEST);
  const rogue = await sim.add();
  const elsewhere = o.cert === 'other-region' ? await primaryElsewhere(sim, rogue) : undefined;
  const atk = new Attacker(sim, rogue, Math.max(0, keys - 1 - (o.near ?? 0)), seed, o.broken ?? false);
  return { sim, atk, o, honest: () => sim.live().filter((p) => !atk.owns(p)), keys: new RegionKeys(sim.world, simKeyHash), edits: 0, ...(elsewhere ? { elsewhere } : {}) };
}

/**
 * Before it turns, the rogue hosts honestly a region it is closest to and becomes its
 * primary by a player's edit (its own): that region's certificate is real and names it.
 */
async function primaryElsewhere(sim: HostSim, rogue: SimPeer): Promise<EpochCert> {
  const keys = new RegionKeys(sim.world, simKeyHash);
  for (let i = 0; i < 256; i++) {
    const r = { rx: 20 + (i % 16), rz: 20 + Math.floor(i / 16) };
    if (rankOf(sim, rogue, await keys.key(r)) !== 0) continue;
    await sim.settle(rogue.client.subscribe(r));
    const x = r.rx * REGION_BLOCKS + 9, z = r.rz * REGION_BLOCKS + 9;
    await sim.settle(rogue.client.submit(x, 100, z, PLACEABLE[0]!, { x, y: 100, z: z + 2 }));
    await sim.run(1000);
    const cert = rogue.host.regionState(r)?.cert;
    if (!cert || !idEquals(cert.primary, rogue.dht.selfId)) throw new Error('the rogue is not primary of the region it is closest to');
    rogue.client.unsubscribe(r);
    return cert;
  }
  throw new Error('no region has the rogue closest');
}

/**
 * The first region (of 64, row by row) whose key the rogue is not near: the attack needs
 * no place among the region's hosts (with 13 nodes, 9 in 13 regions qualify). With
 * `near`, that many live nodes of the attacker's join just past the region's hosts, each
 * ground (ids showing the work) into the gap before one of the honest nodes ranked past
 * the hosts (ranks 3 to 6 of the live nodes, inside the 8 nearest).
 */
async function farRegion(w: World): Promise<{ r: RegionCoord; key: NodeId; rank: number }> {
  for (let i = 0; i < 64; i++) {
    const r = { rx: 1 + (i % 8), rz: 1 + Math.floor(i / 8) };
    const key = await w.keys.key(r);
    const rank = rankOf(w.sim, w.atk.node, key);
    if (rank < NEAR_RANKS) continue;
    const ranked = sortByDistance(w.honest(), (p) => p.dht.selfId, key).map((p) => p.dht.selfId);
    for (let i = HOST_SET; i < HOST_SET + (w.o.near ?? 0); i++) w.atk.own(await w.sim.add(w.sim.groundId(key, ranked[i - 1], ranked[i])));
    if (w.o.drawnNear) w.atk.drawNear(key, ranked[HOST_SET - 1]!, w.o.idWorkBits ?? SIM_ID_WORK_BITS);
    return { r, key, rank };
  }
  throw new Error('every region is near the rogue');
}

/** A new live node whose id lies past the 8 nodes nearest `key` (ANCHOR_RANK): far for every reader. */
function farNode(w: World, key: NodeId): Promise<SimPeer> {
  const edge = sortByDistance(w.sim.live().map((p) => p.dht.selfId), (x) => x, key)[ANCHOR_RANK];
  return w.sim.add(w.sim.groundId(key, edge, undefined));
}

/** `p` (the attacker's) answers every CLAIM of `r` with a valid GRANT whose state is `entries`. */
function grantWith(w: World, p: SimPeer, r: RegionCoord, key: NodeId, entries: Entry[]): void {
  p.wire.replicas.events.on('frame', ({ from, fromHex, msg }) => {
    if (msg.t !== 'CLAIM' || regionName(msg) !== regionName(r)) return;
    const terms = claimTerms({ e: msg.e, from, fromHex, hosts: msg.hosts, known: msg.known, rebase: msg.rebase, pend: msg.pend });
    void signGrant(w.sim.keyring.signer(p.dht.selfId), key, terms).then((sig) =>
      p.wire.replicas.send(from, { t: 'GRANT', ...r, e: msg.e, ok: true, promised: msg.e, entries: encodeEntries(entries), sig }));
  });
}

/** The honest peer farthest from `key`: a player that hosts nothing there. */
function farPlayer(w: World, key: NodeId): SimPeer {
  return sortByDistance(w.honest(), (p) => p.dht.selfId, key).at(-1)!;
}

/** Where honest edit `i` of `r` goes. */
function editSpot(r: RegionCoord, i: number): { x: number; y: number; z: number; key: number } {
  const x = r.rx * REGION_BLOCKS + ((i * 13) % REGION_BLOCKS), z = r.rz * REGION_BLOCKS + ((i * 29) % REGION_BLOCKS), y = 120 + (i % 40);
  return { x, y, z, key: entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z)) };
}

/** One honest edit of `r` by `p` at y 120..159: true when confirmed within `ms` (a refusal takes 250 ms at least, so retries never spin). */
async function edit(w: World, p: SimPeer, r: RegionCoord, ms = 10_000): Promise<boolean> {
  const i = w.edits++;
  const { x, y, z } = editSpot(r, i);
  let ok: boolean | undefined;
  const t0 = w.sim.clock.now();
  p.client.submit(x, y, z, PLACEABLE[i % (PLACEABLE.length - 1)]!, { x, y, z: z + 2 }).then(() => (ok = true), () => (ok = false));
  await w.sim.clock.runUntil(() => ok !== undefined, ms);
  const rest = Math.min(250, ms) - (w.sim.clock.now() - t0);
  if (ok !== true && rest > 0) await w.sim.run(rest);
  return ok === true;
}

/** A region visited and edited: its player, its primary (not the player) and that primary's certificate. */
async function visit(w: World, r: RegionCoord, key: NodeId): Promise<{ player: SimPeer; primary: SimPeer; cert: EpochCert }> {
  const player = farPlayer(w, key);
  await w.sim.settle(player.client.subscribe(r));
  for (let i = 0; i < 3; i++) if (!(await edit(w, player, r))) throw new Error(`setup edit ${i} not confirmed`);
  await w.sim.run(1000);
  const primary = w.sim.primaryOf(r);
  const cert = primary?.host.regionState(r)?.cert;
  if (!primary || !cert) throw new Error('no primary after the setup edits');
  return { player, primary, cert };
}

/** What the attack left, sampled now and again at the end (the most counts). */
class Watch {
  readonly seen = { adopted: 0, plantedShown: 0, plantedStored: 0, floorAir: 0, hostFloorAir: 0 };

  constructor(private readonly w: World, private readonly r: RegionCoord, private readonly planted: Entry[], private readonly floor: Entry[] = [], private readonly hostFloor: Entry[] = []) {}

  sample(): void {
    let adopted = 0, shown = 0, stored = 0, air = 0, hostAir = 0;
    for (const p of this.w.honest()) {
      const region = p.host.regionState(this.r), view = p.client.state(this.r);
      if (region?.cert && this.w.atk.nodes.some((a) => idEquals(region.cert!.primary, a.dht.selfId))) adopted++;
      shown += count(view, this.planted);
      stored += count(region?.state, this.planted);
      air += count(view, this.floor) + count(region?.state, this.floor);
      hostAir += count(view, this.hostFloor) + count(region?.state, this.hostFloor);
    }
    const s = this.seen;
    s.adopted = Math.max(s.adopted, adopted);
    s.plantedShown = Math.max(s.plantedShown, shown);
    s.plantedStored = Math.max(s.plantedStored, stored);
    s.floorAir = Math.max(s.floorAir, air);
    s.hostFloorAir = Math.max(s.hostFloorAir, hostAir);
  }
}

/** Kill mode: the primary that died during the attack, when, and the attack's repeats to stop. */
interface Strike {
  at: number;
  stop: () => void;
}

/**
 * After the attack's frames went out: in plain runs a second for them to act; in kill mode
 * STRIKE_MS, then the region's primary dies silently (unless it is the editor: then nobody
 * would edit) and `again` repeats the attack every STORM_MS until `finish` stops it.
 */
async function landed(w: World, r: RegionCoord, editor: SimPeer, watch: Watch, again: () => void): Promise<Strike | undefined> {
  await w.sim.run(w.o.kill ? STRIKE_MS : 1000);
  watch.sample();
  return w.o.kill ? strike(w, r, editor, again) : undefined;
}

function strike(w: World, r: RegionCoord, editor: SimPeer, again: () => void): Strike | undefined {
  const primary = w.sim.primaryOf(r);
  if (!primary || primary === editor || w.atk.owns(primary)) return undefined;
  w.sim.kill(primary.hex);
  return { at: w.sim.clock.now(), stop: every(w.sim.clock, STORM_MS, again) };
}

/** The region after the attack: an honest edit confirmed within RECOVER_MS, then 3 more; sampled, and the sim stopped. */
async function finish(w: World, r: RegionCoord, editor: SimPeer, watch: Watch, rank: number, deposed: boolean, struck: Strike | undefined, last?: () => void, subscribedAt?: number): Promise<SybilResult> {
  const { sim } = w;
  const t0 = struck?.at ?? sim.clock.now();
  let recoverMs = -1;
  while (sim.clock.now() - t0 < RECOVER_MS) {
    if (await edit(w, editor, r, Math.min(10_000, RECOVER_MS - (sim.clock.now() - t0)))) {
      recoverMs = sim.clock.now() - t0;
      break;
    }
    watch.sample();
  }
  let confirmedAfter = 0;
  if (recoverMs >= 0) for (let i = 0; i < 3; i++) if (await edit(w, editor, r)) confirmedAfter++;
  struck?.stop();
  await sim.run(500);
  watch.sample();
  last?.();
  const primary = sim.primaryOf(r);
  const result: SybilResult = {
    rogueRank: rank, ...watch.seen, deposed, killed: !!struck, recoverMs, confirmedAfter,
    primaryAtEnd: !!primary && !w.atk.owns(primary), doublePrimaries: sim.doublePrimaries().length,
    snapshotsRefused: w.honest().reduce((n, p) => n + p.client.stats.uncertified, 0),
    ...(subscribedAt !== undefined ? { firstEditMs: recoverMs >= 0 ? t0 + recoverMs - subscribedAt : -1 } : {}),
    ...(primary && !w.atk.owns(primary) ? { epochAtEnd: primary.host.regionState(r)?.cert?.e ?? 0 } : {}),
  };
  sim.stopAll();
  return result;
}

/**
 * Freeze: the rogue, outside the host set, sends each honest host one CLAIM carrying a
 * certificate at MAX_EPOCH over itself and 7 keys of its own, or one HANDOFF carrying one
 * over itself and 2 (`keys` in all, if given; at the region's next epoch with `epoch`).
 */
export async function runFreezeScenario(seed: number, via: 'CLAIM' | 'HANDOFF', o: SybilOptions = {}): Promise<SybilResult> {
  const keys = o.keys ?? (via === 'CLAIM' ? 8 : 3);
  const w = await world(seed, keys, o);
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  const forged = await w.atk.mintAt(key, keys, mintedEpoch(o, cert));
  const hosts = w.honest().filter((p) => cert.hosts.some((h) => idEquals(h, p.dht.selfId)));
  const attack = () => {
    for (const h of hosts) {
      if (via === 'CLAIM') w.atk.send(h, { t: 'CLAIM', ...r, e: forged.e, hosts: forged.hosts, known: forged });
      // A handoff's target ignores it while primary: sent to the backups (the primary too, for nothing).
      else w.atk.send(h, { t: 'HANDOFF', ...r, e: forged.e, cert: forged });
    }
  };
  attack();
  const watch = new Watch(w, r, []);
  const struck = await landed(w, r, player, watch, attack);
  return finish(w, r, player, watch, rank, w.sim.primaryOf(r) !== primary && !struck, struck);
}

/**
 * Poisoned DHT records: a location record and an edit log of planted blocks under a
 * certificate at MAX_EPOCH (or the region's next epoch: `epoch`) over the rogue and 3 keys
 * of its own (a location record must fit the 'chunk' cap of 1 KiB: RECORD_HOSTS keys at
 * most), put through the rogue's own node.
 * `visited`: the region has an honest primary already, and a fresh play-only peer (joined
 * after the poisoning) subscribes and edits; else nobody visited it yet, and an honest
 * player is the first (its claimant reads the chain and the edit log: learnChain,
 * fallbackToDht). Kill mode kills the primary once the reader is attached.
 */
export async function runRecordScenario(seed: number, visited: boolean, o: SybilOptions = {}): Promise<SybilResult> {
  const keys = o.keys ?? RECORD_HOSTS;
  const w = await world(seed, keys, o);
  const { r, key, rank } = await farRegion(w);
  const before = visited ? await visit(w, r, key) : undefined;
  if (o.farGranters) w.atk.own(await farNode(w, key));
  const forged = await w.atk.mintAt(key, Math.min(keys, RECORD_HOSTS), mintedEpoch(o, before?.cert));
  const planted = plantedEntries(r, forged.e);
  if (o.farGranters) for (const p of w.atk.nodes) grantWith(w, p, r, key, planted);
  const auth = { signer: w.atk.keys[0]!, cert: forged };
  const put = () => Promise.all([...(o.editLogOnly ? [] : [putLocation(w.atk.node.dht, key, auth, 1)]), putEdits(w.atk.node.dht, key, auth, { e: forged.e, s: PLANTED }, planted, simKeyHash)]);
  await w.sim.settle(put());
  w.atk.serve(r, forged, planted);
  const refused = { n: 0 };
  for (const p of w.atk.nodes.slice(0, o.refusers ?? 0)) refuseClaims(p, r, refused);
  await w.sim.run(1000);
  const reader = visited ? await w.sim.add(undefined, { playOnly: true }) : farPlayer(w, key);
  const watch = new Watch(w, r, planted);
  const subscribedAt = w.sim.clock.now();
  reader.client.subscribe(r).catch(() => {});
  await w.sim.clock.runUntil(() => !!reader.client.attachment(r), 10_000);
  // The far granters offer their blocks to the honest primary too: a majority of the set its
  // certificate names as the previous one.
  const primary = w.sim.primaryOf(r);
  if (o.farGranters && primary && !w.atk.owns(primary)) for (const p of w.atk.nodes) w.atk.send(primary, { t: 'OFFER', ...r, entries: encodeEntries(planted), cert: forged }, p);
  watch.sample();
  const struck = o.kill ? strike(w, r, reader, () => void put().catch(() => {})) : undefined;
  const result = await finish(w, r, reader, watch, rank, !!before && w.sim.primaryOf(r) !== before.primary && !struck, struck, undefined, subscribedAt);
  return o.refusers ? { ...result, claimsRefused: refused.n } : result;
}

/** `p` (the attacker's) refuses every CLAIM of `r`, naming nothing (counted in `refused`). */
function refuseClaims(p: SimPeer, r: RegionCoord, refused: { n: number }): void {
  p.wire.replicas.events.on('frame', ({ from, msg }) => {
    if (msg.t !== 'CLAIM' || regionName(msg) !== regionName(r)) return;
    refused.n++;
    p.wire.replicas.send(from, { t: 'GRANT', ...r, e: msg.e, ok: false, promised: msg.e, reqs: [] });
  });
}

/** What a far player drew of a region it does not subscribe to. */
export interface FarViewResult {
  rogueRank: number;
  /** Planted blocks (the forged log's) drawn. */
  plantedShown: number;
  /** The region's own committed blocks (visited runs), and how many of them were drawn. */
  honest: number;
  honestShown: number;
}

/**
 * The far view (play/network-chunk-source.ts farState): a player draws a region beyond its
 * subscriptions from the region's DHT edit log. The rogue publishes a log of planted
 * blocks under a certificate over its own keys at the highest epoch DHT holders learn; a fresh play-only player
 * standing six regions away loads the columns of the planted blocks (and, in `visited`
 * runs, of the region's own edits, published first: the forged log, a higher version,
 * must not hide them either).
 */
export async function runFarViewScenario(seed: number, visited: boolean): Promise<FarViewResult> {
  const w = await world(seed, RECORD_HOSTS, {});
  const { r, key, rank } = await farRegion(w);
  const before = visited ? await visit(w, r, key) : undefined;
  await w.sim.run(PUBLISH_MS * 2);
  const own = before ? (before.primary.host.regionState(r)?.state.all() ?? []) : [];
  if (visited && own.length === 0) throw new Error('the visited region holds no entries');
  // The highest epoch a DHT holder learns (above it the holders refuse the record).
  const forged = await w.atk.mintAt(key, RECORD_HOSTS, LEARN_EPOCH_CAP);
  const planted = plantedEntries(r, forged.e);
  const auth = { signer: w.atk.keys[0]!, cert: forged };
  await w.sim.settle(Promise.all([putLocation(w.atk.node.dht, key, auth, 1), putEdits(w.atk.node.dht, key, auth, { e: forged.e, s: PLANTED }, planted, simKeyHash)]));
  await w.sim.run(1000);
  const reader = await w.sim.add(undefined, { playOnly: true });
  const source = new NetworkChunkSource({ seed: 'sim', world: w.sim.world, client: reader.client, dht: reader.dht, clock: w.sim.clock, options: { name: 'far' } });
  source.setPosition({ x: (r.rx + 6) * REGION_BLOCKS, y: 100, z: (r.rz + 6) * REGION_BLOCKS, yaw: 0, pitch: 0 });
  const shown = async (list: Entry[]) => {
    let n = 0;
    for (const e of list) {
      const [cx, cz] = columnAt(r, Math.floor(e.key / CHUNK_VOLUME));
      const b = editAt(e.key % CHUNK_VOLUME, e.id);
      const chunk = await w.sim.settle(source.load(cx, cz));
      if (chunk.get(b.x, b.y, b.z) === e.id) n++;
    }
    return n;
  };
  const plantedShown = await shown(planted);
  const honestShown = await shown(own);
  source.close();
  w.sim.stopAll();
  return { rogueRank: rank, plantedShown, honest: own.length, honestShown };
}

/**
 * A SYNC of planted blocks. 'minted' (the default): depose the live primary with one SYNC
 * from the rogue, whose certificate of the next epoch names {rogue, `keys` - 1 keys of its
 * own (7 in all at most), that primary} and a "previous" epoch of the same set (with near
 * nodes: {those nodes, that primary}, sent by the first of them). 'replayed': the region's
 * own certificate, 'other-region': a real one of a region the rogue is primary of, each
 * sent by the rogue to every honest peer.
 */
export async function runSyncScenario(seed: number, o: SybilOptions = {}): Promise<SybilResult> {
  const keys = o.keys ?? 2;
  const w = await world(seed, keys, o);
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  let sent: EpochCert, to: SimPeer[], from = w.atk.node;
  if (o.cert === 'replayed' || o.cert === 'other-region') {
    sent = o.cert === 'replayed' ? cert : w.elsewhere!;
    to = w.honest();
  } else {
    // With live nodes near the key the attacker names them and the primary only (a set of
    // 3 of which 2 granted and are near) and sends from the first: a primary steps down only
    // for a set that names it, and the far rogue in it would leave the near grants short of
    // a majority of 4.
    if (o.near) from = w.atk.nodes[1]!;
    // A certificate names MAX_CERT_HOSTS at most, the primary among them.
    const mine = o.near ? w.atk.nodes.slice(1, 1 + o.near).map((p) => p.dht.selfId) : w.atk.keys.slice(0, Math.min(keys, MAX_CERT_HOSTS - 1)).map((k) => k.id);
    const hosts = [...mine, primary.dht.selfId];
    sent = await w.atk.mint(key, { e: cert.e + 1, primary: from.dht.selfId, hosts, prev: { e: cert.e, hosts } });
    to = [primary];
  }
  const planted = plantedEntries(r, sent.e);
  w.atk.serve(r, sent, planted);
  const attack = () => {
    for (const p of to) w.atk.send(p, { t: 'SYNC', ...r, e: sent.e, s: PLANTED, hosts: sent.hosts, entries: encodeEntries(planted), cert: sent }, from);
  };
  attack();
  const watch = new Watch(w, r, planted);
  const struck = await landed(w, r, player, watch, attack);
  return finish(w, r, player, watch, rank, !struck && !primary.host.roles().primary.includes(regionName(r)), struck);
}

/**
 * A SNAPSHOT of planted blocks to a fresh play-only subscriber of a visited region, under
 * the region's own certificate replayed or a real one of a region the rogue is primary of.
 * A far rogue is never asked for a snapshot, so the subscriber's first lookup of the key is
 * answered with the rogue alone and its location record read as missing (an eclipse of one
 * lookup, docs/TRUST.md): its first SUBSCRIBE goes to the rogue, and the certificate is
 * what must refuse the answer. The rogue also pushes the snapshot unasked.
 */
export async function runSnapshotScenario(seed: number, o: SybilOptions & { cert: 'replayed' | 'other-region' }): Promise<SybilResult> {
  const w = await world(seed, 1, o);
  const { r, key, rank } = await farRegion(w);
  const { primary, cert } = await visit(w, r, key);
  const sent = o.cert === 'replayed' ? cert : w.elsewhere!;
  const planted = plantedEntries(r, sent.e);
  w.atk.serve(r, sent, planted);
  const reader = await w.sim.add(undefined, { playOnly: true });
  eclipseOnce(reader, key, w.atk.node);
  const watch = new Watch(w, r, planted);
  const push = () => w.atk.node.wire.players.send(reader.dht.selfId, w.atk.snapshot(r, sent, planted));
  reader.client.subscribe(r).catch(() => {});
  push();
  await w.sim.clock.runUntil(() => !!reader.client.attachment(r), 10_000);
  push();
  const struck = await landed(w, r, reader, watch, push);
  return finish(w, r, reader, watch, rank, !struck && w.sim.primaryOf(r) !== primary, struck);
}

/** `reader`'s next location read of `key` finds nothing and its next lookup of it answers `only`. */
export function eclipseOnce(reader: SimPeer, key: NodeId, only: SimPeer): void {
  const dht = reader.dht;
  const get = dht.get.bind(dht), findNode = dht.findNode.bind(dht);
  let gets = 1, finds = 1;
  dht.get = (ns, k) => (ns === 'chunk' && idEquals(k, key) && gets-- > 0 ? Promise.resolve(undefined) : get(ns, k));
  dht.findNode = (k) =>
    idEquals(k, key) && finds-- > 0 ? Promise.resolve({ closest: [{ id: only.dht.selfId, hex: only.hex }], values: [], hops: 1, queries: 1, failures: 0 }) : findNode(k);
}

/**
 * Blocks through OFFER: the rogue offers the primary planted GLASS and AIR at y = 0, stamped
 * before its epoch, with a certificate of the next epoch that names the rogue and one key
 * of its own as hosts (`keys` in all). And a genuine backup (a corrupt store) offers AIR at
 * y = 0 with the primary's own certificate, and so does the other backup: the world floor holds
 * whoever offers, however many of the set agree. With
 * `member`, the attacker's offer comes from that many backups of the set instead, under the
 * primary's own certificate (which names them).
 */
export async function runOfferScenario(seed: number, o: SybilOptions = {}): Promise<SybilResult> {
  const keys = o.keys ?? 2;
  const w = await world(seed, keys, o);
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  const forged = await w.atk.mint(key, { e: cert.e + 1, primary: w.atk.id, hosts: w.atk.keys.slice(0, keys).map((k) => k.id) });
  // Stamped before the primary's epoch (stored state predates it): the only offers it takes.
  const planted = plantedEntries(r, cert.e - 1), floor = floorEntries(r, cert.e - 1, 2);
  const backups = w.honest().filter((p) => p !== primary && cert.hosts.some((h) => idEquals(h, p.dht.selfId)));
  if (backups.length < Math.max(2, o.member ?? 0)) throw new Error('the primary has too few backups');
  const hostFloor = floorEntries(r, cert.e - 1, 5);
  const attack = () => {
    // Kill mode: whoever is primary now (the next one, after the kill).
    const to = w.sim.primaryOf(r) ?? primary;
    const entries = encodeEntries([...planted, ...floor]);
    if (o.member) for (const b of backups.slice(0, o.member)) w.atk.send(to, { t: 'OFFER', ...r, entries, cert }, b);
    else w.atk.send(to, { t: 'OFFER', ...r, entries, cert: forged });
  };
  attack();
  // Both backups offer it: a majority of the set (offer-tally.ts), so the tally is met and
  // the world's rules alone keep the floor (region-offers.ts, commit-machine.ts).
  for (const b of backups.slice(0, 2)) b.wire.replicas.send(primary.dht.selfId, { t: 'OFFER', ...r, entries: encodeEntries(hostFloor), cert });
  const watch = new Watch(w, r, planted, floor, hostFloor);
  const struck = await landed(w, r, player, watch, attack);
  return finish(w, r, player, watch, rank, !struck && w.sim.primaryOf(r) !== primary, struck);
}

/** What a failover left of the edits only one granter held (runGrantScenario's control). */
export interface GrantResult extends SybilResult {
  /** Honest edits confirmed while one backup missed them (held by the primary and the other backup only). */
  tail: number;
  /** Of those, held by the new primary and shown by the editor's view after the failover (the fewest of the two). */
  tailKept: number;
}

/**
 * Blocks through GRANT: a backup of the region's host set (`member`: the attacker's node,
 * placed there as any node near the key is; it hosts honestly otherwise, with the real
 * certificate) adds planted GLASS to every GRANT it sends, then the primary dies silently
 * and the other backup claims (the member never claims: it wants an honest primary to take
 * its plants). Before the failover, the primary's REPLICATEs to the claiming backup are
 * dropped for a few honest edits, so those confirmed edits are held by the primary and the
 * member alone: the failover must keep them (the control, `tail` and `tailKept`) while the
 * planted blocks must not reach the new primary or a subscriber. `planted: false` sends no
 * plants (the honest control).
 */
export async function runGrantScenario(seed: number, o: { planted?: boolean; idWorkBits?: number } = {}): Promise<GrantResult> {
  const w = await world(seed, 1, o.idWorkBits !== undefined ? { idWorkBits: o.idWorkBits } : {});
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  const backups = w.honest().filter((p) => p !== primary && cert.hosts.some((h) => idEquals(h, p.dht.selfId)));
  const [member, claimant] = backups;
  if (!member || !claimant) throw new Error('the primary has too few backups');
  // Stamped in the primary's epoch past anything it ordered, as a tail its backups alone hold would be.
  const planted = plantedEntries(r, cert.e).map((x) => ({ ...x, s: x.s + 100_000 }));
  const send = member.wire.replicas.send.bind(member.wire.replicas);
  member.wire.replicas.send = (to, m) => {
    if (m.t === 'CLAIM') return true; // never claims: an honest claimant is to adopt the plants
    if (m.t === 'GRANT' && o.planted !== false) {
      const own = m.entries ? decodeEntries(m.entries) : [];
      const mine = new Set(own.map((x) => x.key));
      return send(to, { ...m, entries: encodeEntries([...own, ...planted.filter((x) => !mine.has(x.key))]) });
    }
    return send(to, m);
  };
  // The claimant misses the primary's batches for a while: the edits then confirmed are held
  // by the primary and the member only.
  const psend = primary.wire.replicas.send.bind(primary.wire.replicas);
  let starve = true;
  primary.wire.replicas.send = (to, m) => (starve && m.t === 'REPLICATE' && idEquals(to, claimant.dht.selfId) ? true : psend(to, m));
  const tail: Entry[] = [];
  for (let i = 0; i < 3; i++) {
    const spot = editSpot(r, w.edits);
    const held = (await edit(w, player, r)) ? primary.host.regionState(r)?.state.get(spot.key) : undefined;
    if (held) tail.push({ ...held, key: spot.key });
  }
  starve = false;
  const watch = new Watch(w, r, planted);
  w.sim.kill(primary.hex);
  let tailKept = 0;
  const result = await finish(w, r, player, watch, rank, false, { at: w.sim.clock.now(), stop: () => {} }, () => {
    const held = w.sim.primaryOf(r)?.host.regionState(r)?.state;
    tailKept = Math.min(count(held, tail), count(player.client.state(r), tail));
  });
  return { ...result, tail: tail.length, tailKept };
}
