// The node's live links: attach (with the duplicate rule and inbound admission), frame
// decoding with junk accounting, and sending. Every frame from a link is checked here
// before the node sees it: codec frames are decoded and schema-checked whole; a ROUTE
// frame only has its header checked (route-frame.ts), its inner frame is checked by the
// node that consumes it. A link that keeps sending junk is closed.
import type { Clock } from '../core/clock';
import { CodecError } from '../core/codec';
import { TokenBucket } from '../core/token-bucket';
import { bucketIndex, compareDistance, idToHex, type NodeId } from '../core/node-id';
import type { Link } from '../net/link';
import { admitInbound, type HeldLink, type LinkBudgetOptions } from './link-budget';
import { LinkPins } from './link-pins';
import { dhtCodec, type DhtMessage } from './messages';
import { isRouteFrame, readRoute, type RouteEnvelope } from './route-frame';
import { isRequestFrame } from './route-record';
import type { DhtStats } from './stats';
import { frameType, tally } from './frame-types';
import { BUDGET_CLOSE, DUPLICATE_CLOSE, FLOOD_CLOSE, JUNK_CLOSE, PEER_RETIRED } from '../net/close-reasons';

/**
 * PINGs and PONGs a link may send us past its frame limit (per second, and burst): a probe
 * and its answer (liveness.ts) say whether the peer is alive, and a peer sending more than the
 * limit is busy, not dead. Dropped with the rest, a probe's PONG at a backup whose primary's
 * crowd traffic met the limit closed the live link (no answer to a probe), and the primary
 * moved its host set (hosting-crowd-sim.test.ts: 2 reconfigs with MOVE at 20 a second). One
 * probe is out per link at a time, so honest liveness frames stay far below this.
 */
const LIVENESS_FRAMES = { perSec: 2, burst: 4 };

/**
 * A link to a peer open this long when the peer opens a second one is one the peer lost
 * (LinkSet.attach): longer than any dial takes (the transport gives one up after 15 s).
 */
export const ESTABLISHED_LINK_MS = 20_000;

/** What one link may send us (docs/DESIGN.md: size and rate limits hold per link). */
export interface LinkLimits {
  /** Undecodable frames after which a link is closed. */
  maxJunkFrames: number;
  /** Frames per second a link may send (sustained), and its burst. */
  linkFramesPerSec: number;
  linkFrameBurst: number;
  /** Bytes per second a link may send (sustained), and its burst. */
  linkBytesPerSec: number;
  linkByteBurst: number;
  /** Frames dropped over the limits after which the link is closed. */
  maxFloodDrops: number;
  /**
   * A link we pinned (a peer our own work talks to often: a region's primary pins its
   * backups) may send this many times linkFramesPerSec and linkFrameBurst. A crowd's MOVEs
   * converge on its region's primary, and its nearest neighbours, its backups, forward most
   * of them: 1,000 a second over one link at 200 players when this factor was set (10 MOVEs
   * a second per player), and what the limit dropped at the primary there was as likely an
   * EDIT (timed out) as a MOVE. Players send 20 a second now (region/move-rate.ts): a crowd
   * of 200 has not been measured against this factor since.
   */
  pinnedFramesFactor: number;
}

/**
 * Ten to a hundred times what a busy honest peer sends: a region primary's deltas, players
 * and heartbeats are ~50 frames/s, a full snapshot at most 2 MiB at once; forwarding for
 * others adds little per link (10,000-node simulator: ~0.5 frames/s per link on average).
 */
export const LINK_LIMIT_DEFAULTS: LinkLimits = {
  maxJunkFrames: 8,
  linkFramesPerSec: 1000,
  linkFrameBurst: 2000,
  linkBytesPerSec: 4 * 1024 * 1024,
  linkByteBurst: 8 * 1024 * 1024,
  maxFloodDrops: 256,
  pinnedFramesFactor: 4,
};

