// Routed messages over the link overlay: originating ROUTE envelopes, forwarding them hop
// by hop, and delivering the ones addressed to us.
//
// A forwarder reads only the envelope header (route-frame.ts, checked by LinkSet before
// it gets here) and passes the inner frame on as bytes; only the destination decodes and
// schema-checks the inner frame, because only it acts on it. Next-hop rules: see
// router.ts and src/dht/README.md ("How a message finds a node").
//
// With a signer, every message we originate (requests and replies alike) is signed once,
// and the destination verifies it (route-auth.ts) before delivering; forwarders never
// sign or verify. Signing and verifying are async (WebCrypto): messages are sent, and
// delivered, in the order they were originated or arrived all the same.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { LinkSet, PeerLink } from './link-set';
import { dhtCodec, MAX_FRAME, MAX_IDS, type DhtMessage } from './messages';
import { RouteVerifier, type RouteSigner } from './route-auth';
import { encodeRoute, ROUTE_TAG, routeFrameSize, signedRouteData, type RouteEnvelope } from './route-frame';
import { isDataFrame, isRequestFrame, type RouteRecord } from './route-record';
import { Dedup, nextHop, ReplayWindow } from './router';
import { firstHop, TriedHops } from './tried-hops';
import type { DhtStats } from './stats';
import { frameType, tally } from './frame-types';

/** Where a message came from, and how to answer it. */
export interface Origin {
  id: NodeId;
  hex: string;
  /** Reverse path of a routed request (its reply's source route). */
  via: NodeId[];
}

export interface OverlayOptions {
  /** Wall-clock ms since the epoch (timestamps must compare across tabs; Clock.now need not). */
  wallNow: () => number;
  /** Forward each message by one of the equally good links, drawn by its id (router.ts spreadHop). */
  spreadRoutes: boolean;
}

/** Source authentication of routed messages (route-auth.ts). */
export interface RouteAuthOptions {
  /** Signs the messages we originate; without one they go unsigned. */
  signer?: RouteSigner;
  /**
   * Drop (and count, `dropped.unsigned`) unsigned messages for us. A signed one is verified
   * either way, and dropped (`dropped.forged`) if it fails.
   */
  requireSigned: boolean;
  /**
   * Whether a message from this source may be forwarded or delivered (id-gate.ts: its id
   * shows work); without it, every source may. Checked at every hop: an id nobody would
   * link to cannot use the overlay either.
   */
  admitSource?: (src: NodeId) => boolean;
}

/**
 * Links that swallow what we send (overlay-router.ts `unanswered`): a link whose peer has
 * sent nothing for `ms` since our first frame to it is passed over as a hop, like an avoided
 * one, and `probe` is asked to PING it (it closes the link if that goes unanswered).
 */
export interface UnansweredHops {
  ms: number;
  now: () => number;
  probe: (pl: PeerLink) => void;
}

/** Hop limit of routed messages. */
const ROUTE_TTL = 32;
/** Routed message ids remembered for duplicate suppression. */
const DEDUP_SIZE = 256;
/**
 * A signed routed message for us is refused (`dropped.stale`) when its signed timestamp is
 * further than this from our wall clock either way: the bound on replays after they left
 * the duplicate window, and the clock skew between two tabs' machines that is tolerated.
 */
const MAX_ROUTE_AGE_MS = 5 * 60_000;
/**
 * Signed messages for us remembered (their keys) against replay: a tab receiving 50 a
 * second keeps five minutes of them. Past that the window's floor rises (router.ts ReplayWindow).
 */
const REPLAY_WINDOW = 16_384;

/** A link whose record (route-record.ts) is below this is a detour's last resort. */
const POOR_RECORD = 0.3;

/** Nodes avoided as hops at once (see `avoided`). */
const MAX_AVOIDED = 64;
/** Reverse paths remembered (see `paths`). */
const PATH_CACHE = 32;

