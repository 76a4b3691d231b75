// One Kademlia node: the composition of routing table, link set and budget, RPCs,
// lookups, the value store and the overlay router. Dependencies come in (transport,
// clock, random); start()/stop() bound its life; `stats` is a plain counters object.
//
// Contacts are node ids known to be alive. An RPC to a contact we hold a live link to
// goes straight over that link; otherwise it travels as a ROUTED message over existing
// links (greedy XOR forwarding), and its reply comes back along the reverse path. Direct
// links are opened only by the link budget (bucket coverage) or on request (`connect`),
// and their offer/answer travels through the overlay itself: a lookup never dials.
import type { Clock } from '../core/clock';
import { every } from '../core/clock';
import { Emitter } from '../core/emitter';
import { nodeIdOfPublicKey } from '../core/identity';
import { TokenBucket } from '../core/token-bucket';
import { bucketIndex, compareDistance, ID_BITS, idEquals, idToHex, type NodeId } from '../core/node-id';
import type { Link } from '../net/link';
import type { SignalChannel, Transport } from '../net/transport';
import { LINK_LIMIT_DEFAULTS, LinkSet } from './link-set';
import { LINK_BUDGET_DEFAULTS, planLinks } from './link-budget';
import { iterativeLookup, type LookupResult } from './lookup';
import { dhtCodec, MAX_VALUE_TTL_MS, NAMESPACE_LIMITS, type DhtMessage, type Namespace, type Reply, type Request, type ValueRecord } from './messages';
import { OverlayRouter, type Origin } from './overlay-router';
import { checkSigner, type RouteSigner } from './route-auth';
import { RoutingTable, type AddResult, type Contact } from './routing-table';
import { RpcTable, RpcTimeoutError } from './rpc';
import { checkRecord, countRuleReject, type RecordCheck, type RecordPolicy, type RecordRules } from './record-rules';
import { newStats, type DhtStats, type StoreRefusal } from './stats';
import { sameBytes, ValueStore } from './value-store';

/** Every option and its default. */
export const DHT_DEFAULTS = {
  /** Bucket size and replication factor. */
  k: 20,
  /** Parallel queries per lookup. */
  alpha: 3,
  /** Hard cap on live links (DESIGN.md). */
  maxLinks: LINK_BUDGET_DEFAULTS.maxLinks,
  /** Own dials stop here, leaving room for inbound links. */
  softLinks: LINK_BUDGET_DEFAULTS.softLinks,
  /** Links wanted per non-empty bucket. */
  linksPerBucket: LINK_BUDGET_DEFAULTS.linksPerBucket,
  /** RPC reply timeout (direct or routed). */
  rpcTimeoutMs: 4000,
  /** A lookup query unanswered this long no longer holds a parallel slot (lookup.ts). */
  lookupStallMs: 1000,
  /** Consecutive RPC failures before a contact leaves the table. */
  maxFails: 2,
  /** A full bucket's oldest contact heard from within this long is kept without a ping. */
  evictionPingFreshMs: 60_000,
  /** A link silent this long gets a PING. */
  heartbeatMs: 5000,
  /** A link silent this long is closed and its peer dropped from the table. */
  heartbeatTimeoutMs: 15_000,
  /**
   * How often links and contacts are checked against the two limits above. A check that
   * runs only once per heartbeat lets a dead peer outlive the timeout by up to a heartbeat.
   */
  failureCheckMs: 1000,
  /**
   * Contacts without a live link that have been silent long enough get a routed PING,
   * stalest first, at most this many per heartbeatMs; one that does not answer leaves the
   * table. Without it a dead contact we only knew through lookups would stay listed until a
   * lookup happened to ask it. "Long enough" is heartbeatTimeoutMs - rpcTimeoutMs -
   * failureCheckMs, so that the probe's answer (or its timeout) comes by the time the
   * contact has been silent for heartbeatTimeoutMs: a dead one leaves every table within the
   * heartbeat timeout, linked or not (while the stale contacts fit in this budget).
   */
  staleProbesPerHeartbeat: 2,
  /** Link budget check period. */
  maintainMs: 5000,
  /** No redial of a peer for this long after a failed dial or a link it closed. */
  dialBackoffMs: 30_000,
  /** Buckets without a lookup for this long are refreshed. */
  refreshMs: 15 * 60_000,
  /**
   * Empty buckets above our lowest non-empty one are refreshed this often: a node that
   * joined a small network learns of the far halves that filled in since (and greedy
   * routing needs a link in every non-empty bucket).
   */
  emptyRefreshMs: 60_000,
  /**
   * After the join lookup, refresh buckets farther than the closest neighbour: 'all' of
   * them (Kademlia), only those still 'empty' (cheaper), or 'none'. 'probe': each empty
   * bucket gets one FIND_NODE (to the contact closest to a random id in it) instead of a
   * whole lookup: ~1 RPC rather than ~20 per bucket (the simulator's choice); what it
   * misses, the periodic empty-bucket refresh finds.
   */
  joinRefresh: 'all' as 'all' | 'empty' | 'probe' | 'none',
  /** Holders closest to a key (by their own tables) that hand its value to a newcomer. */
  handoverHolders: 2,
  /**
   * Owner rules by namespace (record-rules.ts): each STOREd and each read value is checked
   * by its namespace's rule, whose version orders values. Namespaces left out get the
   * default rule (size cap, version = seq, equal seq replaces, `unruledMaxTtlMs`).
   */
  records: {} as RecordRules,
  /** Longest a holder keeps a value of a namespace without a rule after its last STORE. */
  unruledMaxTtlMs: 3600_000,
  /**
   * A STORE is taken only by a node with fewer than storeNearFactor * k known contacts
   * closer to the key than itself (`storeRefused.notNear`): honest STOREs go to the k
   * closest a lookup found, and the slack absorbs churn and table differences. 0 = off.
   */
  storeNearFactor: 2,
  /**
   * A get collects this many valid values (the local one counts) from the lookup and
   * returns the highest version; fewer when the lookup ends first, or `getWaitRounds`
   * lookup rounds (the time to the first value over its rounds), at most `getWaitMs`,
   * after its first value. Measured on 1,000 simulated nodes (20 ms links): 1 round:
   * +80 ms get p50, 2.0 values; 2 rounds: +130 ms, 2.6 values; unbounded: +150 ms, 3.0.
   */
  getAnswers: 3,
  getWaitRounds: 2,
  getWaitMs: 500,
  /** Default lifetime of a put value. */
  valueTtlMs: 3600_000,
  /** The publisher re-puts its values this often. */
  republishMs: 20 * 60_000,
  /** Holders re-store values they have not seen refreshed for this long. */
  replicateMs: 10 * 60_000,
  /** Value expiry / republish / replicate sweep period. */
  valueSweepMs: 60_000,
  /** Hop limit of routed messages. */
  routeTtl: 32,
  /** Routed message ids remembered for duplicate suppression. */
  dedupSize: 256,
  /**
   * Drop routed messages for us that carry no source signature (`dropped.unsigned`). The
   * browser peer sets it (and passes its identity as `signer`); the simulator's nodes have
   * random ids and no keypairs, so their messages go unsigned and are taken as they come:
   * 10,000 simulated nodes cannot afford a signature per routed message, and the routing
   * is the same either way (route-auth.test.ts runs signed nodes).
   */
  requireSignedRoutes: false,
  /** Per-link limits: undecodable frames, frame and byte rates (link-set.ts). */
  ...LINK_LIMIT_DEFAULTS,
  /** Randomness (refresh targets, link choice, request ids); inject a seeded one to replay. */
  random: Math.random as () => number,
};

