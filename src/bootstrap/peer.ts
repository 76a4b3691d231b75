// Wires one peer: identity -> WebRTC transport -> doorways (relay, PeerJS broker) -> DHT
// node. DOM-free (WebSocket, connectors and the clock are injectable), so the same wiring
// runs in a tab and in Node. A doorway lets a tab dial its first peers and keeps it
// findable by newcomers; every later link is signaled over the overlay. A dropped doorway
// (the relay restarted, a network change) is re-opened with backoff.
// Nobody is left alone for long, and nobody waits long to hear why: an invite whose peers
// the doorways do not know (they left) falls back at once to the doorways' live peers; a
// join with no link after joinDeadlineMs gives up and says why (JoinFailure); a peer with
// no link keeps asking the doorways (and the invite's peers) with backoff (bootstrap/peer-finder.ts).
// A join is usable at its first link and a lookup of its own id; the rest of it (the other
// dials, the bucket refresh) runs on behind `Peer.start` (`Peer.joined`).
import { realClock, type Clock } from '../core/clock';
import type { Identity } from '../core/identity';
import { idToHex, type NodeId } from '../core/node-id';
import { AppChannels } from '../dht/app-channels';
import type { Dht } from '../dht/dht';
import { createDhtNode, type DhtOptions } from '../dht/dht-node';
import type { RecordRules } from '../dht/record-rules';
import { connectPeerJs } from '../net/peerjs-bootstrap';
import { connectRelay, type WebSocketCtor } from '../net/relay-bootstrap';
import { NO_CANDIDATE, WebRtcTransport, type WebRtcTransportOptions } from '../net/webrtc-transport';
import { PATH_DEAD } from '../net/close-reasons';
import { iceUrls } from '../net/ice-servers';
import type { IceProbeResult } from '../net/ice-probe';
import { DoorwayIce } from './doorway-ice';
import { DoorwayReopener } from './doorway-reopener';
import { doorwayName, Doorways, type DoorwayConnector, type DoorwaySpec } from './doorways';
import { PeerFinder } from './peer-finder';

/** Peers asked of the relay when there is no invite (or its peers are gone), and by each search of a lone peer. */
const BOOTSTRAP_PEERS = 4;
/** A doorway that has not answered in this long counts as unreachable for the join (it is retried later). */
const DOORWAY_TIMEOUT_MS = 3000;
/** Doorways are opened afresh after a path death (Peer.renewDoorways) at most this often: one network change kills every link within a second or so. */
const DOORWAY_RENEW_MS = 5000;
/**
 * Left alone this soon after a link's path died: the doorways are renewed too (the last link
 * may have gone another way: a probe unanswered, while its watch was still judging).
 */
const PATH_DEATH_RECENT_MS = 10_000;
/** After a path death the other links are PINGed (Peer.pathDied), not again for deaths within this. */
const PATH_DEATH_PING_MS = 3000;
/** An offer unanswered this long is taken for unanswered at the join's verdict ('no-answer'): an answer takes a round trip and the far end's making of it, tens of ms. */
const NO_ANSWER_MS = 1500;

export const PEER_DEFAULTS = {
  /**
   * With peers to dial but no link this long after start, the join gives up and the tab
   * starts alone (and keeps looking): a player is told what went wrong within 5 s, not
   * after the 15 s dial timeout. A join that has a link by then runs to its end.
   */
  joinDeadlineMs: 4000,
  /**
   * A browser that has gathered no ICE candidate is said to have WebRTC blocked no earlier
   * than this after the start: on a loaded machine the first candidate came after a dial's
   * 2 s gather wait (bench/lab, six tabs on two cores), and "blocked" was then wrong. One
   * that comes later still changes what is said (`onFailure`).
   */
  blockedVerdictMs: 3000,
};