export interface PeerLink extends HeldLink {
  readonly link: Link;
  readonly outbound: boolean;
  lastRx: number;
  /**
   * When we first handed this link a request (direct, or routed: its reply comes back this
   * way), or data we forward for it to pass on (overlay-router.ts `watchedHop`), since its peer
   * last sent us anything; undefined once it has spoken since. A peer that died silently
   * answers nothing, so this ages while we keep sending into it (overlay-router.ts
   * `unanswered`). Replies, PONGs, our own data and data for the peer itself do not set it.
   */
  unansweredSince: number | undefined;
  junk: number;
  /** Frames dropped for rate; the frame and byte budgets they were measured against. */
  floodDrops: number;
  frames: TokenBucket;
  /** What a pinned link may send on top of `frames` (LinkLimits.pinnedFramesFactor). */
  pinnedFrames: TokenBucket;
  /** PINGs and PONGs past `frames` (LIVENESS_FRAMES). */
  livenessFrames: TokenBucket;
  bytes: TokenBucket;
  rttMs: number | null;
  pinging: boolean;
  closing: boolean;
}

export interface LinkSetHooks {
  onMessage(msg: DhtMessage, from: PeerLink): void;
  /** A ROUTE frame, header checked; ids and body are views into the frame. */
  onRoute(env: RouteEnvelope, from: PeerLink): void;
  onOpen(pl: PeerLink): void;
  onClose(pl: PeerLink, reason: string, byUs: boolean): void;
  /** Whether the peer `hex` told us it is read-only (read-only-peers.ts): its link opens as such. */
  isReadOnly?(hex: string): boolean;
}

export class LinkSet {
  readonly map = new Map<string, PeerLink>();
  /** Peers our application pinned, by id: a link to one of them opens pinned, whichever end dialled it. */
  readonly pins: LinkPins;

  constructor(
    private readonly selfId: NodeId,
    private readonly clock: Clock,
    private readonly stats: DhtStats,
    private readonly opts: LinkBudgetOptions & LinkLimits,
    private readonly hooks: LinkSetHooks,
    private readonly drainMs = 10_000,
  ) {
    this.pins = new LinkPins(opts.maxPinnedLinks);
  }

  get size(): number {
    return this.map.size;
  }

  get(hex: string): PeerLink | undefined {
    return this.map.get(hex);
  }

  /**
   * Pins the peer `hex` for `owner` (link-pins.ts), its link too if we hold one. False when
   * refused: `maxPinnedLinks` peers are pinned already (counted).
   */
  pin(hex: string, owner: string): boolean {
    if (!this.pins.pin(hex, owner)) {
      this.stats.pinsRefused++;
      return false;
    }
    const pl = this.map.get(hex);
    if (pl) pl.pinned = true;
    return true;
  }

  /** `owner` lets go of its pin of `hex`; once nobody pins it, the budget may retire its link. */
  unpin(hex: string, owner: string): void {
    if (!this.pins.unpin(hex, owner)) return;
    const pl = this.map.get(hex);
    if (pl) pl.pinned = false;
  }