export type DhtOptions = typeof DHT_DEFAULTS;

export interface DhtBootstrap {
  /** Peers to dial first (from an invite or the relay's list). */
  peers: NodeId[];
  /** How to reach them before we have any link (the relay). */
  signals: SignalChannel;
}

export interface CreateDhtNodeArgs {
  selfId: NodeId;
  transport: Transport;
  clock: Clock;
  bootstrap?: DhtBootstrap;
  options?: Partial<DhtOptions>;
  /**
   * Signs the routed messages this node originates (an `Identity` whose id is selfId);
   * destinations check the signature (route-auth.ts). Without one they go unsigned.
   */
  signer?: RouteSigner;
}

export interface DhtEvents extends Record<string, unknown> {
  /** An application payload sent to us with `send`. */
  message: { from: NodeId; body: Uint8Array };
  'link-open': { id: NodeId; outbound: boolean };
  'link-close': { id: NodeId; reason: string };
  /** The join finished (bootstrap dialled, own id looked up). */
  ready: { contacts: number };
}

export interface GotValue {
  value: Uint8Array;
  publisher: NodeId;
  /** The wire seq (set by the publisher; not what orders values in a namespace with a rule). */
  seq: number;
  /** The version its namespace rule gave it (the default rule's: seq). */
  version: number;
  /** Remaining lifetime in ms. */
  ttlMs: number;
}

export interface LinkInfo {
  id: NodeId;
  hex: string;
  outbound: boolean;
  pinned: boolean;
  rttMs: number | null;
}

export class JoinError extends Error {
  override readonly name = 'JoinError';
}
export class ValueTooLargeError extends Error {
  override readonly name = 'ValueTooLargeError';
}
export class NoRouteError extends Error {
  override readonly name = 'NoRouteError';
}
/** put() of a value its namespace's rule refuses (no other node would take it either). */
export class RecordRejectedError extends Error {
  override readonly name = 'RecordRejectedError';
  constructor(readonly ns: Namespace, readonly reason: string) {
    super(`${ns} record refused by its rule: ${reason}`);
  }
}

/** A request without its id (the RPC table assigns one). */
type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'r'> : never) : never;

interface Published {
  ns: Namespace;
  key: NodeId;
  value: Uint8Array;
  seq: number;
  expiresAt: number;
  republishAt: number;
}

/** Dropped contacts remembered for partition healing (see `probeDormant`). */
const DORMANT = 16;

export function createDhtNode(args: CreateDhtNodeArgs): DhtNode {
  return new DhtNode(args);
}

export class DhtNode {
  readonly selfId: NodeId;
  readonly selfHex: string;
  readonly opts: DhtOptions;
  readonly stats: DhtStats = newStats();
  readonly events = new Emitter<DhtEvents>();
  readonly table: RoutingTable;
  readonly store = new ValueStore();
  readonly links: LinkSet;
  /** The overlay SignalChannel: signals travel as routed SIGNAL messages. */
  readonly overlaySignals: SignalChannel;

