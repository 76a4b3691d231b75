// Routed messages over the link overlay: originating ROUTE envelopes, forwarding them hop
// by hop, and delivering the ones addressed to us.
//
// A forwarder reads only the envelope header (route-frame.ts, checked by LinkSet before
// it gets here) and passes the inner frame on as bytes; only the destination decodes and
// schema-checks the inner frame, because only it acts on it. Next-hop rules: see
// router.ts and src/dht/README.md ("How a message finds a node").
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { LinkSet, PeerLink } from './link-set';
import { dhtCodec, MAX_IDS, type DhtMessage } from './messages';
import { encodeRoute, ROUTE_TAG, type RouteEnvelope } from './route-frame';
import { Dedup, nextHop } from './router';
import type { DhtStats } from './stats';

/** Where a message came from, and how to answer it. */
export interface Origin {
  id: NodeId;
  hex: string;
  /** Reverse path of a routed request (its reply's source route). */
  via: NodeId[];
}

export interface OverlayOptions {
  /** Hop limit of routed messages. */
  routeTtl: number;
  /** Routed message ids remembered for duplicate suppression. */
  dedupSize: number;
}

/** Reverse paths remembered (see `paths`). */
const PATH_CACHE = 32;

export class OverlayRouter {
  private readonly dedup: Dedup;
  /** Reverse paths of the last few nodes that reached us by routing: how to reach a newcomer. */
  private readonly paths = new Map<string, NodeId[]>();
  private seq = 0;

  constructor(
    private readonly selfId: NodeId,
    private readonly selfHex: string,
    private readonly links: LinkSet,
    private readonly stats: DhtStats,
    private readonly opts: OverlayOptions,
    /** A routed message for us, its inner frame decoded and schema-checked. */
    private readonly deliver: (inner: DhtMessage, from: Origin) => void,
  ) {
    this.dedup = new Dedup(opts.dedupSize);
  }

  /** Wraps an encoded inner frame for dst and hands it to the first hop; false if none. */
  send(dst: NodeId, body: Uint8Array, via: readonly NodeId[]): boolean {
    const env: RouteEnvelope = { id: this.seq, src: this.selfId, dst, ttl: this.opts.routeTtl, trace: [], via, body };
    this.seq = (this.seq + 1) >>> 0;
    this.dedup.check(`${this.selfHex}:${env.id}`);
    this.stats.routedSent++;
    return this.forward(env, true);
  }

  /** A ROUTE frame from a link (header already checked): deliver it or pass it on. */
  onRoute(env: RouteEnvelope, from: PeerLink): void {
    const srcHex = idToHex(env.src);
    if (!this.dedup.check(`${srcHex}:${env.id}`)) {
      this.stats.dropped.duplicate++;
      return;
    }
    if (srcHex === this.selfHex) {
      // Not a loop of ours (the dedup above holds those): a forged source.
      this.stats.dropped.invalid++;
      return;
    }
    if (idEquals(env.dst, this.selfId)) return this.arrive(env, srcHex, from);
    if (env.ttl <= 1 || env.trace.length >= MAX_IDS) {
      this.stats.dropped.ttl++;
      return;
    }
    this.stats.routedForwarded++;
    let skip = 0;
    while (skip < env.via.length && idEquals(env.via[skip]!, this.selfId)) skip++;
    const via = skip > 0 ? env.via.slice(skip) : env.via;
    this.forward({ ...env, via, ttl: env.ttl - 1, trace: [...env.trace, this.selfId] });
  }

  /** Ours: decode the inner frame (the schema check of what we act on) and deliver it. */
  private arrive(env: RouteEnvelope, srcHex: string, from: PeerLink): void {
    if (env.body[0] === ROUTE_TAG) {
      this.stats.dropped.nested++;
      return;
    }
    let inner: DhtMessage;
    try {
      inner = dhtCodec.decode(env.body);
    } catch (e) {
      this.stats.dropped[(e as { reason?: 'malformed' }).reason ?? 'malformed']++;
      return;
    }
    this.stats.routedDelivered++;
    // Header ids are views into the frame: keep copies.
    const via = env.trace.length > 0 ? env.trace.map((t) => t.slice()).reverse() : [from.id];
    this.paths.delete(srcHex);
    this.paths.set(srcHex, via);
    if (this.paths.size > PATH_CACHE) this.paths.delete(this.paths.keys().next().value!);
    this.deliver(inner, { id: env.src.slice(), hex: srcHex, via });
  }

  /**
   * The remembered reverse path to dst, from after the last node this message already
   * passed: a path through its source or a forwarder would hand it back to them (a loop
   * the duplicate check then drops, losing the message).
   */
  private unpassedPath(dstHex: string, env: RouteEnvelope): NodeId[] {
    const path = this.paths.get(dstHex);
    if (!path) return [];
    let from = 0;
    for (let i = 0; i < path.length; i++) {
      const n = path[i]!;
      if (idEquals(n, env.src) || idEquals(n, this.selfId) || env.trace.some((t) => idEquals(t, n))) from = i + 1;
    }
    return from === 0 ? path : path.slice(from);
  }

  private forward(env: RouteEnvelope, origin = false): boolean {
    // To the destination directly if linked; else toward the next waypoint (direct link or
    // strict greedy progress); failing that, along the reverse path of the destination's
    // last routed message to us (a newcomer nobody near it links to yet); else a detour.
    const links = this.links.map;
    let via = env.via;
    // Nodes the message passed (compared as bytes: cheaper than hex per hop).
    const passed = (l: PeerLink) => idEquals(l.id, env.src) || env.trace.some((t) => idEquals(t, l.id));
    const dstHex = idToHex(env.dst);
    let hop = links.get(dstHex) ?? (via.length > 0 ? nextHop(this.selfId, via[0]!, links, false, passed) : nextHop(this.selfId, env.dst, links, false, passed, dstHex));
    if (!hop) {
      const path = this.unpassedPath(dstHex, env);
      if (path.length > 0) {
        via = path;
        hop = nextHop(this.selfId, path[0]!, links, false, passed);
      }
    }
    // Detour: at a dead end (our table lacks the destination's bucket), hand it to the
    // closest link it has not passed yet, even if no closer than us. The trace rules out
    // loops; only the first half of the hop limit may be spent this way.
    if (!hop && (origin || env.ttl > this.opts.routeTtl / 2)) hop = nextHop(this.selfId, via[0] ?? env.dst, links, true, passed);
    if (!hop) {
      this.stats.dropped.noRoute++;
      return false;
    }
    if (via.length > 0 && idEquals(hop.id, via[0]!)) via = via.slice(1);
    let frame: Uint8Array;
    try {
      frame = encodeRoute(via === env.via ? env : { ...env, via });
    } catch {
      this.stats.dropped.oversized++;
      return false;
    }
    return this.links.sendFrame(hop, frame);
  }
}
