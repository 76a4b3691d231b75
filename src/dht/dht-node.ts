// One Kademlia node: the composition of its parts, each started and stopped on its own.
// Dependencies come in (transport, clock, random); `stats` is a plain counters object.
//
//   link-set.ts         live links, frame checks      overlay-router.ts  routed messages
//   link-upkeep.ts      which links to dial or retire  overlay-signaling.ts  offers over the overlay
//   contacts.ts         table upkeep from traffic      liveness.ts        heartbeats, stale probes
//   dormant-contacts.ts partition healing              bucket-refresh.ts  bucket refresh
//   join.ts             the join                       rpc-handlers.ts    answering messages
//   lookups.ts          iterative lookups              values.ts          STORE, get
//   republish.ts        put, republish, hand-over
//
// Contacts are node ids known to be alive. An RPC to a contact we hold a live link to
// goes straight over that link; otherwise it travels as a ROUTED message over existing
// links (greedy XOR forwarding), and its reply comes back along the reverse path. Direct
// links are opened only by the link budget (bucket coverage) or on request (`connect`),
// and their offer/answer travels through the overlay itself: a lookup never dials.
import type { Clock } from '../core/clock';
import { Emitter } from '../core/emitter';
import { guardKeys, nodeIdOfKey, type KeyGuard } from '../core/key-ids';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { STOPPED } from '../net/close-reasons';
import type { SignalChannel, Transport } from '../net/transport';
import { isTransportProbe, type TransportProbe } from '../net/transport-watch';
import { BucketRefresh } from './bucket-refresh';
import { Contacts } from './contacts';
import { NoRouteError, type Dht, type DhtEvents, type GetOptions, type GotValue, type LinkInfo, type PutOptions, type ValueFilter } from './dht';
import { DHT_DEFAULTS, type DhtBootstrap, type DhtOptions } from './dht-options';
import { DormantContacts } from './dormant-contacts';
import { idGate, type IdGate } from './id-gate';
import { Join } from './join';
import { LinkSet, type PeerLink } from './link-set';
import { LinkUpkeep } from './link-upkeep';
import { Liveness } from './liveness';
import type { LookupResult } from './lookup';
import { NearNodes } from './near-view';
import { nodeLookup, type Lookup } from './lookups';
import { dhtCodec, type DhtMessage, type Namespace, type Reply } from './messages';
import { OverlayRouter, type Origin } from './overlay-router';
import { nextHop } from './router';
import { OverlaySignaling } from './overlay-signaling';
import { Republisher } from './republish';
import { checkSigner, type RouteSigner } from './route-auth';
import { ReadOnlyPeers } from './read-only-peers';
import { RouteRecord } from './route-record';
import { RoutingTable, type Contact } from './routing-table';
import { RpcHandlers } from './rpc-handlers';
import { RpcTable, RpcTimeoutError, type RequestBody } from './rpc';
import { newStats, type DhtStats } from './stats';
import { Values } from './values';
import { ValueStore } from './value-store';

export { DHT_DEFAULTS, type DhtBootstrap, type DhtOptions } from './dht-options';
export { JoinError, NoRouteError, RecordRejectedError, ValueTooLargeError, type Dht, type DhtEvents, type GotValue, type LinkInfo, type PutOptions, type ValueFilter } from './dht';

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

export function createDhtNode(args: CreateDhtNodeArgs): DhtNode {
  return new DhtNode(args);
}

/** A part with a life of its own. */
interface Part {
  start(): void;
  stop(): void;
}

export class DhtNode implements Dht {
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

  private readonly clock: Clock;
  /** Peers that told us they are read-only: kept out of the table and off routes. */
  private readonly readOnlyPeers = new ReadOnlyPeers();
  /** Peers whose frames said they host no regions (`nh`; the same bounded, sender-only memory). */
  private readonly nonHostPeers = new ReadOnlyPeers();
  /** Ids showing too little work are dealt with nowhere (id-gate.ts). */
  private readonly admits: IdGate;
  private readonly signer: RouteSigner | undefined;
  private readonly rpc: RpcTable;
  private readonly router: OverlayRouter;
  /**
   * Which links get the routed requests we hand them answered (the reply comes back the same
   * way): links with a clearly worse record than their equals are passed over (route-record.ts;
   * it takes spreadRoutes to have equals to choose from).
   */
  private readonly record: RouteRecord;
  private readonly lookup: Lookup;
  readonly nearView: NearNodes;
  private readonly contactBook: Contacts;
  private readonly signaling: OverlaySignaling;
  private readonly linkUpkeep: LinkUpkeep;
  private readonly liveness: Liveness;
  private readonly dormant: DormantContacts;
  private readonly refresher: BucketRefresh;
  private readonly values: Values;
  private readonly republisher: Republisher;
  private readonly handlers: RpcHandlers;
  private readonly joiner: Join;
  /** Started in this order (their timers' order decides ties on a virtual clock), stopped in reverse. */
  private readonly parts: Part[];
  private running = false;
  /**
   * Our own key, our contacts' and our links': an attacker cycling minted ids through the key
   * memory must not push them out (key-ids.ts KEYS_GUARDED). A lookup in two maps, asked only
   * as the memory lets a key go. Registered while we run.
   */
  private readonly keyGuard: KeyGuard = { needsKey: (hex) => hex === this.selfHex || this.table.has(hex) || this.links.get(hex) !== undefined };
  private unguard: (() => void) | undefined;

