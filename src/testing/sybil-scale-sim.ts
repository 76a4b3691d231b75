// The adversary kit at scale (`npm run bench -- sybil_1k`, sybil-scale-sim.test.ts): N hosting
// peers on the simulator (host-sim.ts), a share of them hostile from their join on. Each
// hostile node runs the attacker's code (sybil-scenario.ts `Attacker`: it hosts nothing and
// answers for itself) and holds `keys` keys, its own and keypairs that are no node. Honest
// players use a few regions; against each, the hostile nodes nearest its key play the kit's
// rows (adversary.ts FRAMES: CLAIM, GRANT, HANDOFF, SYNC, OFFER, SNAPSHOT, DELTA, PENDING and
// both DHT records, with minted, top-epoch, replayed, cross-region, cross-world, spliced and
// linked chains) at the region's primary, a backup, an idle host, the subscriber and a fresh
// subscriber (its first lookup answered by the attacker alone), every region at once, while
// each region's player edits. Halfway through the host rows each region's primary dies
// silently (`kill`), so the failover runs under attack.
// A region's attackers are its nearest hostile node (the lead; far from the key on most
// regions, as the kit's rogue) and every other hostile node among the ANCHOR_RANK (8) nodes
// nearest the key, which the kit's certificates name when there are some (its `near` ids,
// here where chance put them). A region where 2 of the 3 nodes nearest its key are hostile is
// the model's known limit (docs/TRUST.md "What it does not stop" (a)): counted apart. So is
// each marker an honest peer took while 2 of the 3 nearest that lived were hostile, judged at
// that moment: the kill of an honest one of the 3 nearest brings the 4th up.
// Judged: every block a row sends is a marker no honest editor writes (adversary.ts
// plantedOf / floorOf), so any marker an honest subscriber showed (committed or pending, at
// any moment) or an honest host stored at the end was applied without an anchored primary
// confirming it; a region is frozen when it has no honest primary at the end or confirmed no
// honest edit made after the rows. Node only (the simulator).
import { every } from '../core/clock';
import { idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom, shuffle } from '../core/seeded-random';
import { HOST_DEFAULTS } from '../host/host-options';
import { ANCHOR_RANK } from '../region/cert-anchor';
import { MAX_CERT_HOSTS, type EpochCert } from '../region/epoch-cert';
import { RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import type { Entry, RegionState } from '../region/region-state';
import { blockAt, certOf, floorOf, honestSpot, linksOf, plantedOf, putRecord, RECORD_HOSTS, rows, tallyFramesFrom, targets, type Row, type Scene } from './adversary';
import { HostSim, SIM_ID_WORK_BITS, simKeyHash, type SimPeer } from './host-sim';
import { Attacker, eclipseOnce } from './sybil-scenario';

export interface SybilScaleOptions {
  /** Hosting peers, hostile ones among them. */
  peers: number;
  /** Share of them hostile (default 0.2). */
  hostileShare?: number;
  /** Keys each hostile node holds, its own among them (default 4). */
  keys?: number;
  /** Regions the honest players use (default 8): rx from `firstRx` (default 1) on, rz 1. */
  regions?: number;
  firstRx?: number;
  seed?: number;
  /** Peers joining at once (HostSim.grow; default 16). */
  joinBatch?: number;
  /** Frame types the attackers play (default SCALE_FRAMES). */
  frames?: readonly string[];
  /** Between one player's edits (virtual ms; default 2,000). */
  editEveryMs?: number;
  /** Each region's primary dies halfway through the host rows (default true). */
  kill?: boolean;
  /** After the rows, virtual ms for honest edits to confirm again (default 10,000). */
  tailMs?: number;
  log?: (line: string) => void;
}

/**
 * The frame types the crews play by default: those that carry a certificate a reader may
 * adopt (CLAIM, HANDOFF, SYNC, SNAPSHOT), write blocks under one (OFFER), and both records.
 * GRANT, DELTA and PENDING are left to the kit's 13-peer runs, to keep 1,000 peers' virtual
 * time short.
 */
export const SCALE_FRAMES: readonly string[] = ['CLAIM', 'HANDOFF', 'SYNC', 'OFFER', 'SNAPSHOT', 'LOCATION', 'EDITS'];
/** How long each row is given to land once it reached its targets (as the kit's). */
const ROW_MS = 200;
/** Acceptance notes kept per region (`ScaleRegion.acceptances`). */
const ACCEPTANCES_KEPT = 8;

/** One region the honest players use, and what the attack left there. */
export interface ScaleRegion {
  name: string;
  /** Hostile nodes among the 3 (host set) and the 8 (ANCHOR_RANK) nodes nearest the key. */
  hostile3: number;
  hostile8: number;
  /** Where the hostile nodes lie among the 8 nearest the key (1 the nearest). */
  hostileRanks: number[];
  /**
   * Where the attackers' live ids lie in the fresh subscriber's own live view of the key at
   * the end (cert-checker.ts counts its FRESH_RANK nearest for a reader with no certificate).
   */
  freshRanks: number[];
  /** 2 of the 3 nearest hostile: the model's known limit. */
  limit: boolean;
  /** Hostile nodes among the 3 nearest the key that lived just after the primary's kill (undefined: nothing killed). */
  hostile3AfterKill?: number;
  /** Why the region was not attacked (no primary after the setup edits), if so. */
  setupFailed?: string;
  /** Markers honest peers showed or stored, summed over peers; of them, those the fresh subscriber showed; by row. */
  accepted: number;
  acceptedFresh: number;
  /**
   * Of `accepted` (and of `acceptedFresh`), the markers a subscriber drew while 2 of the 3
   * nodes nearest the key that lived and could host (`liveNearest`: the truth over every node,
   * not the reader's view) were hostile: the model's limit at the moment of acceptance. A
   * marker stored by a host, or shown at the end without a moment seen, counts as outside.
   */
  acceptedLimit: number;
  acceptedFreshLimit: number;
  /** Some marker was accepted inside that limit (`acceptedLimit` > 0). */
  limitLive: boolean;
  /**
   * Each moment an honest subscriber drew markers it had not drawn before (the first
   * ACCEPTANCES_KEPT): when (virtual s), the hostile ranks among the 8 nodes nearest the key
   * that lived then (the truth) and in the subscriber's own live view.
   */
  acceptances: string[];
  breaches: string[];
  frozen: boolean;
  /** Virtual ms from the kill to an honest primary again (-1: none; undefined: nothing killed). */
  failoverMs?: number;
  /** Longest run without an honest primary from the first row to the end (virtual ms). */
  noPrimaryMs: number;
  edits: number;
  confirmed: number;
  /** Confirmed edits the primary does not store or an attached honest subscriber does not show at the end. */
  unseen: number;
  /** Rows that never reached their targets, and rows that found no live target (no primary during a failover). */
  undelivered: number;
  skipped: number;
  rows: number;
  /** The fresh subscriber ended attached to an honest primary. */
  freshHonest: boolean;
  /**
   * Honest hosts holding a certificate whose primary is hostile at the end: of the region's
   * host set (the newest honest certificate's), and any; the highest epoch a host of the set
   * holds, and the region's at the setup.
   */
  adoptedInSet: number;
  adopted: number;
  maxEpoch: number;
  startEpoch: number;
}

export interface SybilScaleResult {
  peers: number;
  hostile: number;
  keysPerHostile: number;
  regions: ScaleRegion[];
  rowsPerRegion: number;
  doublePrimaries: number;
  joinWallSec: number;
  wallSec: number;
  virtualSec: number;
}

interface Site {
  r: RegionCoord;
  key: NodeId;
  out: ScaleRegion;
  player: SimPeer;
  team: Attacker;
  scene?: Scene;
  fresh?: SimPeer;
  /** Entry key -> the marker's block and its row. */
  marks: Map<number, { id: number; row: string }>;
  /** Markers a subscriber drew at some moment (subscriber hex + entry key); of them, those drawn while the live 3 nearest were a hostile majority. */
  drawn: Set<string>;
  drawnInLimit: Set<string>;
  edits: { spot: ReturnType<typeof honestSpot>; ok?: boolean; at: number }[];
  killedAt?: number;
  lastPrimaryAt: number;
}

export async function runSybilScale(o: SybilScaleOptions): Promise<SybilScaleResult> {
  const t0 = performance.now();
  const seed = o.seed ?? 1, keysPer = o.keys ?? 4, editEveryMs = o.editEveryMs ?? 2000;
  const log = o.log ?? (() => {});
  const wall = () => `${((performance.now() - t0) / 1000).toFixed(0)} s wall, ${(sim.clock.now() / 1000).toFixed(0)} s virtual`;
  const sim = new HostSim({ seed, idWorkBits: SIM_ID_WORK_BITS });
  await sim.grow(o.peers, { batch: o.joinBatch ?? 16, onBatch: (n) => n % 200 < (o.joinBatch ?? 16) && log(`joined ${n} peers (${wall()})`) });
  const joinWallSec = (performance.now() - t0) / 1000;

  // The hostile share, drawn once the network formed; each holds its keys from then on.
  const rand = seededRandom(seed * 977 + 3);
  const crew = new Map<SimPeer, Attacker>();
  shuffle(rand, sim.live()).slice(0, Math.round(sim.live().length * (o.hostileShare ?? 0.2))).forEach((p, i) => crew.set(p, new Attacker(sim, p, keysPer - 1, seed * 1000 + i, false)));
  const hostile = (p: SimPeer) => crew.has(p);
  const honest = () => sim.live().filter((p) => !hostile(p));
  const crewHex = new Set([...crew.keys()].map((p) => p.hex));
  log(`${crew.size} of ${sim.live().length} peers hostile, ${keysPer} keys each (${wall()})`);

  // The regions and their attackers.
  const regionKeys = new RegionKeys(sim.world, simKeyHash);
  const sites: Site[] = [];
  const players = new Set<SimPeer>();
  for (let i = 0; i < (o.regions ?? 8); i++) {
    const r = { rx: (o.firstRx ?? 1) + i, rz: 1 };
    const key = await regionKeys.key(r);
    const ranked = sortByDistance(sim.live(), (p) => p.dht.selfId, key);
    const near = ranked.slice(0, ANCHOR_RANK).filter(hostile);
    const lead = near[0] ?? ranked.find(hostile)!;
    const team = new Attacker(sim, lead, 0, seed * 31 + i, false);
    for (const p of near.slice(1)) team.own(p);
    team.keys.push(...crew.get(lead)!.keys.slice(1));
    const player = ranked.filter((p) => !hostile(p) && !players.has(p)).at(-1)!;
    players.add(player);
    const hostile3 = ranked.slice(0, HOST_DEFAULTS.replicas).filter(hostile).length;
    const hostileRanks = ranked.slice(0, ANCHOR_RANK).flatMap((p, k) => (hostile(p) ? [k + 1] : []));
    sites.push({
      r, key, team, player, marks: new Map(), drawn: new Set(), drawnInLimit: new Set(), edits: [], lastPrimaryAt: 0,
      out: { name: regionName(r), hostile3, hostile8: near.length, hostileRanks, freshRanks: [], limit: hostile3 * 2 > HOST_DEFAULTS.replicas, accepted: 0, acceptedFresh: 0, acceptedLimit: 0, acceptedFreshLimit: 0, limitLive: false, acceptances: [], breaches: [], frozen: false, noPrimaryMs: 0, edits: 0, confirmed: 0, unseen: 0, undelivered: 0, skipped: 0, rows: 0, freshHonest: false, adoptedInSet: 0, adopted: 0, maxEpoch: 0, startEpoch: 0 },
    });
  }

  // Honest edits: each region's player, every editEveryMs from the setup on.
  let editNo = 0;
  const editOnce = (s: Site) => {
    const e: Site['edits'][number] = { spot: honestSpot(s.r, editNo++), at: sim.clock.now() };
    s.edits.push(e);
    const { x, y, z, id } = e.spot;
    s.player.client.submit(x, y, z, id, { x, y, z: z + 2 }).then(() => (e.ok = true), () => (e.ok = false));
  };
  const answered = () => sites.every((s) => s.edits.every((e) => e.ok !== undefined));
  // A region whose hosts are hostile may never answer a subscription: its edits then fail (setupFailed).
  await sim.settle(Promise.allSettled(sites.map((s) => s.player.client.subscribe(s.r))), 20_000).catch(() => {});
  for (let k = 0; k < 3; k++) {
    for (const s of sites) editOnce(s);
    await sim.clock.runUntil(answered, 10_000);
  }
  await sim.run(1000);
  const certs = new Map<Site, EpochCert>();
  for (const s of sites) {
    const cert = sim.primaryOf(s.r)?.host.regionState(s.r)?.cert;
    if (cert) {
      certs.set(s, cert);
      s.out.startEpoch = cert.e;
    }
    else s.out.setupFailed = `no primary after the setup edits (${s.edits.filter((e) => e.ok).length} of 3 confirmed)`;
  }
  const worldKeys = new RegionKeys(`${sim.world}-other`, simKeyHash);
  for (const [i, s] of sites.entries()) {
    const real = certs.get(s);
    const other = sites.slice(i + 1).concat(sites.slice(0, i)).find((x) => certs.has(x));
    if (!real || !other) continue;
    s.scene = {
      sim, atk: s.team, r: s.r, key: s.key, real, other: certs.get(other)!, otherRegion: other.r, worldKey: await worldKeys.key(s.r),
      player: s.player, primary: sim.primaryOf(s.r)!, sender: s.team.nodes[1] ?? s.team.node,
    };
  }
  log(`setup: ${certs.size} of ${sites.length} regions with a primary (${wall()})`);

  // What every subscriber draws is checked against the markers as it comes, with the truth
  // of the moment: whether 2 of the 3 nodes nearest the key that live were hostile then.
  const watch = (s: Site, p: SimPeer) => {
    const seen = (region: RegionCoord, entries: readonly Entry[]) => {
      if (regionName(region) !== s.out.name) return;
      const fresh = entries.filter((e) => s.marks.get(e.key)?.id === e.id && !s.drawn.has(`${p.hex}:${e.key}`));
      if (fresh.length === 0) return;
      const truth = liveNearest(sim, s.key, hostile), inLimit = hostileIn3(truth) * 2 > HOST_DEFAULTS.replicas;
      for (const e of fresh) {
        s.drawn.add(`${p.hex}:${e.key}`);
        if (inLimit) s.drawnInLimit.add(`${p.hex}:${e.key}`);
      }
      if (s.out.acceptances.length >= ACCEPTANCES_KEPT) return;
      const who = p === s.player ? 'player' : p === s.fresh ? 'fresh' : 'peer', at = (sim.clock.now() / 1000).toFixed(1);
      void viewRanks(p, s.key, crewHex).then((view) => s.out.acceptances.push(`${who} ${p.hex.slice(0, 6)} at ${at} s, ${fresh.length} markers: hostile ranks among the live ${truth.join(',') || '-'}${inLimit ? ' (limit)' : ''}, in its live view ${view}`));
    };
    p.client.events.on('edits', ({ region, entries }) => seen(region, entries));
    p.client.events.on('pending', ({ region, shown }) => seen(region, shown));
  };
  for (const s of sites) watch(s, s.player);
  const mark = (s: Site, row: string, entries: Entry[]) => {
    for (const e of entries) s.marks.set(e.key, { id: e.id, row });
  };
  // What reached each honest peer from any hostile node, by frame type.
  const { listen, heardOf } = tallyFramesFrom(crewHex);
  for (const p of honest()) listen(p);

  // From the first row on: edits go on, the primary is sampled.
  const tRows = sim.clock.now();
  for (const s of sites) s.lastPrimaryAt = tRows;
  const stops = [
    every(sim.clock, editEveryMs, () => sites.forEach(editOnce)),
    every(sim.clock, 100, () => {
      const now = sim.clock.now();
      for (const s of sites) {
        if (sim.primariesOf(s.r).some((p) => !hostile(p))) {
          s.lastPrimaryAt = now;
          if (s.killedAt !== undefined && s.out.failoverMs === undefined) s.out.failoverMs = now - s.killedAt;
        }
        s.out.noPrimaryMs = Math.max(s.out.noPrimaryMs, now - s.lastPrimaryAt);
      }
    }),
  ];

  const table = rows();
  const wanted = new Set(o.frames ?? SCALE_FRAMES);
  const chosen = table.filter((x) => wanted.has(x.frame.t));
  const order = [...chosen.filter((x) => x.frame.wire !== 'players'), ...chosen.filter((x) => x.frame.wire === 'players')];
  const killAt = o.kill === false ? -1 : Math.floor(order.filter((x) => x.frame.wire === 'replicas').length / 2);
  const attacked = sites.filter((s) => s.scene);
  const late: (() => void)[] = [];
  for (let i = 0; i < order.length; i++) {
    const row = order[i]!;
    if (i === killAt) {
      for (const s of attacked) {
        const p = sim.primaryOf(s.r);
        // Never a player (of any region: on few peers one may be another region's primary), whose edits are judged.
        if (p && !hostile(p) && !players.has(p)) {
          sim.kill(p.hex);
          s.killedAt = sim.clock.now();
          s.out.hostile3AfterKill = hostileIn3(liveNearest(sim, s.key, hostile));
        }
      }
    }
    if (row.frame.wire === 'players' && !attacked.some((s) => s.fresh)) await joinFresh(sim, attacked, table.length, { watch, listen, mark });
    const idx = table.indexOf(row);
    const sends: { s: Site; to: SimPeer[]; before: number[] }[] = [];
    for (const s of attacked) {
      const sc = s.scene!;
      // The attacker follows the region's newest honest certificate (after the failover, the new one).
      const now = sim.primaryOf(s.r)?.host.regionState(s.r)?.cert;
      if (now && now.e > sc.real.e && !s.team.nodes.some((a) => idEquals(a.dht.selfId, now.primary))) sc.real = now;
      const to = targetsOf(sc, row, s, hostile);
      const cert = await certOf(sc, row.chain, row.frame.wire === 'dht' ? RECORD_HOSTS : MAX_CERT_HOSTS);
      const planted = plantedOf(s.r, idx), floor = floorOf(s.r, idx);
      mark(s, row.name, [...planted(1, 1), ...floor(1)]);
      s.out.rows++;
      if (row.frame.wire === 'dht') {
        if (!(await putRecord(sc, row, cert, planted))) s.out.undelivered++;
        continue;
      }
      const msg = await row.frame.make({ s: sc, cert, links: await linksOf(sc, row.chain), planted, floor, chain: row.chain });
      await sim.settle(Promise.allSettled(to.filter((p) => !sc.sender.dht.linked(p.hex)).map((p) => sc.sender.dht.connect(p.dht.selfId, 'adversary'))), 5000).catch(() => {});
      sends.push({ s, to, before: to.map((p) => heardOf(p, row.frame.t)) });
      if (msg) for (const p of to) (row.frame.wire === 'replicas' ? sc.sender.wire.replicas : sc.sender.wire.players).send(p.dht.selfId, msg as never);
    }
    const arrived = () => sends.every(({ to, before }) => to.every((p, k) => heardOf(p, row.frame.t) > before[k]!));
    if (sends.length > 0) await sim.clock.runUntil(arrived, 3000);
    await sim.run(ROW_MS);
    // Judged at the end: a routed frame may land after its row's time.
    for (const { s, to, before } of sends) {
      if (to.length === 0) s.out.skipped++;
      else late.push(() => void (!to.every((p, k) => heardOf(p, row.frame.t) > before[k]!) && s.out.undelivered++));
    }
    if ((i + 1) % 20 === 0) log(`row ${i + 1} of ${order.length} (${wall()})`);
  }
  const tEnd = sim.clock.now();
  await sim.run(o.tailMs ?? 10_000);
  stops[0]!();
  await sim.clock.runUntil(answered, 5000);
  stops[1]!();
  for (const judge of late) judge();

  for (const s of sites) judge(sim, s, honest(), crewHex, tEnd);
  for (const s of sites) {
    const view = s.fresh ? await sim.settle(s.fresh.dht.nearView.live(s.key, ANCHOR_RANK)).catch(() => []) : [];
    s.out.freshRanks = view.flatMap((id, k) => (crewHex.has(idToHex(id)) ? [k + 1] : []));
  }
  const result: SybilScaleResult = {
    peers: o.peers, hostile: crew.size, keysPerHostile: keysPer, regions: sites.map((s) => s.out), rowsPerRegion: order.length,
    doublePrimaries: sim.doublePrimaries().length, joinWallSec, wallSec: (performance.now() - t0) / 1000, virtualSec: sim.clock.now() / 1000,
  };
  sim.stopAll();
  return result;
}

/** The honest peers a row goes to: the kit's targets, hostile nodes left out; an idle host is an honest hosting peer outside the set. */
function targetsOf(sc: Scene, row: Row, s: Site, hostile: (p: SimPeer) => boolean): SimPeer[] {
  if (row.role !== 'idle') return targets(sc, row.role, s.fresh).filter((p) => !hostile(p));
  const inSet = (p: SimPeer) => sc.real.hosts.some((h) => idEquals(h, p.dht.selfId));
  const idle = sc.sim.live().find((p) => !hostile(p) && !inSet(p) && !p.playOnly && p !== sc.player && !p.host.regionState(sc.r));
  return idle ? [idle] : [];
}

/**
 * A fresh play-only subscriber per attacked region, joined after the host and record rows:
 * its first lookup of the key is answered by the region's lead attacker alone, which answers
 * its SUBSCRIBE with a SNAPSHOT of its markers under a certificate of its own (the kit's
 * fresh row, adversary.ts freshSubscriber, for every region at once).
 */
async function joinFresh(sim: HostSim, sites: Site[], idx: number, h: { watch: (s: Site, p: SimPeer) => void; listen: (p: SimPeer) => void; mark: (s: Site, row: string, e: Entry[]) => void }): Promise<void> {
  for (const s of sites) {
    const p = await sim.add(undefined, { playOnly: true });
    s.fresh = p;
    h.listen(p);
    h.watch(s, p);
    // Minted with the lead as primary: it answers the SUBSCRIBE, and a subscriber takes a SNAPSHOT only from the primary its certificate names.
    const cert = await certOf({ ...s.scene!, sender: s.team.node }, 'minted');
    const planted = plantedOf(s.r, idx)(cert.e, 1);
    h.mark(s, 'SNAPSHOT answering SUBSCRIBE -> fresh, minted', planted);
    s.team.serve(s.r, cert, planted);
    eclipseOnce(p, s.key, s.team.node);
    p.client.subscribe(s.r).catch(() => {});
  }
  await sim.clock.runUntil(() => sites.every((s) => !!s.fresh!.client.attachment(s.r)), 10_000);
}

/** What the attack left in region `s` (see the file's head). */
function judge(sim: HostSim, s: Site, honest: SimPeer[], crewHex: Set<string>, tEnd: number): void {
  const byRow = new Map<string, number>();
  const add = (row: string) => byRow.set(row, (byRow.get(row) ?? 0) + 1);
  const holds = (st: RegionState | undefined, key: number, id: number) => st?.get(key)?.id === id;
  for (const p of honest) {
    const stored = p.host.regionState(s.r)?.state, shown = p.client.state(s.r);
    for (const [key, m] of s.marks) {
      if (holds(stored, key, m.id)) add(m.row);
      if (!holds(shown, key, m.id) && !s.drawn.has(`${p.hex}:${key}`)) continue;
      add(m.row);
      const inLimit = s.drawnInLimit.has(`${p.hex}:${key}`);
      if (inLimit) s.out.acceptedLimit++;
      if (p !== s.fresh) continue;
      s.out.acceptedFresh++;
      if (inLimit) s.out.acceptedFreshLimit++;
    }
  }
  s.out.breaches = [...byRow].map(([row, n]) => `${row}: ${n}`);
  s.out.accepted = [...byRow.values()].reduce((a, b) => a + b, 0);
  s.out.limitLive = s.out.acceptedLimit > 0;
  const primary = sim.primaryOf(s.r);
  const after = s.edits.filter((e) => e.at >= tEnd);
  s.out.frozen = !primary || !honest.includes(primary) || !after.some((e) => e.ok);
  if (s.killedAt !== undefined) s.out.failoverMs ??= -1;
  s.out.edits = s.edits.length;
  const ok = s.edits.filter((e) => e.ok);
  s.out.confirmed = ok.length;
  // What the primary stores (if honest) and each subscriber shows, attached or not (one that shows nothing of the region: freshHonest).
  const views = [...(primary && honest.includes(primary) ? [primary.host.regionState(s.r)?.state] : []), ...[s.player, s.fresh].map((p) => p?.client.state(s.r))].filter((st) => !!st);
  // A later edit at the same spot may have replaced one (spots repeat every 64 edits of the run).
  const last = new Map(ok.map((e) => [`${e.spot.x},${e.spot.y},${e.spot.z}`, e]));
  s.out.unseen = [...last.values()].filter((e) => !views.every((st) => blockAt(st, e.spot) === e.spot.id)).length;
  const set = s.scene?.real.hosts ?? [];
  for (const p of honest) {
    const c = p.host.regionState(s.r)?.cert;
    if (!c) continue;
    const inSet = set.some((h) => idEquals(h, p.dht.selfId));
    if (inSet) s.out.maxEpoch = Math.max(s.out.maxEpoch, c.e);
    if (!crewHex.has(idToHex(c.primary))) continue;
    s.out.adopted++;
    if (inSet) s.out.adoptedInSet++;
  }
  const a = s.fresh?.client.attachment(s.r);
  s.out.freshHonest = !!a && honest.some((p) => p.hex === a.primary);
}

/**
 * Where the hostile nodes lie (1 the nearest) among the ANCHOR_RANK nodes nearest `key` that
 * live and may host, whatever any reader knows: honest play-only tabs say they host nothing,
 * so no reader counts them; a hostile node says nothing of the kind.
 */
function liveNearest(sim: HostSim, key: NodeId, hostile: (p: SimPeer) => boolean): number[] {
  const hosting = sim.live().filter((p) => hostile(p) || !p.playOnly);
  return sortByDistance(hosting, (p) => p.dht.selfId, key).slice(0, ANCHOR_RANK).flatMap((p, k) => (hostile(p) ? [k + 1] : []));
}

/** Of hostile ranks, those among the host set's (3) nearest. */
function hostileIn3(ranks: readonly number[]): number {
  return ranks.filter((k) => k <= HOST_DEFAULTS.replicas).length;
}

/** The hostile ranks in `p`'s own live view of `key` (near-view.ts `live`), if it holds one now ('none' if not: no lookup is started for it). */
async function viewRanks(p: SimPeer, key: NodeId, crewHex: ReadonlySet<string>): Promise<string> {
  if (!p.dht.nearView.hasLive?.(key)) return 'none';
  const view = await p.dht.nearView.live(key, ANCHOR_RANK);
  return view.flatMap((id, k) => (crewHex.has(idToHex(id)) ? [k + 1] : [])).join(',') || '-';
}