  private readonly transport: Transport;
  private readonly clock: Clock;
  private readonly bootstrap: DhtBootstrap | undefined;
  private readonly signer: RouteSigner | undefined;
  private readonly rpc: RpcTable;
  private readonly router: OverlayRouter;
  private readonly pendingDials = new Set<string>();
  private readonly backoff = new Map<string, number>();
  private readonly published = new Map<string, Published>();
  /** Contacts dropped after failures, probed through the relay now and then (partition healing). */
  private dormant: NodeId[] = [];
  private stops: (() => void)[] = [];
  private running = false;
  private maintainScheduled = false;

  constructor(args: CreateDhtNodeArgs) {
    this.selfId = args.selfId;
    this.selfHex = idToHex(args.selfId);
    this.transport = args.transport;
    this.clock = args.clock;
    this.bootstrap = args.bootstrap;
    this.signer = args.signer;
    if (this.signer) checkSigner(this.signer);
    this.opts = { ...DHT_DEFAULTS, ...args.options };
    this.staleProbeBudget = new TokenBucket((this.opts.staleProbesPerHeartbeat * 1000) / this.opts.heartbeatMs, this.opts.staleProbesPerHeartbeat, this.clock.now());
    this.table = new RoutingTable(this.selfId, this.opts.k);
    this.rpc = new RpcTable(this.clock, this.opts.random);
    this.links = new LinkSet(this.selfId, this.clock, this.stats, this.opts, {
      onMessage: (msg, pl) => {
        this.noteAlive(pl.id, pl.hex);
        this.handle(msg, { id: pl.id, hex: pl.hex, via: [] });
      },
      onRoute: (env, pl) => {
        this.noteAlive(pl.id, pl.hex);
        this.router.onRoute(env, pl);
      },
      onOpen: (pl) => {
        this.noteAlive(pl.id, pl.hex);
        this.events.emit('link-open', { id: pl.id, outbound: pl.outbound });
      },
      onClose: (pl, reason, byUs) => {
        if (!byUs) this.backoff.set(pl.hex, this.clock.now() + this.opts.dialBackoffMs);
        this.events.emit('link-close', { id: pl.id, reason });
        this.scheduleMaintain();
      },
    });
    this.router = new OverlayRouter(
      this.selfId,
      this.selfHex,
      this.links,
      this.stats,
      this.opts,
      (inner, from) => {
        // A signed message is delivered after an await: perhaps after stop().
        if (!this.running) return;
        this.noteAlive(from.id, from.hex);
        this.handle(inner, from);
      },
      { signer: this.signer, requireSigned: this.opts.requireSignedRoutes },
    );
    this.overlaySignals = {
      sendSignal: (to, blob) => void this.sendTo(to, idToHex(to), { t: 'SIGNAL', blob }),
    };
  }

  get isRunning(): boolean {
    return this.running;
  }

  // ---- lifecycle -------------------------------------------------------------------

  /** Dials the bootstrap peers, looks up our own id, refreshes far buckets; resolves when joined. */
  async start(): Promise<void> {
    if (this.running) return;
    // A signer for another id would get every message we send dropped as forged.
    if (this.signer && !idEquals(await nodeIdOfPublicKey(this.signer.publicKey), this.selfId)) {
      throw new Error('the route signer\'s public key does not hash to selfId');
    }
    if (this.running) return;
    this.running = true;
    this.stops.push(this.transport.events.on('link', (link) => this.attachLink(link, false)));
    const o = this.opts;
    this.stops.push(every(this.clock, this.checkMs, () => this.heartbeat()));
    this.stops.push(every(this.clock, o.maintainMs, () => this.maintain()));
    this.stops.push(every(this.clock, Math.max(1000, o.refreshMs / 4), () => this.refresh(false)));
    this.stops.push(
      every(this.clock, o.emptyRefreshMs, () => {
        this.probeDormant();
        void this.refresh(true, true);
      }),
    );
    this.stops.push(every(this.clock, o.valueSweepMs, () => this.sweepValues()));
    if (this.bootstrap && this.bootstrap.peers.length > 0) {
      const signals = this.bootstrap.signals;
      const dials = this.bootstrap.peers.map((id) => this.transport.dial(id, signals).then((l) => this.attachLink(l, true)));
      const ok = (await Promise.allSettled(dials)).filter((r) => r.status === 'fulfilled' && r.value).length;
      this.stats.dials += dials.length;
      if (ok === 0) {
        this.stop();
        throw new JoinError('no bootstrap peer could be reached');
      }
    }
    let joinFailures = 0;
    if (this.table.size > 0) {
      joinFailures = (await this.lookup(this.selfId)).failures;
      if (this.links.size === 0) {
        this.stop();
        throw new JoinError('bootstrap links closed before the join finished');
      }
      if (o.joinRefresh === 'probe') await this.probeEmptyBuckets();
      else if (o.joinRefresh !== 'none') await this.refresh(true, o.joinRefresh === 'empty');
    }
    this.maintain();
    // Look our own id up once more when our links are built, if some of the join's
    // queries failed: they may have been to our closest neighbours, while nothing routed
    // to us yet.
    if (joinFailures > 0) {
      const t = this.clock.setTimeout(() => void this.lookup(this.selfId).catch(() => {}), o.maintainMs * 2);
      this.stops.push(() => this.clock.clearTimeout(t));
    }
    this.events.emit('ready', { contacts: this.table.size });
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    for (const s of this.stops) s();
    this.stops = [];
    this.rpc.closeAll();
    this.links.closeAll('stopped');
  }