  constructor(args: CreateDhtNodeArgs) {
    const { transport, clock, bootstrap } = args;
    this.selfId = args.selfId;
    this.selfHex = idToHex(args.selfId);
    this.clock = clock;
    this.signer = args.signer;
    if (this.signer) checkSigner(this.signer);
    const opts = (this.opts = { ...DHT_DEFAULTS, ...args.options });
    const { selfId, selfHex, stats } = this;
    const admits = (this.admits = idGate(opts.idWorkBits, stats.idWorkRefused));
    const table = (this.table = new RoutingTable(selfId, opts.k));
    const store = this.store;
    const call = this.call.bind(this);
    const send = this.sendTo.bind(this);
    this.rpc = new RpcTable(clock, opts.random);
    // Parts refer to each other only through the functions handed to them here.
    const links = (this.links = new LinkSet(selfId, clock, stats, opts, {
      onMessage: (msg, pl) => this.receive(msg, { id: pl.id, hex: pl.hex, via: [] }),
      onRoute: (env, pl) => {
        if (!pl.readOnly) this.contactBook.heard(pl.id, pl.hex);
        this.router.onRoute(env, pl);
      },
      onOpen: (pl) => {
        if (!pl.readOnly) this.contactBook.heard(pl.id, pl.hex);
        this.events.emit('link-open', { id: pl.id, outbound: pl.outbound, readOnly: pl.readOnly ?? false });
      },
      onClose: (pl, reason, byUs) => {
        this.linkUpkeep.closed(pl, byUs);
        this.events.emit('link-close', { id: pl.id, reason, readOnly: pl.readOnly ?? false });
        this.linkUpkeep.scheduleMaintain();
      },
      isReadOnly: (hex) => this.readOnlyPeers.has(hex),
    }));
    const deliver = (inner: DhtMessage, from: Origin) => {
      // A signed message is delivered after an await: perhaps after stop().
      if (!this.running) return;
      this.receive(inner, from);
    };
    const record = (this.record = new RouteRecord(() => clock.now(), opts.rpcTimeoutMs, (hop, at) => this.silentSince(hop, at)));
    const watch = opts.unansweredHopMs > 0 ? { ms: opts.unansweredHopMs, now: () => clock.now(), probe: (pl: PeerLink) => this.liveness.probeNow(pl) } : undefined;
    const auth = { signer: this.signer, requireSigned: opts.requireSignedRoutes, admitSource: (id: NodeId) => admits(id, 'route') };
    this.router = new OverlayRouter(selfId, selfHex, links, stats, opts, deliver, auth, record, watch);
    const lookup = nodeLookup({ selfId, clock, opts, stats, table, linked: (hex) => this.linked(hex), call, admit: (id) => admits(id, 'answer') });
    // Every lookup's answers feed our view of who is near its target (near-view.ts).
    this.lookup = async (...a: Parameters<Lookup>) => {
      const res = await lookup(...a);
      if (res.closest.length) this.nearView.record(a[0], res.closest.map((c) => c.id));
      return res;
    };
    this.nearView = new NearNodes({
      selfId, readOnly: opts.readOnly, clock, closest: (key, n) => this.closestContacts(key, n), findNode: (key, paths) => this.lookup(key, undefined, undefined, undefined, paths),
      hostsNothing: (hex) => this.hostsNothing(hex),
    });
    this.contactBook = new Contacts({
      clock,
      opts,
      table,
      call,
      onAdded: (c) => this.contactAdded(c),
      onDropped: (id) => this.dormant.remember(id),
      admit: (id) => admits(id, 'contact'),
    });
    this.signaling = new OverlaySignaling({ transport, send, linkCount: () => links.size, relay: bootstrap?.signals });
    this.overlaySignals = this.signaling.channel;
    this.linkUpkeep = new LinkUpkeep({ selfId, clock, opts, stats, table, links, transport, dialSignals: () => this.signaling.forDial(), overlay: this.overlaySignals, admit: (id) => admits(id, 'link') });
    this.liveness = new Liveness({ selfHex, clock, opts, stats, table, links, call, dropped: (id) => this.dormant.remember(id) });
    const linkedOrDialling = (hex: string) => this.linked(hex) || this.linkUpkeep.isDialing(hex);
    this.dormant = new DormantContacts({
      clock,
      opts,
      relay: bootstrap?.signals,
      known: (hex) => table.has(hex) || linkedOrDialling(hex),
      linkedOrDialling,
      dial: (id, hex, signals) => this.linkUpkeep.dial(id, hex, signals, false),
    });
    this.refresher = new BucketRefresh({ selfId, clock, opts, table, lookup: this.lookup, call, learn: (id) => {
        // Named by another node: a node that told us it is read-only stays out all the same.
        if (admits(id, 'answer') && !this.readOnlyPeers.has(idToHex(id))) this.contactBook.learn(id);
      },
    });
    this.values = new Values({ selfId, clock, opts, stats, table, store, lookup: this.lookup, call, view: this.nearView });
    this.republisher = new Republisher({ selfId, clock, opts, stats, table, store, call, storeAt: (ns, key, rec, via) => this.values.storeAt(ns, key, rec, via) });
    this.handlers = new RpcHandlers({
      clock,
      opts,
      stats,
      table,
      store,
      send,
      accept: (m, fromHex) => this.values.accept(m.ns, m.key, m.rec, true, fromHex),
      resolve: (hex, reply) => this.rpc.resolve(hex, reply),
      signal: (blob, from) => this.signaling.received(blob, from),
      data: (from, body) => this.events.emit('message', { from, body }),
    });
    this.joiner = new Join({
      selfId,
      clock,
      opts,
      stats,
      bootstrap,
      transport,
      attach: (link, outbound) => this.linkUpkeep.attach(link, outbound),
      contactCount: () => table.size,
      linkCount: () => links.size,
      lookup: this.lookup,
      refresh: this.refresher,
      maintain: () => this.linkUpkeep.maintain(),
    });
    this.parts = [this.handlers, this.signaling, this.liveness, this.linkUpkeep, this.dormant, this.refresher, this.republisher];
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Silence after which a contact without a link is probed (liveness.ts). */
  get staleAfterMs(): number {
    return this.liveness.staleAfterMs;
  }

  // ---- lifecycle -------------------------------------------------------------------

  /** Dials the bootstrap peers, looks up our own id, refreshes far buckets; resolves when joined. */
  async start(): Promise<void> {
    if (this.running) return;
    // A signer for another id would get every message we send dropped as forged.
    if (this.signer && !idEquals(nodeIdOfKey(this.signer.publicKey), this.selfId)) {
      throw new Error('the route signer\'s public key does not stand for selfId');
    }
    if (this.running) return;
    this.running = true;
    this.unguard = guardKeys(this.keyGuard);
    for (const p of this.parts) p.start();
    try {
      await this.joiner.start();
    } catch (e) {
      this.stop();
      throw e;
    }
    this.events.emit('ready', { contacts: this.table.size });
  }

  /**
   * Joins through `peers` as start() joins through the bootstrap's, dialled over the
   * bootstrap's signal channel; resolves when joined. A node is built and started once, and
   * may join again as peers are found: a failed join (JoinError) leaves it running, alone if
   * it holds no link, and a dial of it that succeeds later still links.
   */
  async join(peers: readonly NodeId[]): Promise<void> {
    if (!this.running) throw new Error('join: the node is not running');
    await this.joiner.start(peers);
    this.events.emit('ready', { contacts: this.table.size });
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.unguard?.();
    this.unguard = undefined;
    this.joiner.stop();
    for (const p of [...this.parts].reverse()) p.stop();
    this.rpc.closeAll();
    this.links.closeAll(STOPPED);
  }

  // ---- the Dht interface -----------------------------------------------------------

  findNode(target: NodeId): Promise<LookupResult> {
    return this.lookup(target);
  }

  /** Stores value under (ns, key) on the k nodes closest to key. Resolves with how many took it. */
  put(ns: Namespace, key: NodeId, value: Uint8Array, opts: PutOptions = {}): Promise<{ stored: number }> {
    return this.republisher.put(ns, key, value, opts);
  }

  /**
   * Finds the value under (ns, key), or undefined: the highest version among the valid
   * values of up to `getAnswers` holders (our own copy counts as one). Every value read
   * is checked by its namespace's rule; one that fails is dropped and counted
   * (`valuesInvalid`), never returned.
   */
  get(ns: Namespace, key: NodeId, accept?: ValueFilter, o?: GetOptions): Promise<GotValue | undefined> {
    return this.values.get(ns, key, accept, o);
  }

  /** Sends an application payload to any node id, routed over live links. False if no first hop. */
  send(to: NodeId, body: Uint8Array, mayWait = false): boolean {
    if (idEquals(to, this.selfId)) {
      this.events.emit('message', { from: this.selfId, body });
      return true;
    }
    return this.sendTo(to, idToHex(to), { t: 'DATA', body }, [], 0, mayWait);
  }

  /** Pins a direct link to a peer one talks to often, for `owner` (opened if not held); pinned links survive budget cuts. */
  connect(id: NodeId, owner = 'app'): Promise<void> {
    return this.linkUpkeep.connect(id, owner);
  }

  /** Dials a peer through the relay when we hold no link to it (dormant-contacts.ts `reach`). */
  reach(id: NodeId): void {
    this.dormant.reach(id);
  }

  /**
   * Our frames to `id` seem lost (an answer that was due did not come): the first hop of
   * our route to it (its own link, when we hold one) is PINGed now and dropped if silent,
   * so the next frame takes another route (Liveness.probeNow).
   */
  suspectRoute(id: NodeId): void {
    const hop = nextHop(this.selfId, id, this.links.map, true);
    if (hop) this.liveness.probeNow(hop);
  }

  /**
   * `id` seems dead (it went silent where it should have spoken): our link to it, if we
   * hold one, is PINGed now and closed if silent, so routes stop passing through it before
   * the periodic checks would notice (up to heartbeatTimeoutMs).
   */
  suspect(id: NodeId): void {
    const hex = idToHex(id);
    const pl = this.links.get(hex);
    if (!pl) return;
    // Until the probe says otherwise, frames for others do not go through it.
    this.router.avoid(hex);
    this.liveness.probeNow(pl, () => this.router.unavoid(hex));
    // Answered, or dropped by then (a dropped link is no hop anyway).
    this.clock.setTimeout(() => this.router.unavoid(hex), this.opts.rpcTimeoutMs + 100);
  }

  /**
   * A request handed to our link `hex` at `at` went unanswered: if nothing at all came over
   * that link since, its peer may have died silently, so it is PINGed now and closed if it
   * does not answer (Liveness.probeNow), not left open until the heartbeat timeout with
   * every route through it lost. A live peer, hostile or slow, answers and stays. (Not
   * `suspect`, which also avoids the hop meanwhile: with it the 1,000-node adversarial test
   * did not end within its 300 s budget on a loaded machine, 126 s without; not looked into.)
   */
  private silentSince(hex: string, at: number): void {
    const pl = this.links.get(hex);
    if (pl && pl.lastRx <= at && this.running) this.liveness.probeNow(pl);
  }

  /** Whether `id` answers a PING (over its link, else routed) before the RPC timeout. */
  ping(id: NodeId): Promise<boolean> {
    return this.call(id, idToHex(id), { t: 'PING' }).then(
      () => true,
      () => false,
    );
  }

  /** `owner` lets go of its pin; once nobody pins the link, the budget may close it again. */
  unpin(id: NodeId, owner = 'app'): void {
    this.linkUpkeep.unpin(id, owner);
  }

  linked(hex: string): boolean {
    return this.links.get(hex) !== undefined;
  }

  transport(hex: string): TransportProbe | undefined {
    const link = this.links.get(hex)?.link;
    return link && isTransportProbe(link) ? link : undefined;
  }

  linkInfo(): LinkInfo[] {
    return [...this.links.map.values()].map((pl) => ({ id: pl.id, hex: pl.hex, outbound: pl.outbound, pinned: pl.pinned, rttMs: pl.rttMs, readOnly: pl.readOnly ?? false }));
  }

  closestContacts(target: NodeId, n: number): NodeId[] {
    return this.table.closest(target, n).map((c) => c.id);
  }

  contacts(): NodeId[] {
    return this.table.nonEmptyBuckets().flatMap((b) => this.table.bucket(b).map((c) => c.id));
  }

  addContact(id: NodeId): void {
    if (!idEquals(id, this.selfId) && !this.readOnlyPeers.has(idToHex(id)) && this.admits(id, 'contact')) this.table.add(id, this.clock.now());
  }

  retryDialsIfAlone(): void {
    if (this.linkInfo().length === 0) this.linkUpkeep.retryAll();
  }

  hostsNothing(hex: string): boolean {
    return this.readOnlyPeers.has(hex) || this.nonHostPeers.has(hex);
  }

  /** Whether we are a read-only node (DhtOptions.readOnly): a player that hosts nothing. */
  get readOnly(): boolean {
    return this.opts.readOnly;
  }

  get idWorkBits(): number {
    return this.opts.idWorkBits;
  }

  // ---- read-only peers ---------------------------------------------------------------

  /**
   * A message for us from `from` (its link's peer, or a routed message's proven source):
   * its sender heard (unless it is or says it is read-only), the message handled, then what
   * it says of its sender's mode read (read-only-peers.ts), only if it was not dropped: a
   * rejected frame changes nothing (src/testing/fuzz-dht-target.ts). A STORE's outcome comes
   * later, so a STORE changes no mode; CLOSING carries no flag.
   */
  private receive(msg: DhtMessage, from: Origin): void {
    const says = msg.t === 'CLOSING' ? false : msg.ro === 1;
    if (!says && !this.readOnlyPeers.has(from.hex)) this.contactBook.heard(from.id, from.hex);
    if (!this.handlers.handle(msg, from) || msg.t === 'STORE' || msg.t === 'CLOSING') return;
    this.nonHostPeers.saw(from.hex, msg.nh === 1);
    if (this.modeOf(from.hex, says) === 'cleared') this.contactBook.heard(from.id, from.hex);
  }

  /**
   * What a frame from `hex` said of its sender's mode. One newly read-only leaves the table
   * (its bucket's replacement, if any, takes its place) and its link leaves the budget.
   */
  private modeOf(hex: string, readOnly: boolean): 'marked' | 'cleared' | undefined {
    const change = this.readOnlyPeers.saw(hex, readOnly);
    if (change === 'marked') {
      this.stats.readOnlyMarked++;
      this.links.setReadOnly(hex, true);
      const promoted = this.table.remove(hex);
      if (promoted) this.contactAdded(promoted);
    } else if (change === 'cleared') this.links.setReadOnly(hex, false);
    return change;
  }

  /** A contact entered the table (added, or promoted from a replacement cache). */
  private contactAdded(c: Contact): void {
    this.linkUpkeep.contactAdded(c);
    this.republisher.handOver(c);
  }

  // ---- sending: what every part calls ------------------------------------------------

  /** Sends a request (direct if linked, else routed) and awaits the reply; a failure counts against the contact. */
  private call(id: NodeId, hex: string, req: RequestBody, via: readonly NodeId[] = [], detour = 0): Promise<Reply> {
    const { r, reply } = this.rpc.open(hex, this.opts.rpcTimeoutMs);
    const at = this.clock.now();
    this.stats.rpcSent++;
    if (!this.sendTo(id, hex, { ...req, r } as DhtMessage, via, detour)) this.rpc.abort(r, new NoRouteError(`no route to ${hex.slice(0, 8)}`));
    return reply.catch((e: Error) => {
      this.stats.rpcFailures++;
      if (e instanceof RpcTimeoutError) {
        this.stats.rpcTimeouts++;
        // Unanswered: over a link of ours, that link is suspect; routed, the first hop is
        // (the record judges the request now, not at its next use).
        this.silentSince(hex, at);
        this.record.expire();
      }
      if (this.running) this.contactBook.failed(id, hex);
      throw e;
    });
  }

  /** Sends a message to a node: over a direct link if we hold one, else routed. */
  private sendTo(id: NodeId, hex: string, msg: DhtMessage, via: readonly NodeId[] = [], detour = 0, mayWait = false): boolean {
    if (!this.running) return false;
    // A read-only node says so on every frame it sends (read-only-peers.ts).
    // A node hosting nothing says that too (`nh`): hosts keep it out of their host sets.
    const flags = msg.t === 'CLOSING' ? {} : { ...(this.opts.readOnly ? { ro: 1 } : {}), ...(this.opts.noHost ? { nh: 1 } : {}) };
    const frame = dhtCodec.encode('ro' in flags || 'nh' in flags ? ({ ...msg, ...flags } as DhtMessage) : msg);
    const pl = this.links.get(hex);
    if (pl && this.links.sendFrame(pl, frame, undefined, mayWait)) return true;
    return this.router.send(id, frame, via, detour);
  }
}