/** Why a tab ended up alone, in terms the start screen turns into words (ui/start-screen.ts). */
export type JoinFailureKind =
  /** No doorway (relay, PeerJS broker) answered: nobody can be dialed. */
  | 'doorway-unreachable'
  /** The invite's peers are gone and the doorway knows nobody else. */
  | 'inviter-gone'
  /** Peers were there but this browser gathered no ICE candidate (WebRTC blocked by the browser, a policy or an extension). */
  | 'webrtc-blocked'
  /** Candidates were gathered but no connection opened in time, and no TURN server is set (a NAT or firewall in the way). */
  | 'no-direct-path'
  /** As no-direct-path, with a TURN server set: it did not carry the link either (unreachable, or it said nothing of why). */
  | 'turn-failed'
  /** As turn-failed, and a TURN server refused our credentials (wrong, or expired: net/turn-refusal.ts). */
  | 'turn-refused'
  /**
   * Peers were dialled, and an offer still waits for its answer, resent (net/offer-resend.ts):
   * to that peer no path was tried, direct or through TURN. Its relay socket is deaf for a
   * moment (a router that forgot its mappings), or it left without the relay knowing yet.
   */
  | 'no-answer'
  /** Relay-only candidates were asked for (`?ice=relay`) but no TURN server is set: nothing can be gathered. */
  | 'relay-needs-turn'
  /** This browser has no WebRTC at all. */
  | 'webrtc-unsupported'
  /** The doorway answered, and nobody else is in this world yet. */
  | 'nobody-here';

export interface JoinFailure {
  kind: JoinFailureKind;
  /** The technical detail (an error message), for the curious. */
  detail: string;
}

/** Stages of a join, reported as they pass (the start screen shows them with times). */
export type JoinStage = 'doorway' | 'peers-listed' | 'first-link' | 'dht-ready';

export interface PeerConfig {
  identity: Identity;
  /**
   * The network this peer is of (net/network-id.ts: `networkId(world, seed)`): it registers
   * in that room of a relay and links only to peers of it, so two worlds never share a DHT.
   */
  network: string;
  /**
   * The rules the DHT node checks records with, by namespace (play/dht-record-rules.ts):
   * the DHT cannot know what a player or region record is, so the composition root says.
   * `dht.records` adds or replaces rules (tests, tools).
   */
  records: RecordRules;
  /** Where to register and ask for peers; [] or none reachable: invite peers are undialable, the tab starts alone. */
  doorways: DoorwaySpec[];
  /** Node ids to dial first (an invite's inviter, then its contacts). */
  invitePeers?: NodeId[];
  /** STUN/TURN servers of its own (a deploy's, the headless peer's flags); a doorway may grant more (bootstrap/doorway-ice.ts). */
  iceServers?: RTCIceServer[];
  /** How this runtime's RTCPeerConnection wants the servers written (Node: node-datachannel's, bootstrap/headless-ice.ts); default as they are. */
  iceServersForRtc?: (servers: RTCIceServer[]) => RTCIceServer[];
  /** Extra RTCConfiguration fields for the transport (Node: node-datachannel's `bindAddress`). */
  rtcConfig?: Record<string, unknown>;
  /** Whether this browser gathers ICE candidates, probed early (net/ice-probe.ts): a 'none' fails the first dials at once. */
  iceProbe?: Promise<IceProbeResult>;
  /** Links whose path died are closed after this (net/path-watch.ts; a browser's counters allow it); none: no watch. */
  pathDeadMs?: number;
  /** The transport's connection maker (net/webrtc-transport.ts `createPeer`); default simple-peer's. */
  createPeer?: WebRtcTransportOptions['createPeer'];
  clock?: Clock;
  dht?: Partial<DhtOptions>;
  WebSocket?: WebSocketCtor;
  /** Opens a doorway (default: connectRelay / connectPeerJs). */
  connect?: DoorwayConnector;
  /** Called as each join stage passes (detail: what it found). */
  onStage?: (stage: JoinStage, detail: string) => void;
  options?: Partial<typeof PEER_DEFAULTS>;
}

/**
 * A tab signs every routed message it originates with its identity and accepts only
 * signed ones whose key hashes to the claimed source (src/dht/route-auth.ts): a forwarder
 * cannot speak for another node (say, a region host). Direct links are proven by the
 * link handshake already.
 */
function dhtOptions(cfg: PeerConfig): Partial<DhtOptions> {
  return { requireSignedRoutes: true, ...cfg.dht, records: { ...cfg.records, ...cfg.dht?.records } };
}