  // ---- public API ------------------------------------------------------------------

  /** Iterative FIND_NODE: the k closest live nodes to target. */
  findNode(target: NodeId): Promise<LookupResult> {
    return this.lookup(target);
  }

  /** Stores value under (ns, key) on the k nodes closest to key. Resolves with how many took it. */
  async put(ns: Namespace, key: NodeId, value: Uint8Array, opts: { ttlMs?: number; seq?: number } = {}): Promise<{ stored: number }> {
    if (value.length > NAMESPACE_LIMITS[ns].maxValueBytes) {
      throw new ValueTooLargeError(`${ns} value of ${value.length} bytes exceeds ${NAMESPACE_LIMITS[ns].maxValueBytes}`);
    }
    const now = this.clock.now();
    const pk = `${ns}:${idToHex(key)}`;
    const prev = this.published.get(pk)?.seq ?? this.store.get(ns, idToHex(key), now)?.seq ?? 0;
    const seq = opts.seq ?? Math.min(0xffffffff, prev + 1);
    const ttl = opts.ttlMs ?? this.opts.valueTtlMs;
    const chk = await checkRecord(this.opts.records, ns, key, value, this.selfId, seq);
    if (!chk.ok) throw new RecordRejectedError(ns, chk.reason);
    this.published.set(pk, { ns, key, value, seq, expiresAt: now + ttl, republishAt: now + this.opts.republishMs });
    return this.storeAt(ns, key, { v: value, pub: this.selfId, seq, ttl });
  }

  /**
   * Finds the value under (ns, key), or undefined: the highest version among the valid
   * values of up to `getAnswers` holders (our own copy counts as one). Every value read
   * is checked by its namespace's rule; one that fails is dropped and counted
   * (`valuesInvalid`), never returned.
   */
  async get(ns: Namespace, key: NodeId): Promise<GotValue | undefined> {
    const now = this.clock.now();
    const held = this.store.get(ns, idToHex(key), now);
    const check = this.valueChecker(ns, key);
    // Our own copy is checked again too: a rule may depend on time (expiry, certificates).
    let best: { rec: ValueRecord; version: number } | undefined;
    if (held) {
      const rec = ValueStore.toRecord(held, now);
      const chk = await check(rec);
      if (chk.ok) best = { rec, version: chk.version };
    }
    const wanted = best ? this.opts.getAnswers - 1 : this.opts.getAnswers;
    if (wanted > 0) for (const x of (await this.lookup(key, ns, wanted, check)).values) if (!best || x.version > best.version) best = x;
    if (!best) return undefined;
    const r = best.rec;
    return { value: r.v, publisher: r.pub, seq: r.seq, version: best.version, ttlMs: r.ttl };
  }

  /** Sends an application payload to any node id, routed over live links. False if no first hop. */
  send(to: NodeId, body: Uint8Array): boolean {
    if (idEquals(to, this.selfId)) {
      this.events.emit('message', { from: this.selfId, body });
      return true;
    }
    return this.sendTo(to, idToHex(to), { t: 'DATA', body });
  }

  /** Opens (or pins) a direct link to a peer one talks to often; pinned links survive budget cuts. */
  async connect(id: NodeId): Promise<void> {
    const hex = idToHex(id);
    const have = this.links.get(hex);
    if (have) {
      have.pinned = true;
      return;
    }
    const link = await this.transport.dial(id, this.overlaySignals);
    this.stats.dials++;
    this.attachLink(link, true, true);
  }

  /** Lets a pinned link be closed by the budget again. */
  unpin(id: NodeId): void {
    const pl = this.links.get(idToHex(id));
    if (pl) pl.pinned = false;
  }

  linkInfo(): LinkInfo[] {
    return [...this.links.map.values()].map((pl) => ({ id: pl.id, hex: pl.hex, outbound: pl.outbound, pinned: pl.pinned, rttMs: pl.rttMs }));
  }

  // ---- links -----------------------------------------------------------------------

  private attachLink(link: Link, outbound: boolean, pinned = false): boolean {
    if (!this.running) {
      link.close('stopped');
      return false;
    }
    return this.links.attach(link, outbound, pinned);
  }

  private busy = (hex: string): boolean => this.pendingDials.has(hex) || (this.backoff.get(hex) ?? 0) > this.clock.now();

  private scheduleMaintain(): void {
    if (this.maintainScheduled || !this.running) return;
    this.maintainScheduled = true;
    this.clock.setTimeout(() => {
      this.maintainScheduled = false;
      this.maintain();
    }, 100);
  }