  /**
   * Takes a freshly opened link. Returns false if it was refused (and closed). A link to a
   * pinned peer (or attached with `pinned`, as tests do) opens pinned and is never refused.
   */
  attach(link: Link, outbound: boolean, pinned = false): boolean {
    const hex = idToHex(link.remoteId);
    const existing = this.map.get(hex);
    const now = this.clock.now();
    pinned ||= this.pins.has(hex);
    const readOnly = this.hooks.isReadOnly?.(hex) ?? false;
    const pl: PeerLink = {
      id: link.remoteId,
      hex,
      bucket: bucketIndex(this.selfId, link.remoteId),
      pinned: pinned || (existing?.pinned ?? false),
      openedAt: now,
      readOnly,
      link,
      outbound,
      lastRx: now,
      unansweredSince: undefined,
      junk: 0,
      floodDrops: 0,
      frames: new TokenBucket(this.opts.linkFramesPerSec, this.opts.linkFrameBurst, now),
      pinnedFrames: new TokenBucket(this.opts.linkFramesPerSec * (this.opts.pinnedFramesFactor - 1), this.opts.linkFrameBurst * (this.opts.pinnedFramesFactor - 1), now),
      livenessFrames: new TokenBucket(LIVENESS_FRAMES.perSec, LIVENESS_FRAMES.burst, now),
      bytes: new TokenBucket(this.opts.linkBytesPerSec, this.opts.linkByteBurst, now),
      rttMs: null,
      pinging: false,
      closing: false,
    };
    if (existing) {
      // Both ends dialled at once: keep the link dialled by the lower id, on both sides. But
      // a peer dials only a peer it holds no link to, and two dials that crossed open within
      // one dial's time of each other: a second link long after ours opened means the peer
      // lost ours (its network changed and its path watch closed it), and ours is most
      // likely dead too. The new one replaces it, whoever dialled (the peer keeps it: it
      // holds no other).
      const established = now - existing.openedAt >= ESTABLISHED_LINK_MS;
      const selfLower = compareDistance(this.selfId, link.remoteId, new Uint8Array(this.selfId.length)) < 0;
      if (!established && outbound !== selfLower) {
        this.letGo(pl, DUPLICATE_CLOSE, true);
        return false;
      }
      if (established) this.stats.linksReplaced++;
      this.map.delete(hex);
      this.letGo(existing, DUPLICATE_CLOSE);
    } else if (!outbound && !pinned && !readOnly) {
      const admit = admitInbound(this.selfId, link.remoteId, this.map, this.opts);
      if (!admit.accept) {
        // The dialer took the link as open the moment its dial succeeded and may already
        // have handed frames to it: turned down like a retired link, not cut.
        this.stats.linksRefused++;
        this.letGo(pl, BUDGET_CLOSE, true);
        return false;
      }
      if (admit.close) this.retire(admit.close, BUDGET_CLOSE);
    }
    if (!link.open) return false;
    this.map.set(hex, pl);
    this.stats.linksOpened++;
    link.events.on('message', (data) => this.onFrame(pl, data));
    link.events.on('close', ({ reason }) => {
      if (this.map.get(hex) !== pl) return;
      this.map.delete(hex);
      this.stats.linksClosed++;
      this.hooks.onClose(pl, reason, pl.closing);
    });
    this.hooks.onOpen(pl);
    if (readOnly) this.capReadOnly();
    return true;
  }

  /**
   * Marks the link to `hex` as a read-only peer's, or no longer (read-only-peers.ts): such a
   * link is outside the budget and covers no bucket (link-budget.ts), and past
   * `maxReadOnlyLinks` of them unpinned the oldest is retired.
   */
  setReadOnly(hex: string, readOnly: boolean): void {
    const pl = this.map.get(hex);
    if (!pl || (pl.readOnly ?? false) === readOnly) return;
    pl.readOnly = readOnly;
    if (readOnly) this.capReadOnly();
  }

  private capReadOnly(): void {
    let held = 0;
    let oldest: PeerLink | undefined;
    for (const l of this.map.values()) {
      if (!l.readOnly || l.pinned) continue;
      held++;
      if (!oldest || l.openedAt < oldest.openedAt) oldest = l;
    }
    if (held <= this.opts.maxReadOnlyLinks || !oldest) return;
    this.stats.readOnlyLinksRetired++;
    this.retire(oldest.hex, BUDGET_CLOSE);
  }

  /**
   * Closes a healthy link without losing what is in flight on it (budget closes): we stop
   * sending on it, tell the other end (CLOSING) so it stops too, keep reading it for
   * `drainMs`, then close it. A routed frame the other end handed to this link before it
   * heard of the close is still forwarded, so a link rebalance drops nothing.
   */
  retire(hex: string, reason: string): void {
    const pl = this.map.get(hex);
    if (!pl) return;
    this.forget(pl, reason, true);
    this.letGo(pl, reason);
  }

  /**
   * Drains a link we will not send on (retired, turned down, or the loser of a duplicate
   * pair): CLOSING tells the other end to stop sending on it too, in case it still takes
   * it as live (it retired the other link of a pair before this one opened, so it never
   * saw the pair; or it dialled this one), and we keep reading it for `drainMs` before we
   * close it, so that nothing it sent before hearing of the close is lost. `listen`: the
   * link was never attached, so start reading it.
   */
  private letGo(pl: PeerLink, reason: string, listen = false): void {
    pl.closing = true;
    if (listen) pl.link.events.on('message', (data) => this.onFrame(pl, data));
    this.sendFrame(pl, dhtCodec.encode({ t: 'CLOSING' }));
    this.clock.setTimeout(() => pl.link.close(reason), this.drainMs);
  }