function defaultConnector(cfg: PeerConfig, timeoutMs: number): DoorwayConnector {
  return (spec, selfId) => {
    if (spec.kind === 'relay') return connectRelay({ url: spec.url, identity: cfg.identity, network: cfg.network, WebSocket: cfg.WebSocket, connectTimeoutMs: timeoutMs });
    const u = new URL(spec.url);
    const secure = u.protocol === 'https:';
    return connectPeerJs({ selfId, host: u.hostname, port: Number(u.port || (secure ? 443 : 80)), path: u.pathname, secure, connectTimeoutMs: timeoutMs, ...(spec.key ? { key: spec.key } : {}) });
  };
}

export type PeerStatus = 'starting' | 'alone' | 'online' | 'failed';

type JoinResult = 'joined' | 'gone' | 'timeout' | 'failed';

export class Peer {
  status: PeerStatus = 'starting';
  /** Application protocols over the DHT's messages (diag, host, player). */
  channels!: AppChannels;
  lastError: Error | undefined;
  /** Why the join ended alone (undefined when it linked to someone). */
  failure: JoinFailure | undefined;
  private readonly failureListeners: ((f: JoinFailure) => void)[] = [];

  /** Looks for peers while this one has no link. */
  readonly finder: PeerFinder;
  /** Re-opens (and re-registers at) a doorway that dropped or could not be reached, with backoff. */
  private readonly reopener: DoorwayReopener;
  private stopped = false;

  private constructor(
    readonly identity: Identity,
    readonly transport: WebRtcTransport,
    /** The peer's one DHT node: started alone, then joined through the invite's or the doorways' peers (a failed join leaves it running). */
    readonly dht: Dht,
    readonly doorways: Doorways,
    private readonly cfg: PeerConfig,
    readonly clock: Clock,
    private readonly opts: typeof PEER_DEFAULTS,
    private readonly connect: DoorwayConnector,
  ) {
    this.finder = new PeerFinder({ clock, lonely: () => !this.stopped && this.dht.linkInfo().length === 0, search: () => this.search() });
    this.reopener = new DoorwayReopener({
      clock,
      open: (spec) => connect(spec, identity.id),
      reopened: (spec, connection) => {
        doorways.attach(spec, connection);
        this.finder.poke(); // alone, a doorway is where peers are found
      },
      failed: (_spec, err) => { this.lastError = err; },
    });
    doorways.events.on('open', ({ spec }) => this.reopener.opened(spec));
    doorways.events.on('undeliverable', ({ to }) => this.gone.add(idToHex(to)));
    doorways.events.on('close', ({ spec }) => this.reopener.dropped(spec));
  }

  /**
   * The network is back (a page's `online` event, as after a move to another network):
   * doorways that dropped are tried now rather than after their grown backoff, open ones are
   * probed (relay-bootstrap.ts keepalive), and a peer
   * with no link searches soon.
   */
  networkBack(): void {
    if (this.stopped) return;
    // An open relay socket may have died with the old network, unknown to both ends until
    // TCP gives up: a probe left unanswered closes it, and the reopener opens a new one.
    this.doorways.probe();
    this.reopener.retryNow();
    this.finder.poke();
  }

  /**
   * A link's path died and it was our last (net/path-watch.ts): our own network most likely
   * changed (a move to another network, a NAT that forgot us), and the relay socket opened
   * on the old one is dead too, unknown to TCP for minutes, while the relay still hands our
   * peers' offers to it. Each open doorway is opened afresh at once (the relay gives our id
   * to the new socket and closes the old), so our dials and our peers' reach us again. At
   * most once per DOORWAY_RENEW_MS.
   */
  private renewDoorways(): void {
    const now = this.clock.now();
    if (this.stopped || now - this.renewedAt < DOORWAY_RENEW_MS) return;
    this.renewedAt = now;
    for (const spec of this.doorways.open) {
      void this.connect(spec, this.identity.id).then((b) => {
        if (this.stopped) return b.close();
        this.doorways.attach(spec, b);
        // The peers we were linked to are dialled now, through the new socket, not at the
        // finder's first search (1 s on): they are in our table, backed off (retryAll).
        this.dht.retryDialsIfAlone();
        this.finder.poke();
      }, (err: Error) => { this.lastError = err; });
    }
  }