  private maintain(): void {
    if (!this.running) return;
    const plan = planLinks(this.table, this.links.map, this.opts, this.busy, this.opts.random, this.pendingDials.size);
    for (const hex of plan.close) this.links.retire(hex, 'budget');
    for (const c of plan.dial) this.dial(c);
    const now = this.clock.now();
    if (this.backoff.size > 256) for (const [h, t] of this.backoff) if (t <= now) this.backoff.delete(h);
  }

  private dial(c: Contact): void {
    this.pendingDials.add(c.hex);
    this.stats.dials++;
    this.transport.dial(c.id, this.dialSignals()).then(
      (link) => {
        this.pendingDials.delete(c.hex);
        this.attachLink(link, true);
      },
      () => {
        this.pendingDials.delete(c.hex);
        this.stats.dialFailures++;
        this.backoff.set(c.hex, this.clock.now() + this.opts.dialBackoffMs);
      },
    );
  }

  /**
   * Where a budget dial's offer goes: through the overlay, unless we hold no link at all
   * (our last peers closed theirs for budget, as a bootstrap does to a newcomer it admitted
   * once its buckets fill): then no offer could leave, and nothing could reach us until a
   * dormant probe, so we dial through the relay, as the join did.
   */
  private dialSignals(): SignalChannel {
    return this.links.size === 0 && this.bootstrap ? this.bootstrap.signals : this.overlaySignals;
  }

  private rememberDormant(id: NodeId): void {
    this.dormant.push(id);
    if (this.dormant.length > DORMANT) this.dormant.shift();
  }

  /**
   * A partition makes each side drop the other from its tables, and the overlay then has
   * no path across: after it heals, one dial through the relay to a dropped contact joins
   * the halves again (the link re-adds it, then empty-bucket refresh does the rest).
   */
  private probeDormant(): void {
    const relay = this.bootstrap?.signals;
    if (!relay || this.dormant.length === 0) return;
    const id = this.dormant.splice(Math.floor(this.opts.random() * this.dormant.length), 1)[0]!;
    const hex = idToHex(id);
    if (this.table.has(hex) || this.links.get(hex) || this.pendingDials.has(hex)) return;
    this.pendingDials.add(hex);
    this.stats.dials++;
    this.transport.dial(id, relay).then(
      (link) => {
        this.pendingDials.delete(hex);
        this.attachLink(link, true);
      },
      () => {
        this.pendingDials.delete(hex);
        this.stats.dialFailures++;
      },
    );
  }

  private heartbeat(): void {
    const now = this.clock.now();
    // A link that would pass the timeout before the next check is closed now: a dead peer
    // is gone within heartbeatTimeoutMs of its last frame, not up to a check later.
    const expired = this.opts.heartbeatTimeoutMs - this.checkMs;
    for (const pl of [...this.links.map.values()]) {
      const idle = now - pl.lastRx;
      if (idle > expired) {
        this.stats.heartbeatTimeouts++;
        this.links.close(pl.hex, 'heartbeat timeout');
        this.table.remove(pl.hex);
        this.rememberDormant(pl.id);
      } else if (idle >= this.opts.heartbeatMs && !pl.pinging && this.selfHex < pl.hex) {
        // Only the lower id pings an idle link; the PONG refreshes both ends.
        pl.pinging = true;
        const t0 = now;
        this.call(pl.id, pl.hex, { t: 'PING' }).then(
          () => ((pl.rttMs = this.clock.now() - t0), (pl.pinging = false)),
          () => (pl.pinging = false),
        );
      }
    }
    this.probeStaleContacts(now);
  }

  private readonly probing = new Set<string>();
  /** Stale-contact probes: staleProbesPerHeartbeat per heartbeatMs. */
  private readonly staleProbeBudget: TokenBucket;

  /** Period of the failure checks (links and contacts): at most a heartbeat. */
  private get checkMs(): number {
    return Math.min(this.opts.failureCheckMs, this.opts.heartbeatMs);
  }

  /** Silence after which a contact without a link is probed (see staleProbesPerHeartbeat). */
  get staleAfterMs(): number {
    const o = this.opts;
    return Math.max(o.heartbeatMs, o.heartbeatTimeoutMs - o.rpcTimeoutMs - this.checkMs);
  }

  private probeStaleContacts(now: number): void {
    if (this.opts.staleProbesPerHeartbeat <= 0) return;
    const after = this.staleAfterMs;
    const stale: Contact[] = [];
    for (const b of this.table.nonEmptyBuckets()) {
      for (const c of this.table.bucket(b)) {
        if (now - c.lastSeen >= after && !this.links.get(c.hex) && !this.probing.has(c.hex)) stale.push(c);
      }
    }
    stale.sort((a, b) => a.lastSeen - b.lastSeen);
    let budget = 0;
    while (budget < stale.length && this.staleProbeBudget.take(1, now)) budget++;
    for (const c of stale.slice(0, budget)) {
      this.probing.add(c.hex);
      this.call(c.id, c.hex, { t: 'PING' }).then(
        () => this.probing.delete(c.hex),
        () => {
          this.probing.delete(c.hex);
          // Silent past the heartbeat timeout and no answer now: gone (call() counted a failure).
          if (this.running && this.table.remove(c.hex)) this.rememberDormant(c.id);
        },
      );
    }
  }

  // ---- routing table upkeep ----------------------------------------------------------

