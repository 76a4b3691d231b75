// A Sybil attacker against a region's certificates: one live rogue node with a random id
// (not among the region's closest nodes: the region is picked so) plus a few keypairs of
// its own that are no live nodes. It mints certificates that name whatever hosts and
// previous set it likes, granted by its own keys only, and tries them where a certificate
// is believed: a CLAIM's `known` and a HANDOFF (freeze the region at a forged epoch), the
// DHT's location record and edit log (send newcomers to itself, plant blocks in a first
// claimant's state), a SYNC (depose the live primary) and an OFFER (write blocks, AIR at
// the world floor among them). The rogue's own HostingService is stopped: the harness
// speaks for it, and it answers SUBSCRIBE with a SNAPSHOT under its certificate.
// Planted blocks are GLASS at y = 250 (no honest editor writes there) and, through OFFER,
// AIR at y = 0. Node only (the simulator harness); run by hosting-sybil.test.ts.
import { randomId, sortByDistance, idEquals, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import type { RecordRule } from '../dht/record-rules';
import type { Signer } from '../core/signer';
import { AIR, GLASS, PLACEABLE } from '../world/blocks';
import { chunkOf, localOf, WORLD_FLOOR_Y } from '../world/coords';
import { MAX_EPOCH, signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { putEdits, putLocation } from '../region/region-records';
import { columnIndex, REGION_BLOCKS, RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import { encodeEntries, entryKey, type Entry, type RegionState } from '../region/region-state';
import { HostSim, simKeyHash, type SimPeer } from './host-sim';

/** Honest peers besides the rogue (the rogue makes 13). */
const HONEST = 12;
/** The rogue must not be among this many nodes closest to the region key. */
export const NEAR_RANKS = 4;
/** How long the region has to confirm an honest edit again after an attack (virtual). */
export const RECOVER_MS = 30_000;
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
  /** Virtual ms from the attack to the first honest edit confirmed after it; -1: none within RECOVER_MS. */
  recoverMs: number;
  /** Of 3 honest edits after that one, those confirmed. */
  confirmedAfter: number;
  /** An honest live primary of the region at the end. */
  primaryAtEnd: boolean;
  doublePrimaries: number;
}

type ReplicaMsg = Parameters<SimPeer['wire']['replicas']['send']>[1];

/** The attacker: its live node, its other keys, and what it serves to subscribers. */
class Attacker {
  readonly keys: Signer[];
  private readonly served = new Map<string, { cert: EpochCert; entries: Entry[] }>();

  constructor(readonly sim: HostSim, readonly node: SimPeer, extra: number, seed: number, private readonly broken: boolean) {
    const rand = seededRandom(seed * 7919 + 17);
    this.keys = [sim.keyring.signer(node.dht.selfId), ...Array.from({ length: extra }, () => sim.keyring.signer(randomId(rand)))];
    // The attacker runs its own code: nothing of the honest host answers for it, and its
    // node stores and sends on any record (its own rule may refuse what it puts).
    node.host.stop();
    const anything: RecordRule = { check: () => Promise.resolve({ ok: true, version: 1 }) };
    node.dht.opts.records = { chunk: anything, edits: anything };
    node.wire.players.events.on('frame', ({ from, msg }) => {
      if (msg.t !== 'SUBSCRIBE') return;
      const s = this.served.get(regionName(msg));
      if (!s) return;
      const last = s.entries.reduce((n, x) => (x.e === s.cert.e ? Math.max(n, x.s) : n), 0);
      node.wire.players.send(from, { t: 'SNAPSHOT', rx: msg.rx, rz: msg.rz, e: s.cert.e, v: { e: s.cert.e, s: last }, full: true, hosts: s.cert.hosts, entries: encodeEntries(s.entries), cert: s.cert });
    });
  }

  get id(): NodeId {
    return this.node.dht.selfId;
  }

  /** A certificate of `terms` for the region `key`, granted by the attacker's keys among its hosts (the rogue's own first). */
  async mint(key: NodeId, terms: ClaimTerms): Promise<EpochCert> {
    const mine = this.keys.filter((k) => terms.hosts.some((h) => idEquals(h, k.id)) || terms.prev?.hosts.some((h) => idEquals(h, k.id)));
    const grants = await Promise.all(mine.map((k) => signGrant(k, key, terms)));
    return { ...terms, grants: this.broken ? grants.map((g) => ({ ...g, s: g.s.map((b, i) => (i === 0 ? b ^ 1 : b)) })) : grants };
  }

  /** A certificate at MAX_EPOCH over the attacker's keys (`n` of them), built on a "previous" epoch of the same set. */
  mintTop(key: NodeId, n: number): Promise<EpochCert> {
    const hosts = this.keys.slice(0, n).map((k) => k.id);
    return this.mint(key, { e: MAX_EPOCH, primary: this.id, hosts, prev: { e: MAX_EPOCH - 1, hosts } });
  }

  /** Answers subscribers of `r` with a snapshot of `entries` under `cert`. */
  serve(r: RegionCoord, cert: EpochCert, entries: Entry[]): void {
    this.served.set(regionName(r), { cert, entries });
  }

  send(to: SimPeer, m: ReplicaMsg): void {
    this.node.wire.replicas.send(to.dht.selfId, m);
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

/** The rogue's rank among the live nodes by distance to `key`. */
function rankOf(sim: HostSim, rogue: SimPeer, key: NodeId): number {
  return sortByDistance(sim.live(), (p) => p.dht.selfId, key).indexOf(rogue);
}

/** The attack's world: 12 honest peers and the rogue, and a region that is not near the rogue. */
interface World {
  sim: HostSim;
  atk: Attacker;
  honest: () => SimPeer[];
  keys: RegionKeys;
  /** Honest edits made so far (each edit's block follows from it). */
  edits: number;
}

/**
 * How the runs go. `broken`: every grant the attacker mints has a broken signature, so any
 * verifier refuses its certificates: the control run, whose figures are those the attack
 * must come to once certificates are anchored (a failure there is the harness's own).
 */
export interface SybilOptions {
  broken?: boolean;
}

async function world(seed: number, extra: number, o: SybilOptions): Promise<World> {
  const sim = new HostSim({ seed });
  await sim.grow(HONEST);
  const rogue = await sim.add();
  const atk = new Attacker(sim, rogue, extra, seed, o.broken ?? false);
  return { sim, atk, honest: () => sim.live().filter((p) => p !== rogue), keys: new RegionKeys(sim.world, simKeyHash), edits: 0 };
}

/**
 * The first region (of 64, row by row) whose key the rogue is not near: the attack needs
 * no place among the region's hosts (with 13 nodes, 9 in 13 regions qualify).
 */
async function farRegion(w: World): Promise<{ r: RegionCoord; key: NodeId; rank: number }> {
  for (let i = 0; i < 64; i++) {
    const r = { rx: 1 + (i % 8), rz: 1 + Math.floor(i / 8) };
    const key = await w.keys.key(r);
    const rank = rankOf(w.sim, w.atk.node, key);
    if (rank >= NEAR_RANKS) return { r, key, rank };
  }
  throw new Error('every region is near the rogue');
}

/** The honest peer farthest from `key`: a player that hosts nothing there. */
function farPlayer(w: World, key: NodeId): SimPeer {
  return sortByDistance(w.honest(), (p) => p.dht.selfId, key).at(-1)!;
}

/** One honest edit of `r` by `p` at y 120..159: true when confirmed within `ms` (a refusal takes 250 ms at least, so retries never spin). */
async function edit(w: World, p: SimPeer, r: RegionCoord, ms = 10_000): Promise<boolean> {
  const i = w.edits++;
  const x = r.rx * REGION_BLOCKS + ((i * 13) % REGION_BLOCKS), z = r.rz * REGION_BLOCKS + ((i * 29) % REGION_BLOCKS), y = 120 + (i % 40);
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
    const rogue = this.w.atk.id;
    let adopted = 0, shown = 0, stored = 0, air = 0, hostAir = 0;
    for (const p of this.w.honest()) {
      const region = p.host.regionState(this.r), view = p.client.state(this.r);
      if (region?.cert && idEquals(region.cert.primary, rogue)) adopted++;
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

/** The region after the attack: an honest edit confirmed within RECOVER_MS, then 3 more; sampled, and the sim stopped. */
async function finish(w: World, r: RegionCoord, editor: SimPeer, watch: Watch, rank: number, deposed = false): Promise<SybilResult> {
  const { sim } = w;
  const t0 = sim.clock.now();
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
  await sim.run(500);
  watch.sample();
  const primary = sim.primaryOf(r);
  const result: SybilResult = {
    rogueRank: rank, ...watch.seen, deposed, recoverMs, confirmedAfter,
    primaryAtEnd: !!primary && primary !== w.atk.node, doublePrimaries: sim.doublePrimaries().length,
  };
  sim.stopAll();
  return result;
}

/**
 * Freeze: the rogue, outside the host set, sends each honest host one CLAIM carrying a
 * certificate at MAX_EPOCH over itself and 7 keys of its own, or one HANDOFF carrying one
 * over itself and 2.
 */
export async function runFreezeScenario(seed: number, via: 'CLAIM' | 'HANDOFF', o: SybilOptions = {}): Promise<SybilResult> {
  const extra = via === 'CLAIM' ? 7 : 2;
  const w = await world(seed, extra, o);
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  const forged = await w.atk.mintTop(key, 1 + extra);
  const hosts = w.honest().filter((p) => cert.hosts.some((h) => idEquals(h, p.dht.selfId)));
  for (const h of hosts) {
    if (via === 'CLAIM') w.atk.send(h, { t: 'CLAIM', ...r, e: MAX_EPOCH, hosts: forged.hosts, known: forged });
    // A handoff's target ignores it while primary: sent to the backups (the primary too, for nothing).
    else w.atk.send(h, { t: 'HANDOFF', ...r, e: MAX_EPOCH, cert: forged });
  }
  const watch = new Watch(w, r, []);
  await w.sim.run(1000);
  watch.sample();
  return finish(w, r, player, watch, rank, w.sim.primaryOf(r) !== primary);
}

/**
 * Poisoned DHT records: a location record and an edit log of planted blocks under a
 * certificate at MAX_EPOCH over the rogue and 3 keys of its own (a location record must fit
 * the 'chunk' cap of 1 KiB), put through the rogue's own node. `visited`: the region has an
 * honest primary already, and a fresh play-only peer (joined after the poisoning) subscribes
 * and edits; else nobody visited it yet, and an honest player is the first (its claimant
 * reads the chain and the edit log: learnChain, fallbackToDht).
 */
export async function runRecordScenario(seed: number, visited: boolean, o: SybilOptions = {}): Promise<SybilResult> {
  const w = await world(seed, 3, o);
  const { r, key, rank } = await farRegion(w);
  const before = visited ? await visit(w, r, key) : undefined;
  const forged = await w.atk.mintTop(key, 4);
  const planted = plantedEntries(r, forged.e);
  const auth = { signer: w.atk.keys[0]!, cert: forged };
  await w.sim.settle(Promise.all([putLocation(w.atk.node.dht, key, auth, 1), putEdits(w.atk.node.dht, key, auth, { e: forged.e, s: PLANTED }, planted, simKeyHash)]));
  w.atk.serve(r, forged, planted);
  await w.sim.run(1000);
  const reader = visited ? await w.sim.add(undefined, { playOnly: true }) : farPlayer(w, key);
  const watch = new Watch(w, r, planted);
  reader.client.subscribe(r).catch(() => {});
  await w.sim.clock.runUntil(() => !!reader.client.attachment(r), 10_000);
  watch.sample();
  return finish(w, r, reader, watch, rank, !!before && w.sim.primaryOf(r) !== before.primary);
}

/**
 * Depose: one SYNC to the live primary from the rogue, whose certificate of the next epoch
 * names {rogue, one key of its own, that primary} and a "previous" epoch of the same set.
 */
export async function runSyncScenario(seed: number, o: SybilOptions = {}): Promise<SybilResult> {
  const w = await world(seed, 1, o);
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  const hosts = [w.atk.id, w.atk.keys[1]!.id, primary.dht.selfId];
  const e = cert.e + 1;
  const forged = await w.atk.mint(key, { e, primary: w.atk.id, hosts, prev: { e: cert.e, hosts } });
  const planted = plantedEntries(r, e);
  w.atk.serve(r, forged, planted);
  w.atk.send(primary, { t: 'SYNC', ...r, e, s: PLANTED, hosts, entries: encodeEntries(planted), cert: forged });
  const watch = new Watch(w, r, planted);
  await w.sim.run(1000);
  watch.sample();
  return finish(w, r, player, watch, rank, !primary.host.roles().primary.includes(regionName(r)));
}

/**
 * Blocks through OFFER: the rogue offers the primary planted GLASS and AIR at y = 0, stamped
 * before its epoch, with a certificate of the next epoch that names the rogue and one key
 * of its own as hosts. And a genuine backup (a corrupt store) offers AIR at y = 0 with the
 * primary's own certificate: the world floor holds whoever offers.
 */
export async function runOfferScenario(seed: number, o: SybilOptions = {}): Promise<SybilResult> {
  const w = await world(seed, 1, o);
  const { r, key, rank } = await farRegion(w);
  const { player, primary, cert } = await visit(w, r, key);
  const hosts = [w.atk.id, w.atk.keys[1]!.id];
  const forged = await w.atk.mint(key, { e: cert.e + 1, primary: w.atk.id, hosts });
  // Stamped before the primary's epoch (stored state predates it): the only offers it takes.
  const planted = plantedEntries(r, cert.e - 1), floor = floorEntries(r, cert.e - 1, 2);
  w.atk.send(primary, { t: 'OFFER', ...r, entries: encodeEntries([...planted, ...floor]), cert: forged });
  const backup = w.honest().find((p) => p !== primary && cert.hosts.some((h) => idEquals(h, p.dht.selfId)));
  if (!backup) throw new Error('the primary has no backup');
  const hostFloor = floorEntries(r, cert.e - 1, 5);
  backup.wire.replicas.send(primary.dht.selfId, { t: 'OFFER', ...r, entries: encodeEntries(hostFloor), cert });
  const watch = new Watch(w, r, planted, floor, hostFloor);
  await w.sim.run(1000);
  watch.sample();
  return finish(w, r, player, watch, rank, w.sim.primaryOf(r) !== primary);
}