const now = (): number => globalThis.performance?.now() ?? Date.now();

export class OverlayRouter {
  private readonly dedup: Dedup;
  /** Signed messages for us: kept for their age bound, not only the last DEDUP_SIZE. */
  private readonly replays: ReplayWindow;
  /**
   * Nodes taken for dead until a probe says otherwise (the caller lets them go): not
   * used as a hop toward anyone else while another link makes progress. A tab that crashed
   * keeps its links open at our end for up to the heartbeat timeout, and a node close to a
   * region's key is the first hop toward that region's other hosts: every frame routed
   * through it was lost (measured: 1 s failovers became 2 s in sim_failover).
   */
  private readonly avoided = new Set<string>();
  /** Reverse paths of the last few nodes that reached us by routing: how to reach a newcomer. */
  private readonly paths = new Map<string, NodeId[]>();
  /** The first hops our recent requests to each destination left by: a retry avoids them. */
  private readonly tried = new TriedHops();
  private seq = 0;
  private readonly verifier = new RouteVerifier();
  /** The last of our signed messages in line to be sent (they leave in send order). */
  private outbox: Promise<void> = Promise.resolve();
  /** The last signed message for us in line to be delivered (they arrive in frame order). */
  private inbox: Promise<void> = Promise.resolve();

  constructor(
    private readonly selfId: NodeId,
    private readonly selfHex: string,
    private readonly links: LinkSet,
    private readonly stats: DhtStats,
    private readonly opts: OverlayOptions,
    /** A routed message for us, its inner frame decoded and schema-checked (and its source verified, if signed). */
    private readonly deliver: (inner: DhtMessage, from: Origin) => void,
    private readonly auth: RouteAuthOptions = { requireSigned: false },
    /** Our links' record of answered requests (route-record.ts); without one, none is kept. */
    private readonly record?: RouteRecord,
    /** Links that have answered nothing for a while are passed over and probed; without it, never. */
    private readonly watch?: UnansweredHops,
  ) {
    this.dedup = new Dedup(DEDUP_SIZE);
    this.replays = new ReplayWindow(REPLAY_WINDOW, MAX_ROUTE_AGE_MS / 1000);
    // A signing node's identity outlives a tab: a reload starting again at 0 would have its
    // first messages taken for duplicates (or replays) by peers that still remember the
    // last ones. (Unsigned simulator nodes keep 0: their runs replay per seed.)
    if (auth.signer) this.seq = crypto.getRandomValues(new Uint32Array(1))[0]!;
  }

  /**
   * Wraps an encoded inner frame for dst and hands it to the first hop; false if none.
   * `detour` n > 0: the first hop is our n-th best link toward the first waypoint (or dst)
   * rather than the best, so a retry leaves by another way (a forwarder that drops what it
   * is given sits on the usual route, not on this one).
   */
  send(dst: NodeId, body: Uint8Array, via: readonly NodeId[], detour = 0): boolean {
    const env: RouteEnvelope = { id: this.seq, ts: this.nowS(), src: this.selfId, dst, ttl: ROUTE_TTL, trace: [], via, body };
    this.seq = (this.seq + 1) >>> 0;
    this.dedup.check(`${this.selfHex}:${env.id}`);
    this.stats.routedSent++;
    tally(this.stats.routedSentByType, frameType(body));
    const signer = this.auth.signer;
    return signer ? this.signAndForward(env, signer, detour) : this.forward(env, detour);
  }