  /** Any message from id proves it alive. */
  private noteAlive(id: NodeId, hex: string): void {
    const res: AddResult = this.table.add(id, this.clock.now(), hex);
    if (res.status === 'added') this.onNewContact(res.contact);
    else if (res.status === 'full' && !res.pinging) {
      const oldest = res.oldest;
      // Heard from lately: alive as far as we can tell, no ping needed (the newcomer waits
      // in the replacement cache).
      if (this.clock.now() - oldest.lastSeen < this.opts.evictionPingFreshMs) {
        this.table.pingResult(oldest.hex, true, oldest.lastSeen);
        return;
      }
      this.call(oldest.id, oldest.hex, { t: 'PING' }).then(
        () => this.table.pingResult(oldest.hex, true, this.clock.now()),
        () => {
          const promoted = this.table.pingResult(oldest.hex, false, this.clock.now());
          if (promoted) this.onNewContact(promoted);
        },
      );
    }
  }

  /**
   * Adds a contact named by another node (not heard from ourselves): dated one heartbeat
   * timeout back, so it is first in line for a stale-contact probe unless it speaks up.
   */
  private learn(id: NodeId): void {
    if (this.table.has(idToHex(id))) return;
    const res = this.table.add(id, this.clock.now() - this.opts.heartbeatTimeoutMs);
    if (res.status === 'added') this.onNewContact(res.contact);
  }

  private onNewContact(c: Contact): void {
    let linked = false;
    const b = bucketIndex(this.selfId, c.id);
    for (const pl of this.links.map.values()) if (pl.bucket === b) linked = true;
    if (!linked) this.scheduleMaintain();
    // Re-replication: hand our values to a newcomer that is among their k closest.
    const now = this.clock.now();
    for (const h of this.store.values(now)) {
      // The cheap test first: our rank needs only the first few closest.
      if (!this.amongFirstHolders(h.key, this.table.closest(h.key, this.opts.handoverHolders + 1), c)) continue;
      const closest = this.table.closest(h.key, this.opts.k);
      if (closest.length >= this.opts.k && !closest.includes(c)) continue;
      this.stats.replications++;
      this.call(c.id, c.hex, { t: 'STORE', ns: h.ns, key: h.key, rec: ValueStore.toRecord(h, now) }).catch(() => {});
    }
  }

  /**
   * Whether we are one of the `handoverHolders` holders closest to key (by our table,
   * newcomer left out). All k holders learn of a newcomer, and each sending it the value
   * made one join cost k STOREs per value (the Kademlia paper's note: only the closest
   * holders need to); a dead holder still listed only adds one more sender.
   */
  private amongFirstHolders(key: NodeId, closest: readonly Contact[], newcomer: Contact): boolean {
    let closer = 0;
    for (const x of closest) {
      if (x !== newcomer && compareDistance(x.id, this.selfId, key) < 0 && ++closer >= this.opts.handoverHolders) return false;
    }
    return true;
  }

  /** Looks up random ids in buckets not looked into for refreshMs (all far buckets on join). */
  private async refresh(joining: boolean, onlyEmpty = false): Promise<void> {
    if (!this.running) return;
    await Promise.all(this.bucketsToRefresh(joining, onlyEmpty).map((b) => this.lookup(this.randomIdInBucket(b)).catch(() => {})));
  }

  private bucketsToRefresh(joining: boolean, onlyEmpty: boolean): number[] {
    const now = this.clock.now();
    const nonEmpty = this.table.nonEmptyBuckets();
    if (nonEmpty.length === 0) return [];
    const lowest = nonEmpty[0]!;
    const highest = onlyEmpty ? ID_BITS - 1 : nonEmpty[nonEmpty.length - 1]!;
    const out: number[] = [];
    let below = 0; // contacts in buckets under b
    for (let b = lowest; b <= highest; b++) {
      const size = this.table.bucket(b).length;
      const skip =
        (joining && b === lowest) ||
        (!joining && now - this.table.touchedAt(b) < this.opts.refreshMs) ||
        // An empty bucket is worth a lookup only when the buckets under it hold a few
        // contacts: each bucket spans as much id space as all those under it together.
        (onlyEmpty && (size > 0 || below < 3));
      below += size;
      if (!skip) out.push(b);
    }
    return out;
  }

  /** joinRefresh 'probe': one FIND_NODE per empty far bucket, its answer added to the table. */
  private async probeEmptyBuckets(): Promise<void> {
    const jobs: Promise<unknown>[] = [];
    for (const b of this.bucketsToRefresh(true, true)) {
      const target = this.randomIdInBucket(b);
      const to = this.table.closest(target, 1)[0];
      if (!to) continue;
      this.table.touch(b, this.clock.now());
      const ask = this.call(to.id, to.hex, { t: 'FIND_NODE', target }).then((m) => {
        if (m.t !== 'NODES') return;
        const found = m.nodes.filter((id) => bucketIndex(this.selfId, id) === b).slice(0, this.opts.linksPerBucket + 1);
        for (const id of found) this.learn(id);
      });
      jobs.push(ask.catch(() => {}));
    }
    await Promise.all(jobs);
  }

