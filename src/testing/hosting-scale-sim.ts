// The hosting simulation at scale (hosting at scale): N real peers (DhtNode + HostingService +
// RegionClient, host-sim.ts) on the in-memory network and the virtual clock, and M players:
// up to N of them on the hosting peers, the rest on play-only peers (a read-only DHT node that
// hosts nothing: dht/read-only-peers.ts). Each plays
// through a real NetworkChunkSource (the page's chunk source: live subscriptions to the 3 x 3
// regions around the player, MOVE at its own rate, edits through its tentative path).
// Players walk at random over an area of about two players per region, or (`crowd`) all
// around one spot inside one region. Some players edit a block near them now and then;
// optional churn replaces peers (silently killed) while the run goes on.
//
// What it measures over the measured window (after a warm-up):
// - links per player: distinct hosts its region client is attached to (the play links),
//   and the DHT links of every peer (bucket links and pinned ones together);
// - upload per peer in kB/s: HostWires.bytesOut (player and replication channels; DHT
//   routing and upkeep not counted), and the busiest peer's by frame type;
// - edit to visible: submit to each other player drawing it, pending (its client's
//   'pending' event: ordered, not committed yet) or committed, whichever first; edit to
//   committed: to its state holding it (the client's 'edits' event). Both for every player
//   attached to the region at submit time, and only where the commit came: of the edits whose
//   first answer was a confirm (`retriedMs`: the others). Late: over `lateMs`. Missing:
//   never shown while that player stayed subscribed. Observers that left first: `left`;
// - remote-position rates (position-rates.ts), of the others within the interest radius
//   and of the 32 nearest;
// - visibility: once a second, the share of (player, other player within the interest
//   radius) pairs where the player's NetworkChunkSource listed the other within the last
//   second (both joined at least `graceMs` before);
// - region moves: times a player's client attached to a region anew (attaches, failovers).
import { every } from '../core/clock';
import { seededRandom, type Random } from '../core/seeded-random';
import { idToHex } from '../core/node-id';
import { NetworkChunkSource } from '../play/network-chunk-source';
import { columnIndex, REGION_BLOCKS, REGION_SIZE, regionAt, regionName, type RegionCoord } from '../region/region-key';
import { entryKey, type Entry } from '../region/region-state';
import { NETWORK_SOURCE_DEFAULTS } from '../play/network-chunk-source';
import { PLACEABLE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { HostSim, type SimPeer } from './host-sim';
import type { DhtStats } from '../dht/stats';
import { PositionRates, RATE_SAMPLE_MS } from './position-rates';
import { EditTail } from './edit-tail';
import { dist, LATE_MS, type HostingScaleFigures } from './hosting-scale-figures';

export { describeFigures, type Dist, type HostingScaleFigures } from './hosting-scale-figures';

export interface HostingScaleOptions {
  /** Hosting peers. */
  peers: number;
  /**
   * Players. Up to `peers`, each is a hosting peer that also plays, as a tab is; past that,
   * the rest are play-only peers (a read-only DHT node that hosts nothing: a phone, or a
   * player who unticked hosting), which join after the hosting peers.
   */
  players: number;
  seed?: number;
  /** Measured virtual time (after the warm-up). */
  measureMs?: number;
  warmupMs?: number;
  /** All players walk around one spot (inside one region) instead of spreading out. */
  crowd?: boolean;
  /** Share of the peers replaced per virtual minute (silent kills, new peers join). */
  churnPerMin?: number;
  /**
   * Frames per second a DHT link may carry into a peer (link-set.ts; the product's default
   * when unset): lowered, a small crowd meets the limit a large one meets at the default.
   */
  linkFramesPerSec?: number;
  /** How many times that a pinned link may carry (link-set.ts `pinnedFramesFactor`; the product's when unset). */
  pinnedFramesFactor?: number;
  /** Hosts send ordered edits as PENDING before their commit (host-options.ts; the product's: true). */
  showPending?: boolean;
  /** Mean one-way latency of the in-memory network. */
  latencyMs?: number;
  /** A link's base latency within this fraction of latencyMs either side (memory-network.ts; default 0.5: 25-75 ms at 50). */
  latencySpread?: number;
  jitterMs?: number;
  /** Mean time between one player's edits. */
  editEveryMs?: number;
  /** MOVE frames per second (play/network-chunk-source.ts `moveHz`; the product's when unset). */
  moveHz?: number;
  /** A player must see every other player this close (blocks). */
  interestRadius?: number;
  /** Players per 64 x 64 blocks of the walking area (random walk): a region of 4 x 4 chunks, whatever REGION_SIZE the run was built with. */
  density?: number;
  /**
   * Peers that join at once (default 1: one after another, as the first committed figures
   * were measured). Batches of up to this many, never more than have joined, as
   * sim-cluster.ts grows: the join of 1,000 peers one by one took 2,378 s of wall time.
   */
  joinBatch?: number;
  log?: (line: string) => void;
}

/** A simulated player: a peer walking through its NetworkChunkSource (also idle-cost-sim.ts). */
export interface WalkingPlayer {
  peer: SimPeer;
  source: NetworkChunkSource;
  x: number;
  z: number;
  heading: number;
}

interface Walker extends WalkingPlayer {
  joinedAt: number;
  /** Other player hex -> the last time our source listed it as heard then. */
  seenAt: Map<string, number>;
  /** Other player hex -> the last few positions received (to count new ones). */
  lastPos: Map<string, { x: number; z: number }[]>;
  stops: (() => void)[];
}

interface PendingEdit {
  region: string;
  key: number;
  id: number;
  at: number;
  editor: string;
  /** Observer hex -> still waiting. */
  waiting: Set<string>;
  confirmed: boolean | undefined;
  /** Submit to each observer's state holding it, committed (the first: the commit's delay; the rest: the delivery's). */
  samples: number[];
  /** Per observer (hex), submit to its first drawing the block: pending (PENDING) or, if none came first, committed. */
  drawn: Map<string, number>;
  /** The same per committed sample, in the order of `samples`, and whose each is (hex). */
  drawnSamples: number[];
  observers: string[];
}

const Y = 100;
const SPEED = 4.3; // blocks per second: a walking player
const STEP_MS = 50; // the page's frames, as far as MOVE and subscriptions go (MOVE itself is throttled by the source)

export async function runHostingScale(o: HostingScaleOptions): Promise<HostingScaleFigures> {
  const t0 = performance.now();
  const seed = o.seed ?? 1;
  const latencyMs = o.latencyMs ?? 50;
  const latencySpread = o.latencySpread ?? 0.5;
  const log = o.log ?? (() => {});
  const players = o.players;
  const playOnly = Math.max(0, o.players - o.peers);
  const R = o.interestRadius ?? 48;
  const crowd = o.crowd ?? false;
  const measureMs = o.measureMs ?? 60_000;
  const warmupMs = o.warmupMs ?? 15_000;
  const editEveryMs = o.editEveryMs ?? 10_000;
  const graceMs = 10_000;
  const rateWindowMs = 2000;
  const rates = new PositionRates(R, graceMs, rateWindowMs, o.moveHz);
  const sim = new HostSim({ seed, net: { latencyMs, latencySpread, jitterMs: o.jitterMs ?? 5 }, ...(o.showPending === false ? { host: { showPending: false } } : {}), ...(o.linkFramesPerSec ? { dht: { linkFramesPerSec: o.linkFramesPerSec, linkFrameBurst: 2 * o.linkFramesPerSec, ...(o.pinnedFramesFactor ? { pinnedFramesFactor: o.pinnedFramesFactor } : {}) } } : {}) });
  const rand: Random = seededRandom(seed * 101 + 13);

  // Where players walk: a square of about `density` players per 64 x 64 blocks, or a disc of
  // 24 blocks around the middle of region (0, 0). (The same ground at every region size:
  // `npm run sim -- --hosting --region-size S` builds the simulation with REGION_SIZE S.)
  const side = Math.max(1, Math.ceil(Math.sqrt(players / (o.density ?? 2)))) * 64;
  // Live subscriptions reach the interest radius from anywhere in the centre region, past
  // the hysteresis: 3 x 3 regions of 4 x 4 chunks (56 blocks at least), 5 x 5 of 2 x 2.
  const liveRadius = Math.max(1, Math.ceil((R + NETWORK_SOURCE_DEFAULTS.hysteresisBlocks) / REGION_BLOCKS));
  const spot = { x: REGION_BLOCKS / 2, z: REGION_BLOCKS / 2, r: 24 };
  const spawn = (): { x: number; z: number } => {
    if (crowd) {
      const a = rand() * Math.PI * 2, d = Math.sqrt(rand()) * spot.r;
      return { x: spot.x + Math.cos(a) * d, z: spot.z + Math.sin(a) * d };
    }
    return { x: rand() * side, z: rand() * side };
  };

  const joinBatch = Math.max(1, o.joinBatch ?? 1);
  const times = () => `${((performance.now() - t0) / 1000).toFixed(0)} s wall, ${(sim.clock.now() / 1000).toFixed(0)} s virtual`;
  let logged = 0;
  await sim.grow(o.peers, {
    batch: joinBatch,
    onBatch: (joined) => {
      if (Math.floor(joined / 50) <= logged) return;
      logged = Math.floor(joined / 50);
      log(`joined ${joined} peers (${times()})`);
    },
  });
  // The play-only peers, in batches too (as many at once as have joined, at most joinBatch).
  await sim.grow(playOnly, { batch: joinBatch, playOnly: true, onBatch: (joined) => log(`joined ${joined} play-only peers (${times()})`) });

  const joinSec = sim.clock.now() / 1000;
  const walkers = new Map<string, Walker>();
  const pending = new Map<string, PendingEdit>();
  const edits = { submitted: 0, confirmed: 0, notConfirmed: 0, samples: 0, late: 0, missing: 0, left: 0 };
  const visibleMs: number[] = [], committedMs: number[] = [], firstMs: number[] = [], confirmMs: number[] = [];
  let measuring = false;
  let ghostFrames = 0;
  const reattachCauses: Record<string, number> = {};

  const startPlayer = (peer: SimPeer, at?: { x: number; z: number }): Walker => {
    const pos = at ?? spawn();
    const source = new NetworkChunkSource({ seed: 'sim', world: sim.world, client: peer.client, dht: peer.dht, clock: sim.clock, options: { name: peer.hex.slice(0, 8), liveRadius, ...(o.moveHz ? { moveHz: o.moveHz } : {}) } });
    const w: Walker = { peer, source, x: pos.x, z: pos.z, heading: rand() * Math.PI * 2, joinedAt: sim.clock.now(), seenAt: new Map(), lastPos: new Map(), stops: [] };
    w.stops.push(peer.client.events.on('players', ({ players: frames }) => {
      const now = sim.clock.now();
      for (const f of frames) {
        const hex = idToHex(f.id);
        if (hex === peer.hex) continue;
        // Our source lists it now, as heard at this instant (network-chunk-source.ts onPlayers
        // dates each player of a frame so): when it last listed each player, read here rather
        // than from its whole list, which it emits again on every frame.
        w.seenAt.set(hex, now);
        // A position among the last few received (most recent last) is not new: the region a
        // player just left lists it where it was for PLAYER_TTL_MS, beside the new region's.
        const recent = w.lastPos.get(hex) ?? [];
        const i = recent.findIndex((q) => q.x === f.x && q.z === f.z);
        if (i >= 0) {
          if (i !== recent.length - 1) ghostFrames++;
          recent.push(...recent.splice(i, 1));
          continue;
        }
        recent.push({ x: f.x, z: f.z });
        if (recent.length > 8) recent.shift();
        w.lastPos.set(hex, recent);
        if (measuring) rates.heard(peer.hex, hex, f.x, f.z, sim.clock.now());
      }
    }));
    w.stops.push(peer.client.events.on('edits', ({ region, entries }) => onEdits(w, region, entries)));
    w.stops.push(peer.client.events.on('pending', ({ region, shown }) => onDrawn(w, region, shown)));
    // Why players re-attach, by region (the crowd's own, 0,0, or a neighbour's), measured window.
    w.stops.push(peer.client.events.on('detached', ({ region, why }) => {
      if (!measuring) return;
      const k = `${regionName(region)} ${why}`;
      reattachCauses[k] = (reattachCauses[k] ?? 0) + 1;
    }));
    // The MOVEs it sends (the positions the others should receive: position-rates.ts).
    const move = peer.client.move.bind(peer.client);
    peer.client.move = (p, name) => {
      const sent = move(p, name);
      if (sent && measuring) rates.sent(peer.hex, p.x, p.z, sim.clock.now());
      return sent;
    };
    walkers.set(peer.hex, w);
    source.setPosition(pose(w));
    return w;
  };
  const stopPlayer = (w: Walker) => {
    for (const s of w.stops) s();
    w.source.close();
    walkers.delete(w.peer.hex);
  };
  const onEdits = (w: Walker, region: RegionCoord, entries: Entry[]) => {
    const name = regionName(region);
    for (const e of entries) {
      const pe = pending.get(`${name}|${e.key}`);
      if (!pe || e.id !== pe.id || !pe.waiting.delete(w.peer.hex)) continue;
      const ms = sim.clock.now() - pe.at;
      pe.samples.push(ms);
      pe.drawnSamples.push(Math.min(ms, pe.drawn.get(w.peer.hex) ?? Infinity));
      pe.observers.push(w.peer.hex);
    }
  };
  // Drawn pending (ordered, not committed yet): counted for an observer once its commit came too.
  const onDrawn = (w: Walker, region: RegionCoord, entries: Entry[]) => {
    const name = regionName(region);
    for (const e of entries) {
      const pe = pending.get(`${name}|${e.key}`);
      if (!pe || e.id !== pe.id || !pe.waiting.has(w.peer.hex) || pe.drawn.has(w.peer.hex)) continue;
      pe.drawn.set(w.peer.hex, sim.clock.now() - pe.at);
    }
  };
  // An edit's samples count once its first answer is known: a confirm. One the host refused
  // first (in a crowd, mostly 'occupied': a player stands in the block) is kept tentative by
  // its editor and retried until it commits, seconds later; that is the retry's wait, not
  // delivery, and is counted apart (`retriedMs`).
  const retriedMs: number[] = [];
  const settle = (pe: PendingEdit) => {
    const k = `${pe.region}|${pe.key}|${pe.id}`;
    if (pe.samples.length === 0 || pe.confirmed !== true) tail.done(k);
    if (pe.samples.length === 0) return;
    if (pe.confirmed !== true) return void retriedMs.push(...pe.samples);
    tail.edit(k, pe.at);
    pe.observers.forEach((hex, i) => tail.sample(k, hex, pe.at, pe.drawnSamples[i]!));
    tail.done(k);
    visibleMs.push(...pe.drawnSamples);
    committedMs.push(...pe.samples);
    firstMs.push(pe.samples[0]!);
    edits.samples += pe.samples.length;
    edits.late += pe.drawnSamples.filter((ms) => ms > LATE_MS).length;
  };

  // Where slow samples' time went (edit-tail.ts): every peer's frames watched.
  const tail = new EditTail(() => sim.clock.now(), (k) => {
    const i = k.lastIndexOf('|');
    return pending.get(k.slice(0, i))?.id === Number(k.slice(i + 1));
  });
  const tailStops = sim.live().map((p) => tail.watch(p));
  const players0 = [...sim.live().filter((p) => !p.playOnly).slice(0, players), ...sim.live().filter((p) => p.playOnly)];
  for (const p of players0) startPlayer(p);

  // The walk: each frame every player moves on; it turns a little at random, and back
  // inward at the edge of its area.
  const walk = () => {
    const dt = STEP_MS / 1000;
    for (const w of walkers.values()) {
      w.heading += (rand() - 0.5) * 0.6;
      let nx = w.x + Math.cos(w.heading) * SPEED * dt, nz = w.z + Math.sin(w.heading) * SPEED * dt;
      const out = crowd ? Math.hypot(nx - spot.x, nz - spot.z) > spot.r : nx < 0 || nz < 0 || nx >= side || nz >= side;
      if (out) {
        const cx = crowd ? spot.x : side / 2, cz = crowd ? spot.z : side / 2;
        w.heading = Math.atan2(cz - w.z, cx - w.x) + (rand() - 0.5);
        nx = w.x + Math.cos(w.heading) * SPEED * dt;
        nz = w.z + Math.sin(w.heading) * SPEED * dt;
      }
      w.x = nx;
      w.z = nz;
      w.source.setPosition(pose(w));
      if (measuring && rand() < STEP_MS / editEveryMs) edit(w);
    }
  };
  const edit = (w: Walker) => {
    const bx = Math.floor(w.x) + Math.floor(rand() * 9) - 4, bz = Math.floor(w.z) + Math.floor(rand() * 9) - 4;
    const by = Y + Math.floor(rand() * 6) - 2;
    const id = PLACEABLE[Math.floor(rand() * PLACEABLE.length)]!;
    const region = regionAt(bx, bz);
    const name = regionName(region);
    const key = entryKey(columnIndex(chunkOf(bx), chunkOf(bz)), localOf(bx), by, localOf(bz));
    const k = `${name}|${key}`;
    const old = pending.get(k);
    if (old) {
      edits.left += old.waiting.size; // overwritten before all saw it: not counted
      settle(old);
      pending.delete(k);
    }
    const waiting = new Set<string>();
    for (const o2 of walkers.values()) if (o2 !== w && o2.peer.client.isReady(region) && o2.peer.client.attachment(region)) waiting.add(o2.peer.hex);
    const pe: PendingEdit = { region: name, key, id, at: sim.clock.now(), editor: w.peer.hex, waiting, confirmed: undefined, samples: [], drawn: new Map(), drawnSamples: [], observers: [] };
    pending.set(k, pe);
    edits.submitted++;
    w.source.submitEdit(bx, by, bz, id).then(
      (r) => {
        pe.confirmed = r.confirmed;
        if (measuring) confirmMs.push(sim.clock.now() - pe.at);
      },
      () => (pe.confirmed = false),
    );
  };
  const stopWalk = every(sim.clock, STEP_MS, walk);

  log(`${players} players on ${o.peers} peers; warming up ${warmupMs / 1000} s (${((performance.now() - t0) / 1000).toFixed(0)} s wall)`);
  // The DHT's lookups from the players' start to the end (joins apart): a player's first
  // moments look up the regions around it, most of them nobody hosts yet in a new world.
  const dhtLookups = new PeerSums(sim, (s) => ({ lookups: s.lookups, gets: s.getLookups, rpcs: s.lookupRpcs, forwarded: s.routedForwarded }));
  const lookups0 = dhtLookups.now();
  await sim.run(warmupMs);

  // ---- the measured window --------------------------------------------------------------
  measuring = true;
  const tStart = sim.clock.now();
  const bytesAt = new Map<string, { bytes: number; at: number; byType: Map<string, { frames: number; bytes: number }> }>();
  const kbps: number[] = [], playOnlyKbps: number[] = [];
  let busiest: HostingScaleFigures['busiest'];
  const openBytes = (p: SimPeer, at: number) => bytesAt.set(p.hex, { bytes: p.wire.bytesOut, at, byType: p.wire.outByType() });
  for (const p of sim.live()) openBytes(p, tStart);
  const dhtDrops = new PeerSums(sim, (s) => ({ rateLimited: s.dropped.rateLimited, floodLinksClosed: s.floodLinksClosed, noRoute: s.dropped.noRoute, ttl: s.dropped.ttl }));
  const drops0 = dhtDrops.now();
  const closeBytes = (p: SimPeer) => {
    const b = bytesAt.get(p.hex);
    if (!b) return;
    const sec = (sim.clock.now() - b.at) / 1000;
    const k = (p.wire.bytesOut - b.bytes) / 1000 / sec;
    bytesAt.delete(p.hex);
    if (p.playOnly) {
      if (sec >= 5) playOnlyKbps.push(k);
      return;
    }
    if (sec >= 5) kbps.push(k);
    if (sec >= 5 && (!busiest || k > busiest.kbps)) busiest = { hex: p.hex.slice(0, 8), kbps: k, byType: typesSince(b.byType, p.wire.outByType(), sec) };
  };
  const attaches0 = [...walkers.values()].reduce((n, w) => n + w.peer.client.stats.attaches, 0);
  // POSITIONS streams lost in the measured window, by cause (the clients' counts summed; those of players churned away are lost with them).
  const lostNow = () => [...walkers.values()].reduce((d, w) => {
    const c = w.peer.client.stats;
    return { asked: d.asked + c.positionsLost, gap: d.gap + c.positionsLostWhy.gap, overflow: d.overflow + c.positionsLostWhy.overflow, unreadable: d.unreadable + c.positionsLostWhy.unreadable };
  }, { asked: 0, gap: 0, overflow: 0, unreadable: 0 });
  const lost0 = lostNow();
  let attachesGone = 0;
  let failovers = 0;
  const links: number[] = [], playOnlyLinks: number[] = [], playOnlyDhtLinks: number[] = [], dhtLinks: number[] = [], pinnedLinks: number[] = [], unpinnedLinks: number[] = [], hostingLinks: number[] = [];
  let playPairs = 0, playDirect = 0;
  let pairs = 0, seenPairs = 0;
  const unseen: HostingScaleFigures['unseen'] = [];
  let kills = 0;

  const sample = () => {
    const now = sim.clock.now();
    const ws = [...walkers.values()];
    for (const w of ws) {
      const hosts = new Set<string>();
      for (const r of w.peer.client.subscribed()) {
        const a = w.peer.client.attachment(r);
        if (!a || a.primary === w.peer.hex) continue;
        hosts.add(a.primary);
        playPairs++;
        if (w.peer.dht.links.get(a.primary)) playDirect++;
      }
      (w.peer.playOnly ? playOnlyLinks : links).push(hosts.size);
      if (now - w.joinedAt < graceMs) continue;
      for (const b of ws) {
        if (b === w || now - b.joinedAt < graceMs) continue;
        const d = Math.hypot(b.x - w.x, b.z - w.z);
        if (d > R) continue;
        pairs++;
        if (now - (w.seenAt.get(b.peer.hex) ?? -Infinity) <= 1000) seenPairs++;
        else if (unseen.length < 20) unseen.push({ viewer: w.peer.hex.slice(0, 8), other: b.peer.hex.slice(0, 8), dist: Math.round(d), at: now });
      }
    }
    for (const p of sim.live()) {
      if (p.playOnly) {
        playOnlyDhtLinks.push(p.dht.links.size);
        continue;
      }
      dhtLinks.push(p.dht.links.size);
      let pinned = 0, readOnly = 0;
      for (const l of p.dht.links.map.values()) {
        if (l.pinned) pinned++;
        else if (l.readOnly) readOnly++;
      }
      pinnedLinks.push(pinned);
      unpinnedLinks.push(p.dht.links.size - pinned);
      hostingLinks.push(p.dht.links.size - pinned - readOnly);
    }
  };
  let rateSamples = 0;
  const sampleRates = () => {
    const viewers = [...walkers.values()].map((w) => ({ hex: w.peer.hex, x: w.x, z: w.z, joinedAt: w.joinedAt }));
    const now = sim.clock.now();
    rates.sample(viewers, now);
    if (++rateSamples % (rateWindowMs / RATE_SAMPLE_MS) === 0) rates.window(viewers, now);
  };
  const churn = () => {
    const victim = sim.pick();
    const w = walkers.get(victim.hex);
    const at = w ? { x: w.x, z: w.z } : undefined;
    if (w) {
      attachesGone += w.peer.client.stats.attaches;
      failovers += w.peer.client.stats.failovers;
      stopPlayer(w);
      rates.drop(w.peer.hex);
    }
    closeBytes(victim);
    dhtDrops.gone(victim);
    dhtLookups.gone(victim);
    // Pending edits no longer wait for a dead observer.
    for (const pe of pending.values()) if (pe.waiting.delete(victim.hex)) edits.left++;
    sim.kill(victim.hex);
    kills++;
    // Its replacement joins (the player, if it was one, comes back on the new peer where it stood).
    void sim.add(undefined, { playOnly: victim.playOnly }).then((p) => {
      openBytes(p, sim.clock.now());
      if (at) startPlayer(p, at);
    });
  };

  const stops = [every(sim.clock, 1000, sample), every(sim.clock, RATE_SAMPLE_MS, sampleRates)];
  // Observers that leave the region before an edit shows are not counted.
  stops.push(every(sim.clock, 500, () => {
    for (const pe of pending.values()) {
      for (const hex of pe.waiting) {
        const w = walkers.get(hex);
        if (!w || !w.peer.client.state(parseRegion(pe.region))) {
          pe.waiting.delete(hex);
          edits.left++;
        }
      }
    }
  }));
  const churnEvery = o.churnPerMin && o.churnPerMin > 0 ? 60_000 / (o.churnPerMin * o.peers) : 0;
  if (churnEvery > 0) stops.push(every(sim.clock, Math.max(100, Math.round(churnEvery)), churn));
  for (let t = 0; t < measureMs; t += 10_000) {
    await sim.run(Math.min(10_000, measureMs - t));
    log(`measured ${(Math.min(measureMs, t + 10_000) / 1000).toFixed(0)} s of ${measureMs / 1000} (${((performance.now() - t0) / 1000).toFixed(0)} s wall)`);
  }
  measuring = false;
  const dropped = dhtDrops.since(drops0);
  const lookups = dhtLookups.since(lookups0);
  // Traced: the peers whose links dropped the most frames for rate, and their roles.
  if (process.env.HOST_TRACE) {
    const top = sim.live().map((p) => ({ p, n: p.dht.stats.dropped.rateLimited })).filter((x) => x.n > 0).sort((a, b) => b.n - a.n).slice(0, 8);
    for (const { p, n } of top) log(`rate-limited at ${p.hex.slice(0, 6)}: ${n} (primary of ${p.host.roles().primary.join(' ') || '-'}; backup of ${p.host.roles().backup.join(' ') || '-'})`);
  }
  for (const s of stops) s();
  // Edits of the last seconds get time to show (players keep walking meanwhile).
  await sim.run(3000);
  stopWalk();
  for (const pe of pending.values()) {
    settle(pe);
    if (pe.confirmed === true) edits.confirmed++;
    else {
      edits.notConfirmed++;
      continue; // not confirmed: its observers are not samples
    }
    for (const hex of pe.waiting) {
      const w = walkers.get(hex);
      if (w?.peer.client.state(parseRegion(pe.region))) edits.missing++;
      else edits.left++;
    }
  }
  for (const p of sim.live()) closeBytes(p);
  for (const s of tailStops) s();
  const attaches = [...walkers.values()].reduce((n, w) => n + w.peer.client.stats.attaches, 0) + attachesGone - attaches0;
  failovers += [...walkers.values()].reduce((n, w) => n + w.peer.client.stats.failovers, 0);
  const measuredSec = (sim.clock.now() - tStart) / 1000;
  const lost1 = lostNow();
  rates.judgeMisses(sim.clock.now(), true);
  const positionsLost = { asked: lost1.asked - lost0.asked, gap: lost1.gap - lost0.gap, overflow: lost1.overflow - lost0.overflow, unreadable: lost1.unreadable - lost0.unreadable };
  const clientStats = { attaches: 0, reattaches: 0, redirects: 0, failovers: 0, gaps: 0, stale: 0, positionsLost: 0, confirmed: 0, rejected: 0, timeouts: 0, pendingShown: 0, pendingTakenBack: 0, pendingRefused: 0, relayUnproven: 0 };
  for (const w of walkers.values()) for (const k of Object.keys(clientStats) as (keyof typeof clientStats)[]) clientStats[k] += w.peer.client.stats[k];
  const gapCauses: Record<string, number> = {};
  for (const w of walkers.values()) for (const [k, n] of Object.entries(w.peer.client.stats.gapWhy)) gapCauses[k] = (gapCauses[k] ?? 0) + n;
  const hostStats = { claimsWon: 0, handoffs: 0, stepDowns: 0, reconfigs: 0 };
  for (const p of sim.live()) for (const k of Object.keys(hostStats) as (keyof typeof hostStats)[]) hostStats[k] += p.host.stats[k];
  const pinsRefused = sim.live().reduce((n, p) => n + p.dht.stats.pinsRefused, 0);
  const readOnly = readOnlyFigures(sim.live());
  for (const w of [...walkers.values()]) stopPlayer(w);
  sim.stopAll();
  return {
    peers: o.peers, players, playOnly, playOnlyLinksPerPlayer: dist(playOnlyLinks), playOnlyDhtLinks: dist(playOnlyDhtLinks), playOnlyKbps: dist(playOnlyKbps), readOnly, seed, crowd, latencyMs, latencySpread, measuredSec, joinBatch, joinSec, regionSize: REGION_SIZE, liveRadius,
    busiest, linksPerPlayer: dist(links), dhtLinksPerPeer: dist(dhtLinks), pinnedLinksPerPeer: dist(pinnedLinks), unpinnedLinksPerPeer: dist(unpinnedLinks), hostingLinksPerPeer: dist(hostingLinks), playLinksDirect: playPairs ? playDirect / playPairs : 1, pinsRefused, hostKbps: dist(kbps), editVisibleMs: dist(visibleMs), editCommittedMs: dist(committedMs), editTail: tail.figures(), edits,
    remoteHz: dist(rates.remote), nearest32Hz: dist(rates.whileNear), nearest32WindowHz: dist(rates.windowEnd), nearest32StableHz: dist(rates.stable), nearest32AgeMs: dist(rates.ageMs), editFirstVisibleMs: dist(firstMs), editRetriedMs: dist(retriedMs), editConfirmMs: dist(confirmMs), staleEntries: ghostFrames, visibility: pairs ? seenPairs / pairs : 1, visibilityPairs: pairs, unseen,
    attachesPerPlayerMin: players > 0 && measuredSec > 0 ? attaches / players / (measuredSec / 60) : 0, failovers, clientStats, positionsLost, nearMisses: rates.misses, reattachCauses, gapCauses, hostStats, dhtDrops: dropped, dhtLookups: lookups, kills, wallSec: (performance.now() - t0) / 1000,
  };
}

/**
 * Where the play-only peers stand at the end of a run: how many of them the hosting peers'
 * routing tables hold (none should), the regions they host (none), the hosting frames that
 * reached them anyway, and the routed messages they forwarded for others.
 */
/**
 * Counters of every peer's DHT stats summed over the run: the live peers' and, once killed,
 * a peer's last counts (a killed peer leaves `sim.live()`; summing the live ones alone lost
 * its work, and a window with churn could come out negative).
 */
class PeerSums<K extends string> {
  private readonly killed = {} as Record<K, number>;

  constructor(private readonly sim: HostSim, private readonly of: (s: DhtStats) => Record<K, number>) {}

  /** The sums so far. */
  now(): Record<K, number> {
    const sum = { ...this.killed };
    for (const p of this.sim.live()) addInto(sum, this.of(p.dht.stats));
    return sum;
  }

  /** The sums' growth since `before` (an earlier `now()`). */
  since(before: Record<K, number>): Record<K, number> {
    const now = this.now();
    for (const k of Object.keys(now) as K[]) now[k] -= before[k] ?? 0;
    return now;
  }

  /** `p` is about to be killed: its counts stay in the sums. */
  gone(p: SimPeer): void {
    addInto(this.killed, this.of(p.dht.stats));
  }
}

function addInto<K extends string>(sum: Record<K, number>, add: Record<K, number>): void {
  for (const k of Object.keys(add) as K[]) sum[k] = (sum[k] ?? 0) + add[k];
}

function readOnlyFigures(peers: SimPeer[]): HostingScaleFigures['readOnly'] {
  const ro = new Set(peers.filter((p) => p.playOnly).map((p) => p.hex));
  let inTables = 0, hosting = 0, playOnlyFrames = 0, forwarded = 0, marked = 0;
  for (const p of peers) {
    marked += p.dht.stats.readOnlyMarked;
    if (!p.playOnly) {
      for (const c of p.dht.contacts()) if (ro.has(idToHex(c))) inTables++;
      continue;
    }
    const roles = p.host.roles();
    hosting += roles.primary.length + roles.backup.length;
    playOnlyFrames += p.host.stats.playOnlyFrames;
    forwarded += p.dht.stats.routedForwarded;
  }
  return { inTables, hosting, playOnlyFrames, forwarded, marked };
}

function pose(w: Walker) {
  return { x: w.x, y: Y, z: w.z, yaw: w.heading, pitch: 0 };
}

/** What a peer sent by frame type between two counts, per second, largest first. */
function typesSince(a: Map<string, { frames: number; bytes: number }>, b: Map<string, { frames: number; bytes: number }>, sec: number): Record<string, { kbps: number; fps: number }> {
  const rows = [...b].map(([t, c]) => ({ t, kbps: (c.bytes - (a.get(t)?.bytes ?? 0)) / 1000 / sec, fps: (c.frames - (a.get(t)?.frames ?? 0)) / sec }));
  rows.sort((x, y) => y.kbps - x.kbps);
  return Object.fromEntries(rows.filter((r) => r.fps > 0).map((r) => [r.t, { kbps: Math.round(r.kbps * 10) / 10, fps: Math.round(r.fps * 10) / 10 }]));
}

function parseRegion(name: string): RegionCoord {
  const [rx, rz] = name.split(',').map(Number) as [number, number];
  return { rx, rz };
}
