// Which of our links get routed requests answered: a forwarder's record of its next hops,
// kept from what passes through it (against hostile forwarders).
//
// A routed request we forward (or send) for dst toward hop should see its reply come back
// the same way: replies take the request's reverse path as waypoints (overlay-router.ts),
// so a reply from dst to the request's source arrives here from hop. One that does, within
// `waitMs`, is a point for hop; one that does not is a point against it. A forwarder that
// drops or misroutes what it is given (or whose side of the network does) loses most of
// its points, and the router sends less through it: among links that make the same
// progress, those with a clearly worse record are passed over (router.ts spreadHop).
// A request lost past a hop that has sent us nothing since may have died silently: the
// record tells its owner (`lost`), which PINGs it at once (dht-node.ts), so the link is
// closed within seconds instead of the heartbeat timeout, and routes stop vanishing into it.
// Forwarders read only the envelope; that the body is a request is read from its first
// two bytes (a msgpack [code, body] pair, core/codec.ts): a peer lying about that costs
// one entry of a bounded map.
import { dhtSpec, REPLY_OF } from './messages';

/** Request type codes, as the second byte of an encoded message. */
const REQUEST_CODES = new Set<number>(Object.keys(REPLY_OF).map((t) => dhtSpec[t as keyof typeof REPLY_OF][0]));
/** msgpack fixarray of 2: every encoded message starts with it. */
const PAIR = 0x92;

/** Whether an encoded inner frame is an RPC request (it will be answered). */
export function isRequestFrame(body: Uint8Array): boolean {
  return body.length > 1 && body[0] === PAIR && REQUEST_CODES.has(body[1]!);
}

const DATA_CODE = dhtSpec.DATA[0];

/** Whether an encoded inner frame is an application payload (DATA). */
export function isDataFrame(body: Uint8Array): boolean {
  return body.length > 1 && body[0] === PAIR && body[1] === DATA_CODE;
}

interface Tally {
  ok: number;
  lost: number;
}

export class RouteRecord {
  /** Replies we wait for, by `${replySrc}>${replyDst}`: the hop the request left by, and when. */
  private readonly waiting = new Map<string, { hop: string; at: number }>();
  private readonly tallies = new Map<string, Tally>();

  constructor(
    private readonly now: () => number,
    /** How long a reply may take (the RPC timeout). */
    private readonly waitMs: number,
    /** A request left by hopHex at `at` and no reply came back through it in time. */
    private readonly lost: (hopHex: string, at: number) => void = () => {},
    /** Replies waited for at most (oldest forgotten, unjudged, past it). */
    private readonly maxWaiting = 2048,
    /** Hops tallied at most (links come and go; the oldest tally goes first). */
    private readonly maxHops = 256,
    /** A tally is halved past this many verdicts: the recent record counts. */
    private readonly memory = 32,
  ) {}

  /** A request from srcHex for dstHex left by hopHex. */
  sent(srcHex: string, dstHex: string, hopHex: string): void {
    this.expire();
    const key = `${dstHex}>${srcHex}`;
    this.waiting.delete(key);
    this.waiting.set(key, { hop: hopHex, at: this.now() });
    if (this.waiting.size > this.maxWaiting) this.waiting.delete(this.waiting.keys().next().value!);
  }

  /** A routed message from srcHex for dstHex came in from fromHex: perhaps a reply we wait for. */
  arrived(srcHex: string, dstHex: string, fromHex: string): void {
    const key = `${srcHex}>${dstHex}`;
    const w = this.waiting.get(key);
    if (!w || w.hop !== fromHex) return;
    this.waiting.delete(key);
    this.tally(w.hop).ok++;
  }

  /** hop's share of answered requests, with one of each assumed (0.5 for a hop never judged). */
  score(hopHex: string): number {
    this.expire();
    const t = this.tallies.get(hopHex);
    return t ? (t.ok + 1) / (t.ok + t.lost + 2) : 0.5;
  }

  private tally(hop: string): Tally {
    let t = this.tallies.get(hop);
    if (!t) {
      t = { ok: 0, lost: 0 };
      this.tallies.set(hop, t);
      if (this.tallies.size > this.maxHops) this.tallies.delete(this.tallies.keys().next().value!);
    }
    if (t.ok + t.lost >= this.memory) {
      t.ok /= 2;
      t.lost /= 2;
    }
    return t;
  }

  /** Replies not back in time count against their hops (oldest first: the map is in send order). */
  expire(): void {
    const cutoff = this.now() - this.waitMs;
    for (const [key, w] of this.waiting) {
      if (w.at > cutoff) break;
      this.waiting.delete(key);
      this.tally(w.hop).lost++;
      this.lost(w.hop, w.at);
    }
  }
}