  private randomIdInBucket(b: number): NodeId {
    const id = new Uint8Array(this.selfId);
    for (let bit = 0; bit <= b; bit++) {
      const byte = id.length - 1 - (bit >> 3);
      const mask = 1 << (bit & 7);
      const flip = bit === b || this.opts.random() < 0.5;
      if (flip) id[byte]! ^= mask;
    }
    return id;
  }

  // ---- RPC -------------------------------------------------------------------------

  /** Sends a request (direct if linked, else routed) and awaits the reply. */
  private call(id: NodeId, hex: string, req: RequestBody, via: NodeId[] = []): Promise<Reply> {
    const { r, reply } = this.rpc.open(hex, this.opts.rpcTimeoutMs);
    this.stats.rpcSent++;
    if (!this.sendTo(id, hex, { ...req, r } as DhtMessage, via)) this.rpc.abort(r, new NoRouteError(`no route to ${hex.slice(0, 8)}`));
    return reply.catch((e: Error) => {
      this.stats.rpcFailures++;
      if (e instanceof RpcTimeoutError) this.stats.rpcTimeouts++;
      if (this.running) {
        const res = this.table.fail(hex, this.opts.maxFails);
        if (res.removed) this.rememberDormant(id);
        if (res.promoted) this.onNewContact(res.promoted);
      }
      throw e;
    });
  }

  /** Sends a message to a node: over a direct link if we hold one, else routed. */
  private sendTo(id: NodeId, hex: string, msg: DhtMessage, via: readonly NodeId[] = []): boolean {
    if (!this.running) return false;
    const frame = dhtCodec.encode(msg);
    const pl = this.links.get(hex);
    if (pl && this.links.sendFrame(pl, frame)) return true;
    return this.router.send(id, frame, via);
  }

  private handle(msg: DhtMessage, from: Origin): void {
    const reply = (m: DhtMessage) => this.sendTo(from.id, from.hex, m, from.via);
    const now = this.clock.now();
    switch (msg.t) {
      case 'PING':
        reply({ t: 'PONG', r: msg.r });
        return;
      case 'FIND_NODE':
        reply({ t: 'NODES', r: msg.r, nodes: this.table.closest(msg.target, this.opts.k, from.hex).map((c) => c.id) });
        return;
      case 'FIND_VALUE': {
        // A holder names the closest nodes too: the reader goes on to other holders.
        const held = this.store.get(msg.ns, idToHex(msg.key), now);
        const nodes = this.table.closest(msg.key, this.opts.k, from.hex).map((c) => c.id);
        if (held) reply({ t: 'VALUE', r: msg.r, rec: ValueStore.toRecord(held, now), nodes });
        else reply({ t: 'VALUE', r: msg.r, nodes });
        return;
      }
      case 'STORE': {
        // The rule may be async (signatures): the answer follows the check. Never throws.
        void this.accept(msg.ns, msg.key, msg.rec, true)
          .catch((): StoreRefusal => 'invalid')
          .then((outcome) => {
            const ok = outcome === 'stored' || outcome === 'refreshed';
            if (ok) this.stats.storesAccepted++;
            else {
              this.stats.storesRejected++;
              this.stats.storeRefused[outcome]++;
            }
            reply({ t: 'STORED', r: msg.r, ok });
          });
        return;
      }
      case 'PONG':
      case 'NODES':
      case 'VALUE':
      case 'STORED':
        if (!this.rpc.resolve(from.hex, msg)) this.stats.dropped.unexpected++;
        return;
      case 'SIGNAL':
        // Answers go back along the offer's reverse path: the dialer may be a newcomer
        // that greedy routing cannot reach yet.
        this.transport.handleSignal(from.id, msg.blob, {
          sendSignal: (to, blob) => void this.sendTo(to, idToHex(to), { t: 'SIGNAL', blob }, idEquals(to, from.id) ? from.via : []),
        });
        return;
      case 'DATA':
        this.events.emit('message', { from: from.id, body: msg.body });
        return;
      case 'CLOSING':
        // Only meaningful on a link (LinkSet consumes it there); routed, it is a forgery.
        this.stats.dropped.unexpected++;
        return;
    }
  }

  // ---- lookups and values ------------------------------------------------------------

  /**
   * Keeps a value if its namespace's rule takes it and it is not older than the one held;
   * a remote STORE only if we are near the key. The same bytes as held only refresh it
   * (no second signature check on each republish).
   */
  private async accept(ns: Namespace, key: NodeId, rec: ValueRecord, remote: boolean): Promise<StoreRefusal | 'stored' | 'refreshed'> {
    if (rec.v.length > NAMESPACE_LIMITS[ns].maxValueBytes) return 'tooLarge';
    if (remote && !this.nearKey(key)) return 'notNear';
    const hex = idToHex(key);
    const held = this.store.get(ns, hex, this.clock.now());
    let version: number;
    if (this.opts.records[ns] && held && sameBytes(held.value, rec.v) && sameBytes(held.publisher, rec.pub)) version = held.version;
    else {
      const chk = await checkRecord(this.opts.records, ns, key, rec.v, rec.pub, rec.seq);
      if (!chk.ok) {
        countRuleReject(this.stats.ruleRejects, ns, chk.reason);
        return 'invalid';
      }
      version = chk.version;
    }
    const o = this.store.put(ns, key, hex, rec, version, this.clock.now(), this.policy(ns));
    return o === 'too-large' ? 'tooLarge' : o;
  }