  /** The other end retires the link: stop sending on it; it closes it after its drain. */
  private onClosing(pl: PeerLink): void {
    if (this.map.get(pl.hex) !== pl) return;
    this.forget(pl, PEER_RETIRED, false);
    // Should the closer never close it, do it ourselves after twice its drain.
    this.clock.setTimeout(() => pl.link.close(PEER_RETIRED), 2 * this.drainMs);
  }

  private forget(pl: PeerLink, reason: string, byUs: boolean): void {
    pl.closing = true;
    this.map.delete(pl.hex);
    this.stats.linksClosed++;
    this.hooks.onClose(pl, reason, byUs);
  }

  close(hex: string, reason: string): void {
    const pl = this.map.get(hex);
    if (!pl) return;
    pl.closing = true;
    pl.link.close(reason);
    // A link implementation might not emit close synchronously; forget it now regardless.
    if (this.map.get(hex) === pl) this.forget(pl, reason, true);
  }

  closeAll(reason: string): void {
    for (const hex of [...this.map.keys()]) this.close(hex, reason);
  }

  /** Sends one encoded frame; false if the link is gone. `watch`: its peer's silence from now on is watched (`unansweredSince`); `mayWait`: nobody waits on it (net/link.ts). */
  sendFrame(pl: PeerLink, frame: Uint8Array, watch = isRequestFrame(frame), mayWait = false): boolean {
    if (!pl.link.open) return false;
    try {
      pl.link.send(frame, mayWait);
    } catch {
      return false;
    }
    this.stats.framesOut++;
    this.stats.bytesOut += frame.length;
    const type = frameType(frame);
    tally(this.stats.framesOutByType, type);
    tally(this.stats.bytesOutByType, type, frame.length);
    if (watch) pl.unansweredSince ??= this.clock.now();
    return true;
  }

  private onFrame(pl: PeerLink, data: Uint8Array): void {
    this.stats.framesIn++;
    this.stats.bytesIn += data.length;
    const type = frameType(data);
    tally(this.stats.framesInByType, type);
    tally(this.stats.bytesInByType, type, data.length);
    const now = this.clock.now();
    // Checked before decoding: a flood must not cost us the work of reading it.
    const frameOk = pl.frames.take(1, now) || (pl.pinned && pl.pinnedFrames.take(1, now)) || ((type === 'PING' || type === 'PONG') && pl.livenessFrames.take(1, now));
    if (!frameOk || !pl.bytes.take(data.length, now)) {
      this.stats.dropped.rateLimited++;
      if (++pl.floodDrops === this.opts.maxFloodDrops) {
        this.stats.floodLinksClosed++;
        if (this.map.get(pl.hex) === pl) this.close(pl.hex, FLOOD_CLOSE);
        else pl.link.close(FLOOD_CLOSE);
      }
      return;
    }
    pl.lastRx = now;
    pl.unansweredSince = undefined;
    const route = isRouteFrame(data);
    let msg: DhtMessage | RouteEnvelope;
    try {
      msg = route ? readRoute(data) : dhtCodec.decode(data);
    } catch (e) {
      this.stats.dropped[e instanceof CodecError ? e.reason : 'malformed']++;
      if (++pl.junk >= this.opts.maxJunkFrames) {
        this.stats.junkLinksClosed++;
        // A retired link is no longer in the map (a newer link to the peer may be).
        if (this.map.get(pl.hex) === pl) this.close(pl.hex, JUNK_CLOSE);
        else pl.link.close(JUNK_CLOSE);
      }
      return;
    }
    if (route) this.hooks.onRoute(msg as RouteEnvelope, pl);
    else if ((msg as DhtMessage).t === 'CLOSING') this.onClosing(pl);
    else this.hooks.onMessage(msg as DhtMessage, pl);
  }
}