  private renewedAt = -Infinity;
  /** When a link of ours was last closed as PATH_DEAD. */
  private pathDiedAt = -Infinity;

  /**
   * A link's path died (net/path-watch.ts). If it was our network that changed, every other
   * link died with it, but the watch judges only a link we sent on since it last heard the
   * far end: one idle since would stay open until the DHT's probe or heartbeat timeout (up
   * to 15 s), and until then we would not be alone to renew the relay socket and dial anew.
   * So each other link is sent a PING now: a live one answers, a dead one owes an answer and
   * its watch closes it too (1-2 s later). The relay socket is probed with them: a router
   * that forgot its mappings drops the relay's frames to us (a newcomer's offer) until we
   * send on the socket, and a socket opened on an old network is dead: the probe maps it
   * again, or finds it dead and it is reopened (relay-bootstrap.ts keepalive).
   */
  private pathDied(): void {
    const now = this.clock.now();
    this.pathDiedAt = now;
    // One network change closes many links within a second or two: one round of PINGs does.
    if (now - this.pathPingedAt < PATH_DEATH_PING_MS) return;
    this.pathPingedAt = now;
    this.doorways.probe();
    for (const l of this.dht.linkInfo()) void this.dht.ping(l.id);
  }

  private pathPingedAt = -Infinity;

  /** Calls `fn` when the failure is judged anew (a browser taken for blocked gathered a candidate after all). */
  onFailure(fn: (f: JoinFailure) => void): void {
    this.failureListeners.push(fn);
  }

  /** Times a doorway connection was re-opened after a drop or a failed first attempt. */
  get relayReconnects(): number {
    return this.reopener.reopens;
  }

  get id(): string {
    return idToHex(this.identity.id);
  }