  /**
   * Signs env, then forwards it. What send() answers (a frame that fits, a first hop) is
   * checked now; a link that closes while we sign is a dead end then, counted as ever.
   */
  private signAndForward(env: RouteEnvelope, signer: RouteSigner, detour: number): boolean {
    if (routeFrameSize(env.via.length, env.body.length, signer.alg) > MAX_FRAME) {
      this.stats.dropped.oversized++;
      return false;
    }
    if (!this.nextHop(env)) {
      this.stats.dropped.noRoute++;
      return false;
    }
    const t0 = now();
    let signed: Promise<RouteEnvelope | null>;
    try {
      signed = signer.sign(signedRouteData(signer.alg, env)).then(
        (signature) => {
          this.stats.routeSignMs += now() - t0;
          return { ...env, auth: { alg: signer.alg, publicKey: signer.publicKey, signature } };
        },
        () => null,
      );
    } catch {
      signed = Promise.resolve(null);
    }
    // Signed in parallel, sent in order: a message signed sooner does not overtake.
    this.outbox = this.outbox
      .then(() => signed)
      .then((e) => {
        if (!e) {
          this.stats.dropped.unsigned++;
          return;
        }
        this.stats.routedSigned++;
        this.forward(e, detour);
      })
      .catch(() => {});
    return true;
  }

  /** A ROUTE frame from a link (header already checked): deliver it or pass it on. */
  onRoute(env: RouteEnvelope, from: PeerLink): void {
    if (this.auth.admitSource && !this.auth.admitSource(env.src)) return;
    const srcHex = idToHex(env.src);
    this.record?.arrived(srcHex, idToHex(env.dst), from.hex);
    if ((env.auth || this.auth.requireSigned) && idEquals(env.dst, this.selfId)) return this.arriveSigned(env, srcHex, from);
    const fresh = this.dedup.check(`${srcHex}:${env.id}`);
    // Seen before, or sent by us: only a message handed back from a dead end may come again.
    if ((!fresh || srcHex === this.selfHex) && !this.handedBack(env, from)) {
      // A fresh one claiming our id as its source is forged; a seen one is a duplicate.
      this.stats.dropped[fresh ? 'invalid' : 'duplicate']++;
      return;
    }
    if (idEquals(env.dst, this.selfId)) return this.arrive(env, srcHex, from);
    if (env.ttl <= 1 || env.trace.length >= MAX_IDS) {
      this.stats.dropped.ttl++;
      return;
    }
    this.stats.routedForwarded++;
    this.forward({ ...env, ttl: env.ttl - 1, trace: [...env.trace, this.selfId] });
  }

  /**
   * Whether `from` hands back a message we passed it on from (backtracking, see
   * `handBack`): it is the last node on the message's path, and we are on it before that.
   * Forwarding never hands a message to a node it passed, so nothing else comes back.
   * (A peer could forge such a frame: forwarders do not check signatures, see README.)
   */
  private handedBack(env: RouteEnvelope, from: PeerLink): boolean {
    const path = [env.src, ...env.trace];
    const last = path.length - 1;
    return idEquals(path[last]!, from.id) && path.slice(0, last).some((n) => idEquals(n, this.selfId));
  }

  private nowS(): number {
    return Math.floor(this.opts.wallNow() / 1000);
  }

  /** Ours: decode the inner frame (the schema check of what we act on) and deliver it. */
  private arrive(env: RouteEnvelope, srcHex: string, from: PeerLink): void {
    const inner = this.decodeInner(env);
    if (inner) this.deliverInner(env, inner, srcHex, from);
  }

  /**
   * Ours, signed (or it must be): decoded at once, delivered once the signature checks.
   * Only a verified message enters the duplicate window, so a forged copy sent ahead
   * cannot make the real one look like a duplicate.
   */
  private arriveSigned(env: RouteEnvelope, srcHex: string, from: PeerLink): void {
    const key = `${srcHex}:${env.id}`;
    const ts = env.ts ?? 0;
    if (this.replays.judge(key, ts, this.nowS()) === 'duplicate') {
      this.stats.dropped.duplicate++;
      return;
    }
    if (srcHex === this.selfHex) {
      // Nothing we send is addressed to us: forged.
      this.stats.dropped.invalid++;
      return;
    }
    if (!env.auth) {
      this.stats.dropped.unsigned++;
      return;
    }
    const inner = this.decodeInner(env);
    if (!inner) return;
    const t0 = now();
    const verified = this.verifier.verify(env, from.hex).then((ok) => {
      this.stats.routeVerifyMs += now() - t0;
      return ok;
    });
    // Verified in parallel, delivered in arrival order.
    this.inbox = this.inbox
      .then(() => verified)
      .then((ok) => {
        // Judged again once verified: a copy may have got in first, and only a genuine
        // message's timestamp says anything (a forged one is counted as forged).
        const seen = ok ? this.replays.judge(key, ts, this.nowS()) : 'forged';
        if (seen !== 'fresh') this.stats.dropped[seen]++;
        else {
          this.replays.remember(key, ts);
          this.stats.routedVerified++;
          this.deliverInner(env, inner, srcHex, from);
        }
      })
      .catch(() => {});
  }

