// Region hosting for one DHT node: the composition root of src/host's server side. It
// routes hosting frames to the regions they name, keeps host-set views (lookups), runs
// the backups' watchdog, reloads the host store on start, and exposes `stats`.
//
//   const wires = new HostWires(new AppChannels(dht), clock);
//   const host = new HostingService({ dht, wires, clock, ticker, store, world });
//   await host.start(); ... host.stop();
import * as v from 'valibot';
import { every, type Clock } from '../core/clock';
import { guardKeys, type KeyGuard } from '../core/key-ids';
import { idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { LatencySamples } from '../core/latency-samples';
import type { Signer, Verifier } from '../core/signer';
import type { Ticker } from '../core/ticker';
import type { Dht } from '../dht/dht';
import { closedForFlood, closedOnPurpose } from '../net/close-reasons';
import { StallGuard } from './stall-guard';
import type { HostStore, StoredRegion } from '../store/host-store';
import { certPrevSchema } from '../region/epoch-cert';
import { MAX_GRANTED } from './election';
import { CertChecker } from '../region/cert-checker';
import type { PlayerToHost } from '../region/subscription-messages';
import { HOST_DEFAULTS, newHostStats, type CommitLatency, type HostOptions, type HostStats } from './host-options';
import type { HostWires, ReplicaFrame } from './host-wires';
import { answering } from '../core/answering';
import { BeatRound } from './beat-round';
import { HostedRegion } from './hosted-region';
import { HostPins } from './host-pins';
import { IdleUnloader, SWEEP_MS } from './idle-unload';
import { PlayerPasses } from './player-passes';
import type { RegionContext } from './region-context';
import { regionName, RegionKeys, type KeyHash, type RegionCoord } from '../region/region-key';
import { decodeEntries, obeysWorldRules, RegionState, tryDecodeEntries } from '../region/region-state';
import { getLocation } from '../region/region-records';

export type HostDht = Pick<Dht, 'selfId' | 'findNode' | 'put' | 'get' | 'connect' | 'reach' | 'unpin' | 'suspectRoute' | 'suspect' | 'ping' | 'events' | 'linkInfo' | 'linked' | 'closestContacts' | 'nearView' | 'idWorkBits' | 'hostsNothing' | 'transport'>;

export interface HostingServiceArgs {
  dht: HostDht;
  /** To players and to other hosts (host-wires.ts); the player side reads `wires.players` too. */
  wires: HostWires;
  clock: Clock;
  /** The 20 Hz tick source (a Web Worker's timer in a tab: hidden tabs throttle timers). */
  ticker: Ticker;
  /** Where hosted regions persist; null keeps them in memory only. */
  store: HostStore | null;
  world: string;
  /** How region and record keys are hashed (WebCrypto when absent; the simulator's is synchronous). */
  keyHash?: KeyHash;
  /** This node's key: it signs the grants that certify epochs (a tab: its identity). */
  signer: Signer;
  /** Checks other hosts' grant signatures (a tab: webCryptoVerifier). */
  verify: Verifier;
  options?: Partial<HostOptions>;
  /** Test hook: every edit a primary orders. */
  onAccept?: (region: string, epoch: number, primaryHex: string) => void;
  /** Test hook: every time a primary confirms edits (virtual time `at`). */
  onConfirm?: (region: string, epoch: number, primaryHex: string, at: number) => void;
  /** Diagnostics: claims, grants, refusals, role changes. */
  trace?: (region: string, what: string) => void;
}

type HostBound = ReplicaFrame | PlayerToHost;

/** Whose pins the links this host keeps are (dht/link-pins.ts): the player's are its region client's. */
const PIN_OWNER = 'host';
/** Frames that may make a node remember a region it did not know. */
const CREATING = new Set<HostBound['t']>(['SUBSCRIBE', 'CLAIM', 'REPLICATE', 'SYNC', 'HEARTBEAT', 'HANDOFF']);

/** Most frames held while the store loads (hosting-service.ts start). */
export const MAX_EARLY_FRAMES = 1024;
/** Most regions one node keeps (hosted or remembered). */
const MAX_REGIONS = 2048;
/** Host set views (lookups) are reused for this long. */
export const HOST_SET_CACHE_MS = 2000;

export class HostingService {
  readonly stats: HostStats = newHostStats();
  /** As primary, per batch from ordering: own store write done, first backup ack, commit. */
  readonly latency: CommitLatency = { store: new LatencySamples(), ack: new LatencySamples(), commit: new LatencySamples(), confirm: new LatencySamples() };
  readonly opts: HostOptions;
  readonly keys: RegionKeys;
  private readonly regions = new Map<string, Promise<HostedRegion>>();
  private readonly known = new Map<string, HostedRegion>();
  private readonly views = new Map<string, { at: number; hosts: Promise<NodeId[]> }>();
  /** Nodes whose link closed and has not reopened (hex -> when). */
  private readonly closed = new Map<string, number>();
  private readonly stallGuard: StallGuard;
  /** Idle regions unloaded, pinned links released (idle-unload.ts). */
  private readonly idle: IdleUnloader<HostedRegion>;
  /** The links this host pins, by rank (host-pins.ts). */
  private readonly pins: HostPins;
  private readonly ctx: RegionContext;
  private readonly beatRound = new BeatRound();
  /** Which player each editing node is (player-passes.ts): shared by every region hosted here. */
  readonly passes: PlayerPasses;
  private stops: (() => void)[] = [];
  private running = false;
  /**
   * Frames that came before start() had loaded the store (held, at most MAX_EARLY_FRAMES,
   * then answered in order): a grant must not be given from an empty state, and a frame
   * dropped then (a claim naming us, our primary's SYNC) cost a resend or a failover.
   * undefined: frames are answered as they come (running) or dropped (stopped).
   */
  private early: { from: NodeId; fromHex: string; msg: ReplicaFrame | PlayerToHost }[] | undefined = [];

  constructor(private readonly args: HostingServiceArgs) {
    this.opts = { ...HOST_DEFAULTS, ...args.options };
    this.stallGuard = new StallGuard({ stallMs: this.opts.failoverMs / 2, settleMs: 2 * this.opts.heartbeatMs });
    args.wires.replicas.events.on('frame', ({ from, fromHex, msg }) => this.take(from, fromHex, msg));
    args.wires.players.toHost.on('frame', ({ from, fromHex, msg }) => this.take(from, fromHex, msg));
    this.keys = new RegionKeys(args.world, args.keyHash);
    this.pins = new HostPins({ connect: (id) => void args.dht.connect(id, PIN_OWNER).catch(() => {}), unpin: (id) => args.dht.unpin(id, PIN_OWNER) }, this.opts.maxHostPins);
    this.idle = new IdleUnloader<HostedRegion>({
      clock: args.clock, pins: this.pins, stats: this.stats, known: () => this.known.values(),
      current: (r) => this.running && this.known.get(r.name) === r,
      forget: (r) => {
        this.known.delete(r.name);
        this.regions.delete(r.name);
      },
    });
    const certs = new CertChecker(args.verify, args.dht.nearView, { idWorkBits: args.dht.idWorkBits });
    const selfHex = idToHex(args.dht.selfId);
    this.passes = new PlayerPasses(args.verify, args.clock, this.stats, this.opts.passes);
    this.ctx = {
      selfId: args.dht.selfId,
      selfHex,
      opts: this.opts,
      clock: args.clock,
      ticker: args.ticker,
      beatRound: this.beatRound,
      wires: args.wires,
      store: args.store,
      dht: { put: (...a) => args.dht.put(...a), get: (...a) => args.dht.get(...a), suspectRoute: (id) => args.dht.suspectRoute(id), suspect: (id) => args.dht.suspect(id) },
      // Pinned as the host's, so the sweep leaves our player's pins alone.
      pin: (id, rank) => this.pins.want(id, rank),
      stats: this.stats,
      latency: this.latency,
      signer: args.signer,
      certs,
      records: { certs, verify: args.verify, hash: this.keys.hash },
      passes: this.passes,
      keyHash: this.keys.hash,
      hostSet: (key, fresh) => this.hostSet(key, fresh),
      linked: (hex) => args.dht.linked(hex),
      linkClosed: (hex) => this.closed.has(hex),
      transport: (hex) => args.dht.transport?.(hex),
      reach: (id) => args.dht.reach(id),
      settled: () => this.stallGuard.settled(args.clock.now()),
      tableNear: (key, n) => sortByDistance([args.dht.selfId, ...args.dht.closestContacts(key, n)], (x) => x, key).slice(0, n),
      // A node that hosts nothing (read-only, or `nh`: dht/messages.ts) answers pings but never
      // grants a claim nor acks a replica: taken into a host set it only makes the set smaller
      // (a set of 3 with one such node needs both others for every claim), and it is sent
      // every beat and SYNC for nothing. Its PONG says so, so an answer from it counts as none.
      answering: (ids, waitMs) =>
        answering(args.clock, (id) => args.dht.ping(id), ids.filter((id) => !args.dht.hostsNothing(idToHex(id))), waitMs).then((got) => {
          for (const hex of got) if (args.dht.hostsNothing(hex)) got.delete(hex);
          return got;
        }),
      // Nor is it ever a spare host, however near.
      linkedNear: (key, n, exclude) => sortByDistance(args.dht.linkInfo().filter((l) => !exclude.has(l.hex) && !l.readOnly && !args.dht.hostsNothing(l.hex)).map((l) => l.id), (x) => x, key).slice(0, n),
      ...(args.onAccept ? { onAccept: args.onAccept } : {}),
      ...(args.onConfirm ? { onConfirm: args.onConfirm } : {}),
      ...(args.trace ? { trace: args.trace } : {}),
    };
  }

  get selfHex(): string {
    return this.ctx.selfHex;
  }

  /** Reloads stored regions and begins answering; stored regions are re-claimed by whoever is closest. */
  private take(from: NodeId, fromHex: string, msg: ReplicaFrame | PlayerToHost): void {
    if (this.early) {
      if (this.early.length < MAX_EARLY_FRAMES) this.early.push({ from, fromHex, msg });
      else this.stats.earlyDropped++;
      return;
    }
    if (this.running) this.onFrame(from, fromHex, msg);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    // Before any region's beat source: a tab's ticker runs sources of one rate in the order they started.
    this.stops.push(this.beatRound.start(this.args.ticker, this.opts.heartbeatMs));
    this.early ??= [];
    // The store loads before any frame is answered: a grant given from an empty state would
    // forget the epochs this node promised before it restarted (two primaries of one epoch).
    const stored = this.args.store && !this.opts.playOnly ? await this.args.store.loadAll().catch(() => []) : [];
    for (const s of stored) {
      if (!this.running) return;
      const r = await this.region({ rx: s.rx, rz: s.rz }, false);
      if (!restoreStored(r, s)) continue;
      // Rejoin: the closest host of a stored region claims it again (a no-op if a live
      // primary refuses; that primary then hands it over or adds us as a backup).
      const t = this.args.clock.setTimeout(() => void this.rejoin(r), this.opts.heartbeatMs + this.opts.random() * this.opts.failoverMs);
      this.stops.push(() => this.args.clock.clearTimeout(t));
    }
    if (!this.running) return;
    const early = this.early ?? [];
    this.early = undefined;
    for (const f of early) this.onFrame(f.from, f.fromHex, f.msg);
    // On the ticker (a tab's ticks of one instant share one task: worker-ticker.ts).
    this.stops.push(this.args.ticker.start(1000 / this.opts.watchMs, () => this.watch()));
    this.stops.push(every(this.args.clock, SWEEP_MS, () => this.idle.sweep()));
    this.stops.push(guardKeys(this.keyGuard));
    this.stops.push(
      this.args.dht.events.on('link-close', ({ id, reason, readOnly }) => {
        // A play-only peer's link (a subscriber's), or one that hosts nothing, says nothing of any host set.
        if (readOnly || this.args.dht.hostsNothing(idToHex(id))) return;
        const hex = idToHex(id);
        // A link let go by a link budget (ours or the peer's) is no death: the node answers
        // by other routes. Taking it for one made backups fail over with nobody killed, and
        // primaries move to new sets, under link churn (docs/HOSTING.md "Link closes").
        // Closed for flooding is no death either: in a crowd it is honest traffic (the MOVEs of
        // every player converge on the region's primary, and its nearest neighbours, often its
        // backups, forward most of them). Taken for a death, a backup claimed at once and the
        // primary moved to a new host set with nobody killed (docs/HOSTING.md "Crowds").
        if (closedOnPurpose(reason) || closedForFlood(reason)) return this.checkRetired(id, hex);
        this.closed.set(hex, this.args.clock.now());
        if (this.closed.size > 256) this.closed.delete(this.closed.keys().next().value!);
        for (const r of this.known.values()) {
          if (r.role === 'backup' && r.primaryHex === hex) r.watch(true);
          if (r.duty && r.hosts.some((h) => idToHex(h) === hex)) this.soon(r);
        }
      }),
    );
    this.stops.push(this.args.dht.events.on('link-open', ({ id, readOnly }) => {
      // A play-only peer's link: no host to recheck a host set for (each recheck may cost a
      // lookup; 60 hosting peers / 120 players: 8% of the simulation's CPU).
      if (readOnly || this.args.dht.hostsNothing(idToHex(id))) return;
      this.closed.delete(idToHex(id));
      for (const r of this.known.values()) if (r.duty) this.soon(r);
    }));
  }

  /**
   * Our link to a primary we follow was let go on purpose: it should still answer by another
   * route. A ping says so within failoverMs / 2; no answer is taken as its death at once,
   * unless its frames reached us since the close: a primary that let go of every link it
   * held loses the ping or its answer until it links again, while its beats already come by
   * new routes. Taken for a death, its backup claimed with nobody gone (link-retire.test.ts).
   */
  private checkRetired(id: NodeId, hex: string): void {
    if (![...this.known.values()].some((r) => r.role === 'backup' && r.primaryHex === hex)) return;
    const closedAt = this.args.clock.now();
    void this.ctx.answering([id], this.opts.failoverMs / 2).then((got) => {
      if (got.has(hex) || !this.running) return;
      for (const r of this.known.values()) if (r.role === 'backup' && r.primaryHex === hex && r.primaryHeardAt <= closedAt) r.watch(true);
    });
  }

  stop(): void {
    this.early = undefined;
    if (!this.running) return;
    this.running = false;
    for (const s of this.stops) s();
    this.stops = [];
    for (const r of this.known.values()) r.stop();
  }

  /** The keys of the host sets of the regions we hold stay remembered, however many minted ids an attacker cycles through the key memory (core/key-ids.ts KEYS_GUARDED). */
  private readonly keyGuard: KeyGuard = {
    needsKey: (hex) => {
      for (const r of this.known.values()) for (const h of r.hosts) if (idToHex(h) === hex) return true;
      return false;
    },
  };

  /** Regions this node is primary of / a backup of. */
  roles(): { primary: string[]; backup: string[] } {
    const primary: string[] = [], backup: string[] = [];
    for (const r of this.known.values()) {
      if (r.role === 'primary') primary.push(r.name);
      else if (r.role === 'backup') backup.push(r.name);
    }
    return { primary, backup };
  }

  /** The region's hosting state here, if this node knows the region. */
  regionState(coord: RegionCoord): HostedRegion | undefined {
    return this.known.get(regionName(coord));
  }

  /** Every region this node knows (the items wiring runs beside those it hosts: agree/host-items.ts). */
  knownRegions(): HostedRegion[] {
    return [...this.known.values()];
  }

  /** The `replicas` closest live nodes to key, self included when among them, closest first. */
  hostSet(key: NodeId, fresh: boolean): Promise<NodeId[]> {
    const hex = idToHex(key);
    const now = this.args.clock.now();
    const held = this.views.get(hex);
    if (held && (!fresh || now - held.at < 200) && now - held.at < HOST_SET_CACHE_MS) return held.hosts;
    const hosts = this.args.dht.findNode(key).then((res) =>
      sortByDistance([this.ctx.selfId, ...res.closest.map((c) => c.id).filter((id) => !this.args.dht.hostsNothing(idToHex(id)))], (x) => x, key).slice(0, this.opts.replicas),
    );
    hosts.catch(() => this.views.delete(hex));
    this.views.set(hex, { at: now, hosts });
    if (this.views.size > 1024) this.views.delete(this.views.keys().next().value!);
    return hosts;
  }

  private soon(r: HostedRegion): void {
    const t = this.args.clock.setTimeout(() => void r.duty?.recheck(), 100);
    this.stops.push(() => this.args.clock.clearTimeout(t));
    if (this.stops.length > 256) this.stops = this.stops.slice(-64);
  }

  private async rejoin(r: HostedRegion, round = 0): Promise<void> {
    if (!this.running) return;
    if (round === 0 && r.role === 'idle') {
      const hosts = await this.hostSet(r.key, true).catch(() => []);
      if (hosts[0] && idToHex(hosts[0]) === this.ctx.selfHex && r.role === 'idle') await r.claim();
    }
    // Whoever is primary now (it may have claimed without us, from less state) gets our
    // stored entries; it adopts what it lacks. Repeated: the primary may not exist yet.
    if (!this.running || r.duty) return;
    const primary = r.role === 'backup' && r.primary ? r.primary : (await getLocation(this.args.dht, r.key, this.ctx.records).catch(() => undefined))?.primary;
    if (primary) r.offerTo(primary);
    if (round < 3) {
      const t = this.args.clock.setTimeout(() => void this.rejoin(r, round + 1), 2000 * (round + 1));
      this.stops.push(() => this.args.clock.clearTimeout(t));
    }
  }

  private watch(): void {
    // Not right after a stall of our own: the frames that came meanwhile are read first (stall-guard.ts).
    const stalls = this.stallGuard.stalls;
    const judge = this.stallGuard.check(this.args.clock.now());
    this.stats.ownStalls += this.stallGuard.stalls - stalls;
    // A primary that said it released its epoch is no silence to judge: frames still queued
    // behind our stall cannot take that back (it orders nothing more in that epoch).
    for (const r of this.known.values()) if (judge || r.primaryReleased) r.watch();
  }

  /**
   * The region's state here: remembered, or read back from the store before any frame is
   * answered (a region unloaded, or forgotten: a grant from an empty record would forget
   * the epochs promised). A failed read answers nothing (the next frame tries again).
   */
  private region(coord: RegionCoord, load = true): Promise<HostedRegion> {
    const name = regionName(coord);
    let p = this.regions.get(name);
    if (!p) {
      const store = load ? this.args.store : null;
      p = this.keys.key(coord).then(async (key) => {
        const r = new HostedRegion(this.ctx, coord, key);
        const s = store ? await store.load(coord.rx, coord.rz) : undefined;
        if (s && restoreStored(r, s)) {
          r.reloaded = true;
          this.stats.reloads++;
        }
        if (this.running && this.regions.get(name) === p) this.known.set(name, r);
        return r;
      });
      const mine = p;
      p.catch(() => {
        this.stats.storeFailures++;
        if (this.regions.get(name) === mine) this.regions.delete(name);
      });
      this.regions.set(name, p);
      this.evict();
    }
    return p;
  }

  /** Forgets idle regions with no state when too many are remembered (spam guard). */
  private evict(): void {
    if (this.regions.size <= MAX_REGIONS) return;
    for (const [name, r] of this.known) {
      if (r.role === 'idle' && r.state.size === 0) {
        r.stop();
        this.known.delete(name);
        this.regions.delete(name);
        if (this.regions.size <= MAX_REGIONS) return;
      }
    }
  }

  private onFrame(from: NodeId, fromHex: string, msg: HostBound): void {
    if (!this.running) return;
    if (this.opts.playOnly) {
      // Nobody's lookup names a read-only node as a host: this came from a node that had not
      // heard yet that we are one, or a hostile one.
      this.stats.playOnlyFrames++;
      if (msg.t === 'EDIT') this.args.wires.players.send(from, { t: 'REJECT', rx: msg.rx, rz: msg.rz, r: msg.r, reason: 'not-primary' });
      return;
    }
    if (msg.t === 'PLAYER') return this.passes.offer(from, fromHex, msg);
    // An EDIT (or a SAY) right behind its node's pass waits for the check (a signature: async), so it is
    // judged with the player the pass names, in the order it came.
    if ((msg.t === 'EDIT' || msg.t === 'SAY') && this.passes.holdWhileChecking(fromHex, () => this.onFrame(from, fromHex, msg))) return;
    const name = regionName(msg);
    // A beat saying `unload` creates nothing: its region is being unloaded everywhere; nor one
    // saying `release` (its primary stopped: there is nothing to follow).
    const member = msg.t !== 'HEARTBEAT' || (!msg.unload && !msg.release && msg.hosts.some((h) => idToHex(h) === this.ctx.selfHex));
    // An unloaded region's ABANDON changes its stored election record: read back for it too.
    const creating = (CREATING.has(msg.t) && member) || (msg.t === 'ABANDON' && this.idle.wasUnloaded(name));
    if (!this.regions.has(name) && !creating) {
      if (msg.t === 'EDIT') this.args.wires.players.send(from, { t: 'REJECT', rx: msg.rx, rz: msg.rz, r: msg.r, reason: 'not-primary' });
      else if (msg.t !== 'UNSUBSCRIBE' && msg.t !== 'MOVE' && msg.t !== 'POSITIONS_LOST') this.stats.strayFrames++;
      return;
    }
    if (!this.regions.has(name) && this.regions.size >= MAX_REGIONS) {
      this.stats.strayFrames++;
      return;
    }
    if (!this.regions.has(name)) this.idle.loaded(name);
    this.region(msg).then((r) => r.onFrame(from, fromHex, msg), () => {});
  }
}

/** Restores a stored record into `r` (base, log replayed by stamp, within the world's rules; election record, items); false when its entries do not decode. */
function restoreStored(r: HostedRegion, s: StoredRegion): boolean {
  let entries;
  try {
    entries = decodeEntries(s.entries);
  } catch {
    return false;
  }
  // The log appended since the base, replayed in order (merge keeps each block's newest stamp).
  if (s.log?.length) {
    const state = RegionState.from(entries);
    for (const batch of s.log) state.merge(tryDecodeEntries(batch) ?? []);
    entries = state.all();
  }
  // Our own store is held to the world's rules too: one written before a path was checked
  // (or by hand) must not hand AIR at the floor to our subscribers, backups and successors.
  const fit = entries.filter(obeysWorldRules);
  r.ctx.stats.entriesAgainstRules += entries.length - fit.length;
  entries = fit;
  const accepted = v.safeParse(v.pipe(v.array(certPrevSchema), v.maxLength(MAX_GRANTED)), s.accepted);
  const learnt = v.safeParse(v.object({ promised: v.number(), promisedTo: v.optional(v.string()) }), s.learnt);
  r.restore(entries, s.promised, s.promisedTo ?? '', s.cert, accepted.success ? accepted.output : undefined, learnt.success ? learnt.output : undefined);
  r.storedItems = s.items;
  return true;
}