  /**
   * Opens the doorways and joins: resolves once the peer is usable (linked, its own id looked
   * up), or alone with the reason (`failure`) when no link came by the deadline. The rest of
   * the join runs on (`joined`).
   */
  static async start(cfg: PeerConfig): Promise<Peer> {
    const clock = cfg.clock ?? realClock;
    const opts = { ...PEER_DEFAULTS, ...cfg.options };
    const t0 = clock.now();
    const stage = (s: JoinStage, detail: string) => cfg.onStage?.(s, detail);
    // A doorway's ICE grant (TURN credentials) reaches the transport before anything is dialed.
    const forRtc = cfg.iceServersForRtc ?? ((servers: RTCIceServer[]) => servers);
    const ice = new DoorwayIce(cfg.iceServers ?? [], (servers) => transport.setIceServers(forRtc(servers)));
    const connect = ice.watch(cfg.connect ?? defaultConnector(cfg, DOORWAY_TIMEOUT_MS));
    // The transport asks of the ids it links to the work the DHT asks (core/id-work.ts).
    const idWorkBits = cfg.dht?.idWorkBits;
    const transport = new WebRtcTransport({ identity: cfg.identity, network: cfg.network, iceServers: forRtc(ice.servers), clock, ...(cfg.rtcConfig ? { rtcConfig: cfg.rtcConfig } : {}), ...(cfg.iceProbe ? { iceProbe: cfg.iceProbe } : {}), ...(cfg.pathDeadMs !== undefined ? { pathDeadMs: cfg.pathDeadMs } : {}), ...(idWorkBits !== undefined ? { idWorkBits } : {}), ...(cfg.createPeer ? { createPeer: cfg.createPeer } : {}) });
    const doors = new Doorways(cfg.doorways, transport, () => clock.now());
    let lastError: Error | undefined;
    const opened = await Promise.all(cfg.doorways.map((spec) => connect(spec, cfg.identity.id).then(
      (b) => (doors.attach(spec, b), true), // at once: a newcomer may dial us while we list peers
      (err: Error) => ((lastError = err), false),
    )));
    if (doors.open.length) {
      globalThis.performance?.mark?.('vp:relay');
      stage('doorway', doors.open.map(doorwayName).join(', '));
    }
    // The one place a peer's DHT node is built: it dials through the doorways (failing at
    // once a peer they say is not there) and joins through whichever peers are found.
    const dht = createDhtNode({ selfId: cfg.identity.id, signer: cfg.identity, transport: doors.failFast(transport), clock, bootstrap: { peers: [], signals: doors }, options: dhtOptions(cfg) });
    const fromDoorways = () => doors.randomPeers(BOOTSTRAP_PEERS);
    const invited = cfg.invitePeers ?? [];
    const first = invited.length ? invited : await fromDoorways();
    const peer = new Peer(cfg.identity, transport, dht, doors, cfg, clock, opts, connect);
    // Before the join: a frame that reaches us while we join (a primary handing us a region
    // we are now nearest to) is held for the host that opens its channel (app-channels.ts).
    // Made after the join, the channels were not there to hold it: it was lost.
    peer.channels = new AppChannels(dht);
    await dht.start();
    cfg.doorways.forEach((spec, i) => { if (!opened[i]) peer.reopener.retry(spec); });
    peer.lastError = lastError;
    globalThis.performance?.mark?.('vp:peers-listed');
    stage('peers-listed', invited.length ? `${invited.length} from the invite` : `${first.length} from the doorway`);
    const deadline = t0 + opts.joinDeadlineMs;
    let failure: JoinFailure | undefined;
    let result: JoinResult = doors.open.length && first.length ? await peer.join(first, deadline) : 'failed';
    if (result === 'gone' && invited.length) {
      // The inviter and its contacts are gone: the doorways' live peers instead, at once.
      const listed = await fromDoorways();
      if (listed.length) result = await peer.join(listed, deadline); else failure = { kind: 'inviter-gone', detail: 'the doorway knows none of the invite\'s peers, and nobody else' };
    }
    if (result === 'joined') {
      void peer.joined.then(() => globalThis.performance?.mark?.('vp:dht-joined'));
      globalThis.performance?.mark?.('vp:dht-started');
      stage('dht-ready', `${peer.dht.linkInfo().length} links`);
      peer.status = peer.dht.linkInfo().length > 0 ? 'online' : 'alone';
    } else {
      // Nobody reachable: alone; newcomers will dial us, and we keep looking.
      peer.status = 'alone';
      if (!failure && !transport.gatheringEndedEmpty && peer.classify(first, invited.length > 0).kind === 'webrtc-blocked') {
        // Nothing gathered yet, gathering unfinished: slow (a loaded machine) or blocked. Slow gathers soon.
        let wait: unknown;
        await Promise.race([transport.firstCandidate, new Promise<void>((r) => { wait = clock.setTimeout(r, Math.max(0, t0 + opts.blockedVerdictMs - clock.now())); })]);
        clock.clearTimeout(wait);
      }
      peer.failure = failure ?? peer.classify(first, invited.length > 0);
      // A candidate after the verdict: the browser was slow, not blocked. Say what is true
      // now, and look for peers again (dials no longer fail at once).
      void transport.firstCandidate.then(() => {
        if (peer.stopped || peer.failure?.kind !== 'webrtc-blocked') return;
        peer.failure = peer.classify(first, invited.length > 0);
        for (const fn of peer.failureListeners) fn(peer.failure);
        peer.finder.poke();
      });
      // A TURN server's refusal of our credentials that came after the verdict (a busy
      // browser's TURN exchange ends late): said instead of "TURN failed" or "not answered".
      const offRefusal = transport.events.on('turn-refused', () => {
        if (peer.stopped || peer.status !== 'alone' || (peer.failure?.kind !== 'turn-failed' && peer.failure?.kind !== 'no-answer')) return;
        offRefusal();
        peer.failure = peer.classify(first, invited.length > 0);
        for (const fn of peer.failureListeners) fn(peer.failure);
      });
      // Unanswered when said: once the join's dials have ended, if an offer was answered (its
      // ICE then failed) that is said instead; none answered, "not answered" stays true.
      void peer.joined.then(() => {
        if (peer.stopped || peer.status !== 'alone' || peer.failure?.kind !== 'no-answer' || transport.stats.dialsAnswered === 0) return;
        peer.failure = peer.classify(first, invited.length > 0);
        for (const fn of peer.failureListeners) fn(peer.failure);
      });
    }
    peer.dht.events.on('link-open', () => {
      peer.firstLink();
      if (peer.status === 'alone') {
        // Out of being alone (a search or a newcomer linked us): look ourselves up, as a
        // join does, so the table fills from the new peer's view of the world.
        void peer.dht.findNode(peer.dht.selfId).catch(() => {});
      }
      peer.status = 'online';
    });
    peer.dht.events.on('link-close', ({ reason }) => {
      if (reason === PATH_DEAD) peer.pathDied();
      if (peer.dht.linkInfo().length > 0) return;
      peer.status = 'alone';
      if (clock.now() - peer.pathDiedAt < PATH_DEATH_RECENT_MS) peer.renewDoorways();
      peer.finder.poke();
    });
    if (peer.status === 'alone') peer.finder.poke();
    return peer;
  }

