// Routed overlay messages: pure next-hop choice and duplicate suppression.
//
// Greedy XOR forwarding: hand the message to the live link whose remote id is closest to
// the destination, and only if that is strictly closer than ourselves, so every hop
// shrinks the distance and no loop can form. It always progresses when we hold a link in
// the bucket the destination falls in: which is why the link budget covers every
// non-empty bucket. A message may carry waypoints (`via`): it is routed to each in turn,
// then to its destination. Replies use the request's reverse path as waypoints, so they
// reach a node that just joined and is linked to its bootstrap only; lookups route a query
// through the node that named the candidate (it knows how to reach it).
import { bucketIndex, compareDistance, idToHex, type NodeId } from '../core/node-id';

export interface HopCandidate {
  readonly id: NodeId;
  readonly hex: string;
  /** A read-only peer's link (read-only-peers.ts): a hop only for messages to that peer. */
  readonly readOnly?: boolean;
}

/**
 * Picks the link to hand a message for `target` to: a direct link to it, else the link
 * strictly closer (XOR) to it than we are and closest of all. `origin`: the sender itself
 * may use its closest link even when that is no closer than itself (a node that just
 * joined holds one link, to its bootstrap); forwarders then progress strictly, and the
 * origin drops the message as a duplicate if it loops back. `exclude`: nodes the message
 * already passed (its source and trace): a newcomer can be closest to a target and yet
 * hold no link onward, so handing a message back to it is a dead end.
 */
export function nextHop<L extends HopCandidate>(
  selfId: NodeId,
  target: NodeId,
  links: ReadonlyMap<string, L>,
  origin = false,
  exclude?: ReadonlySet<string> | ((l: L) => boolean),
  targetHex = idToHex(target),
  spread?: Spread<L>,
): L | null {
  const direct = links.get(targetHex);
  if (direct) return direct;
  const excluded = typeof exclude === 'function' ? exclude : exclude ? (l: L) => exclude.has(l.hex) : undefined;
  let best: L | null = null;
  for (const l of links.values()) {
    if (l.readOnly) continue;
    const better = best === null ? origin || compareDistance(l.id, selfId, target) < 0 : compareDistance(l.id, best.id, target) < 0;
    // Exclusion is checked only for a would-be best: the cheap test runs first.
    if (better && !excluded?.(l)) best = l;
  }
  if (best === null || spread === undefined) return best;
  return spreadHop(selfId, target, links, best, origin, excluded, spread);
}

/** How to choose among equally good links (spreadHop). */
export interface Spread<L> {
  /** Draws the link: a message's id, so one message keeps its choice and the next differs. */
  salt: number;
  /** A link's record of answered requests, 0..1 (route-record.ts). */
  score: (l: L) => number;
}

/** A link scoring this much below the best of its peers is passed over. */
const SCORE_MARGIN = 0.25;

/**
 * One of the links as good as `best` in Kademlia's sense (the same log distance to the
 * target: the same bucket, so the same progress in bits), drawn by the message's salt:
 * different messages between the same two nodes take different routes. With the closest
 * link always taken, every route into a node's neighbourhood crosses the few nodes nearest
 * it, and one hostile forwarder there loses most of what is sent to that node, retries
 * included. Links whose record is clearly worse than their peers' are left out. Only links
 * strictly closer than us (for a forwarder) qualify, as for `best`, so routes cannot loop.
 */
function spreadHop<L extends HopCandidate>(selfId: NodeId, target: NodeId, links: ReadonlyMap<string, L>, best: L, origin: boolean, excluded: ((l: L) => boolean) | undefined, spread: Spread<L>): L {
  const level = bucketIndex(target, best.id);
  const peers: L[] = [best];
  for (const l of links.values()) {
    if (l === best || l.readOnly || bucketIndex(target, l.id) !== level) continue;
    if ((origin || compareDistance(l.id, selfId, target) < 0) && !excluded?.(l)) peers.push(l);
  }
  if (peers.length === 1) return best;
  const scores = peers.map(spread.score);
  const top = Math.max(...scores);
  const kept = peers.filter((_, i) => scores[i]! >= top - SCORE_MARGIN);
  return kept[((Math.imul(spread.salt >>> 0, 0x9e3779b1) >>> 0) >>> 16) % kept.length]!;
}

/** Remembers the last `size` message keys; `check` returns true the first time a key is seen. */
export class Dedup {
  private readonly ring: (string | undefined)[];
  private readonly set = new Set<string>();
  private at = 0;

  constructor(size = 256) {
    this.ring = new Array<string | undefined>(size);
  }

  /** Whether key was seen (without remembering it). */
  has(key: string): boolean {
    return this.set.has(key);
  }

  check(key: string): boolean {
    if (this.set.has(key)) return false;
    const old = this.ring[this.at];
    if (old !== undefined) this.set.delete(old);
    this.ring[this.at] = key;
    this.at = (this.at + 1) % this.ring.length;
    this.set.add(key);
    return true;
  }
}

export type ReplayVerdict = 'fresh' | 'duplicate' | 'stale';

/**
 * The duplicate window of signed messages for us: every key delivered in the last `maxAgeS`
 * seconds is remembered (up to `size` keys), and a message older than that by its signed
 * timestamp is refused, so a replay is refused after it left the window too. Should traffic
 * push keys out of the window before they are `maxAgeS` old, the floor rises to the
 * timestamp of the last key let go and nothing at or below it is taken: under a flood
 * fresh messages still pass, possibly replayed ones do not.
 */
export class ReplayWindow {
  private readonly keys: (string | undefined)[];
  private readonly stamps: Float64Array;
  private readonly set = new Set<string>();
  private at = 0;
  /** Timestamps at or below this may belong to keys forgotten: refused. */
  floor = -Infinity;

  constructor(
    readonly size: number,
    readonly maxAgeS: number,
  ) {
    this.keys = new Array<string | undefined>(size);
    this.stamps = new Float64Array(size);
  }

  /** What a message with this key and timestamp (seconds) is, at time `nowS`, without remembering it. */
  judge(key: string, ts: number, nowS: number): ReplayVerdict {
    if (this.set.has(key)) return 'duplicate';
    if (ts <= this.floor || Math.abs(nowS - ts) > this.maxAgeS) return 'stale';
    return 'fresh';
  }

  /** Remembers a key judged fresh; false if it was remembered meanwhile (a copy got in first). */
  remember(key: string, ts: number): boolean {
    if (this.set.has(key)) return false;
    const old = this.keys[this.at];
    if (old !== undefined) {
      this.set.delete(old);
      this.floor = Math.max(this.floor, this.stamps[this.at]!);
    }
    this.keys[this.at] = key;
    this.stamps[this.at] = ts;
    this.at = (this.at + 1) % this.size;
    this.set.add(key);
    return true;
  }
}