  /** The inner frame, decoded and schema-checked; null (counted) if bad. */
  private decodeInner(env: RouteEnvelope): DhtMessage | null {
    if (env.body[0] === ROUTE_TAG) {
      this.stats.dropped.nested++;
      return null;
    }
    try {
      return dhtCodec.decode(env.body);
    } catch (e) {
      this.stats.dropped[(e as { reason?: 'malformed' }).reason ?? 'malformed']++;
      return null;
    }
  }

  private deliverInner(env: RouteEnvelope, inner: DhtMessage, srcHex: string, from: PeerLink): void {
    this.stats.routedDelivered++;
    tally(this.stats.routedDeliveredByType, inner.t);
    // Header ids are views into the frame: keep copies.
    const back = withoutLoops(env.src, env.trace);
    const via = back.length > 0 ? back.map((t) => t.slice()).reverse() : [from.id];
    this.paths.delete(srcHex);
    this.paths.set(srcHex, via);
    if (this.paths.size > PATH_CACHE) this.paths.delete(this.paths.keys().next().value!);
    this.deliver(inner, { id: env.src.slice(), hex: srcHex, via });
  }

  /**
   * The waypoints of `path` still ahead: those after the last node the message already
   * passed (its source, a forwarder, or us). Heading for a passed node is a loop the
   * duplicate check then drops, losing the message; and a message that reached a later
   * waypoint first (greedy routing toward an earlier one went through it) needs none of
   * the earlier ones.
   */
  private ahead(path: readonly NodeId[], env: RouteEnvelope): readonly NodeId[] {
    let from = 0;
    for (let i = 0; i < path.length; i++) {
      const n = path[i]!;
      if (idEquals(n, env.src) || idEquals(n, this.selfId) || env.trace.some((t) => idEquals(t, n))) from = i + 1;
    }
    return from === 0 ? path : path.slice(from);
  }

  /** Routes avoid `hex` as a hop (not as a destination) until `unavoid` (bounded: the oldest is let go). */
  avoid(hex: string): void {
    this.avoided.delete(hex);
    this.avoided.add(hex);
    if (this.avoided.size > MAX_AVOIDED) this.avoided.delete(this.avoided.values().next().value!);
  }

  /** `hex` answered, or its link is gone: routes may pass through it again. */
  unavoid(hex: string): void {
    this.avoided.delete(hex);
  }

  /** Hands the message to its next hop (ours: `detour`, see send); at a dead end, back to the node it came from. */
  private forward(env: RouteEnvelope, detour = 0): boolean {
    const next = (detour > 0 && this.firstHop(env, detour)) || this.nextHop(env);
    if (!next) return this.handBack(env);
    if (isRequestFrame(env.body)) {
      this.record?.sent(idToHex(env.src), idToHex(env.dst), next.hop.hex);
      if (env.trace.length === 0 && idEquals(env.src, this.selfId)) this.tried.note(idToHex(env.dst), next.hop.hex);
    }
    return this.sendOn(next.hop, next.via === env.via ? env : { ...env, via: next.via });
  }