  /** The DHT joins begun by `start`, each ended or failed: what runs on once the peer is usable. */
  private readonly joins: Promise<void>[] = [];

  /**
   * Resolves once the joins `start` began have ended (every dial settled, the bucket refresh
   * done) or failed; never rejects. `start` resolves before, once the peer is usable.
   */
  get joined(): Promise<void> {
    return Promise.all(this.joins).then(() => {});
  }

  private linked = false;
  /** Peers the doorways said are not there (they left between being listed and dialed). */
  private readonly gone = new Set<string>();
  /** The first link of this peer's life (during the join, or later out of being alone): marked for benchmarks. */
  private firstLink(): void {
    if (this.linked) return;
    this.linked = true;
    globalThis.performance?.mark?.('vp:first-link');
    this.cfg.onStage?.('first-link', '');
  }

  private classify(first: NodeId[], invited: boolean): JoinFailure {
    const detail = this.lastError?.message ?? '';
    if (this.doorways.open.length === 0) return { kind: 'doorway-unreachable', detail: detail || 'no doorway configured' };
    if (typeof (globalThis as { document?: unknown }).document === 'object' && typeof globalThis.RTCPeerConnection === 'undefined') {
      return { kind: 'webrtc-unsupported', detail: 'RTCPeerConnection is not available' };
    }
    if (first.length === 0) return { kind: 'nobody-here', detail: 'the doorway lists no other peer' };
    if (first.every((id) => this.gone.has(idToHex(id)))) {
      return invited ? { kind: 'inviter-gone', detail } : { kind: 'nobody-here', detail: `the ${first.length} peers listed left before they could be reached` };
    }
    if (invited && detail.includes('known')) return { kind: 'inviter-gone', detail };
    const turn = this.transport.iceServers.some((s) => iceUrls(s).some((u) => u.startsWith('turn')));
    if (!turn && this.cfg.rtcConfig?.iceTransportPolicy === 'relay') return { kind: 'relay-needs-turn', detail };
    // A browser that gathered a candidate at any time is not blocked, whatever its dials' gather waits said.
    if (!this.transport.gathered && (detail.includes(NO_CANDIDATE) || this.transport.stats.noCandidate > 0)) return { kind: 'webrtc-blocked', detail };
    // An offer has waited far longer than an answer takes: to that peer no path was tried
    // yet, so neither "no direct path" nor "TURN failed" would be true of it, and its answer
    // may still come (the far end's relay socket deaf for a moment: its offer is resent).
    // Said so even when another peer answered (say, one whose ICE cannot pair with ours).
    // Our own TURN credentials refused (wrong, or expired) is true whatever the peers do, and fixable.
    const refused = turn ? this.transport.turnRefusal : undefined;
    if (refused !== undefined) return { kind: 'turn-refused', detail: `${refused}${detail ? ` (${detail})` : ''}` };
    const waiting = this.transport.unanswered();
    if (waiting.dials > 0 && waiting.oldestMs >= NO_ANSWER_MS) {
      return { kind: 'no-answer', detail: `${waiting.dials} offers unanswered, the oldest for ${Math.round(waiting.oldestMs)} ms, resent ${this.transport.stats.offersResent} times (${detail})` };
    }
    const late = detail.includes(NO_CANDIDATE) ? `ICE candidates came, late (a busy machine), and no connection opened (${detail})` : detail;
    return { kind: turn ? 'turn-failed' : 'no-direct-path', detail: late };
  }