  private policy(ns: Namespace): RecordPolicy {
    return this.opts.records[ns]
      ? { equalReplaces: false, maxTtlMs: MAX_VALUE_TTL_MS }
      : { equalReplaces: true, maxTtlMs: this.opts.unruledMaxTtlMs };
  }

  /** Whether fewer than storeNearFactor * k of the contacts we know are closer to key than we are. */
  private nearKey(key: NodeId): boolean {
    const limit = this.opts.k * this.opts.storeNearFactor;
    if (limit <= 0) return true;
    let closer = 0;
    for (const c of this.table.closest(key, limit)) if (compareDistance(c.id, this.selfId, key) < 0) closer++;
    return closer < limit;
  }

  /** Checks a value a lookup was answered with; the same bytes are checked once per lookup. */
  private valueChecker(ns: Namespace, key: NodeId): (rec: ValueRecord) => Promise<RecordCheck> {
    const seen: { rec: ValueRecord; check: Promise<RecordCheck> }[] = [];
    const ruled = this.opts.records[ns] !== undefined;
    return (rec) => {
      const same = seen.find((x) => (ruled || x.rec.seq === rec.seq) && sameBytes(x.rec.v, rec.v) && sameBytes(x.rec.pub, rec.pub));
      if (same) return same.check;
      const check = checkRecord(this.opts.records, ns, key, rec.v, rec.pub, rec.seq);
      if (seen.length < 8) seen.push({ rec, check });
      return check;
    };
  }

  /** FIND_NODE, or FIND_VALUE collecting up to `values` valid values (`get`). */
  private async lookup(target: NodeId, valueNs?: Namespace, values = 1, check?: (rec: ValueRecord) => Promise<RecordCheck>): Promise<LookupResult> {
    this.stats.lookups++;
    if (valueNs) this.stats.getLookups++;
    const b = bucketIndex(this.selfId, target);
    if (b >= 0) this.table.touch(b, this.clock.now());
    const res = await iterativeLookup({
      target,
      seeds: this.table.closest(target, this.opts.k),
      k: this.opts.k,
      alpha: this.opts.alpha,
      selfHex: this.selfHex,
      hexOf: idToHex,
      wantValue: valueNs !== undefined,
      values: Math.max(1, values),
      valueWaitMs: this.opts.getWaitMs,
      valueWaitRounds: this.opts.getWaitRounds,
      now: () => this.clock.now(),
      stallMs: this.opts.lookupStallMs,
      setTimer: (fn, ms) => void this.clock.setTimeout(fn, ms),
      query: async (id, hex, informer) => {
        const req: RequestBody = valueNs ? { t: 'FIND_VALUE', ns: valueNs, key: target } : { t: 'FIND_NODE', target };
        const m = await this.call(id, hex, req, informer && !this.links.get(hex) ? [informer] : []);
        if (m.t === 'NODES') return { nodes: m.nodes };
        if (m.t !== 'VALUE') return { nodes: [] };
        if (!m.rec || !valueNs || !check) return { nodes: m.nodes };
        const chk = await check(m.rec);
        if (!chk.ok) {
          this.stats.valuesInvalid++;
          countRuleReject(this.stats.ruleRejects, valueNs, chk.reason);
          return { nodes: m.nodes };
        }
        this.stats.getAnswers++;
        return { nodes: m.nodes, value: m.rec, version: chk.version };
      },
    });
    this.stats.lookupRpcs += res.queries;
    this.stats.lookupHops += Math.max(0, res.hops);
    return res;
  }

  /** FIND_NODE for key, then STORE on the k closest (and locally if we are among them). */
  private async storeAt(ns: Namespace, key: NodeId, rec: ValueRecord): Promise<{ stored: number }> {
    const res = await this.lookup(key);
    const targets = res.closest.slice(0, this.opts.k);
    let stored = 0;
    const kth = targets[this.opts.k - 1];
    if (!kth || compareDistance(this.selfId, kth.id, key) < 0) {
      const o = await this.accept(ns, key, rec, false);
      if (o === 'stored' || o === 'refreshed') stored++;
    }
    const acks = await Promise.allSettled(targets.map((t) => this.call(t.id, t.hex, { t: 'STORE', ns, key, rec })));
    for (const a of acks) if (a.status === 'fulfilled' && a.value.t === 'STORED' && a.value.ok) stored++;
    return { stored };
  }

  private sweepValues(): void {
    const now = this.clock.now();
    this.store.expire(now);
    for (const [pk, p] of this.published) {
      if (p.expiresAt <= now) this.published.delete(pk);
      else if (p.republishAt <= now) {
        p.republishAt = now + this.opts.republishMs;
        void this.storeAt(p.ns, p.key, { v: p.value, pub: this.selfId, seq: p.seq, ttl: p.expiresAt - now }).catch(() => {});
      }
    }
    for (const h of this.store.values(now)) {
      if (now - h.refreshedAt < this.opts.replicateMs) continue;
      h.refreshedAt = now;
      void this.storeAt(h.ns, h.key, ValueStore.toRecord(h, now)).catch(() => {});
    }
  }
}