  /**
   * The next hop and the waypoints left after it. To the destination directly if linked;
   * else toward the next waypoint (direct link or strict greedy progress); failing that,
   * along the reverse path of the destination's last routed message to us (a newcomer
   * nobody near it links to yet); else a detour. Never to a node the message passed.
   */
  private nextHop(env: RouteEnvelope): { hop: PeerLink; via: readonly NodeId[] } | null {
    const links = this.links.map;
    let via = this.ahead(env.via, env);
    // Nodes the message passed (compared as bytes: cheaper than hex per hop).
    const passedOnly = (l: PeerLink) => idEquals(l.id, env.src) || env.trace.some((t) => idEquals(t, l.id));
    // Nodes taken for dead, and links that swallow what we send, are passed over too, unless
    // no other link makes progress.
    const passed = this.avoided.size === 0 && !this.watch ? passedOnly : (l: PeerLink) => passedOnly(l) || this.shunned(l);
    const dstHex = idToHex(env.dst);
    // Spread: each message by its own route among equally good links (router.ts spreadHop);
    // salted by the hop too, so two forwarders of one message draw apart.
    const spread = this.opts.spreadRoutes ? { salt: (env.id ^ Math.imul(env.trace.length + 1, 0x85ebca6b)) >>> 0, score: this.score } : undefined;
    const greedy = (p: (l: PeerLink) => boolean) => (via.length > 0 ? nextHop(this.selfId, via[0]!, links, false, p, undefined, spread) : nextHop(this.selfId, env.dst, links, false, p, dstHex, spread));
    let hop = links.get(dstHex) ?? greedy(passed) ?? (passed === passedOnly ? null : greedy(passedOnly));
    if (!hop) {
      const path = this.ahead(this.paths.get(dstHex) ?? [], env);
      if (path.length > 0) {
        via = path;
        hop = nextHop(this.selfId, path[0]!, links, false, passed);
      }
    }
    // Detour: at a dead end (our table lacks the destination's bucket), hand it to the
    // closest link it has not passed yet, even if no closer than us. The trace rules out
    // loops; only the first half of the hop limit may be spent this way (the source may
    // always take one).
    if (!hop && (idEquals(env.src, this.selfId) || this.mayDetour(env))) hop = nextHop(this.selfId, via[0] ?? env.dst, links, true, passed);
    if (!hop) return null;
    return { hop, via: via.length > 0 && idEquals(hop.id, via[0]!) ? via.slice(1) : via };
  }

  /** A retry's first hop (tried-hops.ts firstHop): poorly recorded and avoided links last. */
  private firstHop(env: RouteEnvelope, n: number): { hop: PeerLink; via: readonly NodeId[] } | null {
    const hop = firstHop([...this.links.map.values()].filter((l) => !l.readOnly || idEquals(l.id, env.via[0] ?? env.dst)), env.via[0] ?? env.dst, this.tried.of(idToHex(env.dst)), (l) => this.score(l) < POOR_RECORD || this.shunned(l), n);
    return hop && { hop, via: env.via.length > 0 && idEquals(hop.id, env.via[0]!) ? env.via.slice(1) : env.via };
  }

  /** Whether a link is passed over as a hop: avoided (taken for dead), or `unanswered`. */
  private shunned(l: PeerLink): boolean {
    return this.avoided.has(l.hex) || this.unanswered(l);
  }

  /**
   * Whether `l` has answered nothing for `watch.ms` since our first frame to it: a peer that
   * died silently (a crashed tab) keeps its link open at our end until the heartbeat timeout
   * (15 s in the app, 180 s in the large simulations), and every frame routed into it is
   * lost. A live peer sends something back within a round trip (replies come back the way
   * their requests went; data it passed on may not be answered through it) or answers the
   * PING asked for here, and is used again; a dead one
   * is closed when the PING times out. (Judging only requests whose replies are overdue,
   * route-record.ts, waits the RPC timeout and a probe: ~4 s, while every route through the
   * dead link to its side of the network is lost.)
   */
  private unanswered(l: PeerLink): boolean {
    const w = this.watch;
    if (!w || l.unansweredSince === undefined || w.now() - l.unansweredSince < w.ms) return false;
    w.probe(l);
    return true;
  }