  /**
   * Joins the DHT node through `peers`. 'joined': usable, at the first link and a lookup of
   * our own id through it (below); 'gone': the doorways said they know none of them (they
   * left), without waiting for the dials to time out; 'timeout': no link at the deadline;
   * 'failed': every dial failed. The rest of the DHT's join (every other dial settled, its
   * own self-lookup, the bucket refresh) runs on in the background (`joined`): a dial to a
   * listed peer that never answers waits out its 15 s timeout, and a refresh of every far
   * bucket is a dozen lookups, neither of which a first lookup needs.
   */
  private async join(peers: NodeId[], deadline: number): Promise<JoinResult> {
    if (peers.length === 0) return 'failed';
    const dht = this.dht;
    const left = new Set(peers.map(idToHex));
    let offUnknown = () => {};
    let timer: unknown;
    const unknown = new Promise<'gone'>((resolve) => {
      offUnknown = this.doorways.events.on('undeliverable', ({ to }) => {
        left.delete(idToHex(to));
        if (left.size === 0) resolve('gone');
      });
    });
    let linkedNow = () => {};
    const linked = new Promise<void>((resolve) => (linkedNow = resolve));
    const offLink = dht.events.on('link-open', () => {
      offLink();
      this.clock.clearTimeout(timer);
      this.firstLink();
      linkedNow();
    });
    if (dht.linkInfo().length > 0) linkedNow(); // a newcomer dialled us while we listed peers
    const late = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => { if (dht.linkInfo().length === 0) resolve('timeout'); }, Math.max(0, deadline - this.clock.now()));
    });
    const started = dht.join(peers).then(() => 'joined' as const);
    this.joins.push(started.then(() => {}, () => {}));
    // Usable: a link, and our own id looked up through it, which fills our neighbourhood in
    // the table and tells it of us (a host's frames routed to us need a node near us that
    // knows us). The join's own self-lookup comes again once every dial settled: cheap then.
    let ended = false;
    const usable = linked.then(() => (ended ? undefined : dht.findNode(dht.selfId))).then(() => 'joined' as const, () => 'joined' as const);
    try {
      const outcome = await Promise.race([started, usable, unknown, late]);
      started.catch(() => {}); // a dial of it may link late; once its dials time out it may fail
      if (outcome === 'joined') return outcome;
      this.lastError = new Error(outcome === 'gone' ? 'no peer of the invite is known to the doorway' : `no direct connection to any of ${peers.length} peers within ${this.opts.joinDeadlineMs} ms`);
      return outcome;
    } catch (err) {
      this.lastError = err as Error;
      return 'failed';
    } finally {
      ended = true;
      offUnknown();
      offLink();
      this.clock.clearTimeout(timer);
    }
  }

  /**
   * One search of a lone peer: the doorways' live peers and the invite's peers become
   * contacts, which the DHT dials through a doorway (as it does its known contacts while it
   * has no link). The peers it was linked to are dialled again without waiting out their
   * backoff: they dropped all at once, as when this peer's network changed.
   */
  private async search(): Promise<void> {
    if (this.doorways.open.length === 0) throw new Error('no open doorway to ask for peers');
    for (const id of this.cfg.invitePeers ?? []) this.dht.addContact(id);
    for (const id of await this.doorways.randomPeers(BOOTSTRAP_PEERS)) this.dht.addContact(id);
    this.dht.retryDialsIfAlone();
  }

  /** Node ids the doorways list (diagnostics; [] without one). */
  async relayPeers(n = 8): Promise<string[]> {
    return (await this.doorways.randomPeers(n)).map(idToHex);
  }

  /** Whether a doorway connection is open now. */
  get relayOnline(): boolean {
    return this.doorways.open.length > 0;
  }

  stop(): void {
    this.stopped = true;
    this.finder.stop();
    this.reopener.stop();
    this.dht.stop();
    this.doorways.close();
    this.transport.close();
  }
}