  /** A link's record of answered requests (route-record.ts); all alike without a record. */
  private readonly score = (l: PeerLink): number => this.record?.score(l.hex) ?? 0.5;

  /** Whether the message may still leave the greedy path: in the first half of its hop limit. */
  private mayDetour(env: RouteEnvelope): boolean {
    return env.ttl > ROUTE_TTL / 2;
  }

  /**
   * Backtracking: we are a dead end (every link leads back to a node the message passed,
   * e.g. a newcomer whose only link is its bootstrap, or a node whose peers just closed
   * their links to it for budget), so the message goes back to the node that first handed
   * it to us (or, if we closed that link meanwhile, the last one before it we still hold
   * a link to). Our id is on its trace now, so that node tries its other links; a message
   * handed back to its source is dropped there if the source has no other way either.
   */
  private handBack(env: RouteEnvelope): boolean {
    const path = [env.src, ...env.trace];
    const at = path.findIndex((n) => idEquals(n, this.selfId));
    let back: PeerLink | undefined;
    for (let i = at - 1; i >= 0 && !back && this.mayDetour(env); i--) back = this.links.get(idToHex(path[i]!));
    if (!back) {
      this.stats.dropped.noRoute++;
      return false;
    }
    this.stats.routedHandedBack++;
    return this.sendOn(back, env);
  }

  /** Encodes and sends; every failure is counted, so no message is lost silently. */
  private sendOn(hop: PeerLink, env: RouteEnvelope): boolean {
    let frame: Uint8Array;
    try {
      frame = encodeRoute(env);
    } catch {
      this.stats.dropped.oversized++;
      return false;
    }
    if (this.links.sendFrame(hop, frame, watchedHop(env, hop, this.selfId))) return true;
    // A link in the map is open (links emit close as they stop being open), so this is a
    // link implementation that broke that rule: still a lost message, and counted.
    this.stats.dropped.noRoute++;
    return false;
  }
}

/**
 * Whether handing `env` to `hop` starts the watch of its link (link-set.ts `unansweredSince`,
 * `unanswered`): a request, whose reply comes back this way, and application data of
 * another node's that we forward to a hop that must pass it on in turn (not its
 * destination). A crashed tab near a region's key stays linked at its neighbours' ends: the
 * subscriber of the new primary routed its SUBSCRIBE and edits through one of them, which
 * handed them into the dead one until its heartbeat probe closed that link 4.3 s after the
 * death (sim_failover_silent seed 28: 5,789 ms from the kill to an edit confirmed, 2,013 with
 * this). Nothing else tells a forwarder. Our own data, and data for `hop` itself, are left
 * to whoever waits for an answer (a client, a claimant: they suspect silent nodes); with
 * our own data watched too, the crowd that meets the per-link frame limit
 * (hosting-crowd-sim.test.ts, its MOVEs one-way to the primary) no longer met it.
 */
function watchedHop(env: RouteEnvelope, hop: PeerLink, selfId: NodeId): boolean {
  return isRequestFrame(env.body) || (isDataFrame(env.body) && !idEquals(env.src, selfId) && !idEquals(hop.id, env.dst));
}

/**
 * A message's trace with its loops cut out: a node that appears twice was left and came
 * back to (a dead end handed the message back), and the reverse path skips that detour.
 */
function withoutLoops(src: NodeId, trace: readonly NodeId[]): NodeId[] {
  const path: NodeId[] = [src];
  for (const t of trace) {
    const i = path.findIndex((n) => idEquals(n, t));
    if (i >= 0) path.length = i + 1;
    else path.push(t);
  }
  return path.slice(1);
}
