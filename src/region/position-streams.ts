// The player side of POSITIONS: per host serving us a region's player
// positions (its primary, or a backup serving a share of the subscribers), what that host
// sent us so far: slot -> player (id, name, quantised position), and the frame count `n`.
// Entries are coded against it (region/position-code.ts), so frames are applied in order of
// n: one that comes early waits (REORDER_MS) for the ones before it; a frame that never
// comes, or one that cannot be read, loses the stream: we forget what it held and ask the
// host to start again (POSITIONS_LOST). The host goes on counting and marks the frame it
// starts afresh at (`f`; n = 0 is one too): its frames from before that, still on their way,
// are older and dropped, those after it wait for it. (When the fresh start came at n = 0,
// the frames still on their way from before waited for numbers the new stream reached only
// later, or were applied in its place: a lost stream was lost again and again.) A frame is
// applied whole or not at all. Pure: time is passed in; the caller sends the request and
// emits what comes out.
import { idToHex } from '../core/node-id';
import { decodePositions, dequantise, PositionCodeError, type QPose } from './position-code';
import type { RegionCoord } from './region-key';
import type { PlayerFrame, SubscriptionMessageOf } from './subscription-messages';
import type { PlayerLook } from './player-look';

/** Hosts whose streams are kept per region (the host set is at most 8). */
export const MAX_STREAMS = 8;
/**
 * A frame that came before the one it follows waits this long for it: frames to a
 * subscriber without a direct link to its host are routed, and two routes can swap them.
 * 250 ms lost streams that were only swapped: a crowd of 40 in the hosting simulation (40
 * peers, 15 s) lost 142 streams with 250, 12 with 500, 10 with 1,000; each loss costs the
 * host a roster of the whole crowd and the player the others' positions for a round trip.
 */
export const REORDER_MS = 500;
/** Frames waiting for an earlier one, per stream. */
export const MAX_WAITING = 16;
/** A host asked to start again is not asked again sooner than this (longer than REORDER_MS: its fresh start may be the frame that waits). */
export const ASK_AGAIN_MS = 1000;

/** A POSITIONS frame, or the primary's FEED to a backup (the same stream fields). */
type Frame = Pick<SubscriptionMessageOf<'POSITIONS'>, 'e' | 'n' | 'f' | 'b' | 'roster' | 'gone'>;

/** A player as a stream holds it: its position, and the one before (position-code.ts's prev). */
interface Held {
  id: Uint8Array;
  hex: string;
  look: PlayerLook | undefined;
  q: QPose;
  prev: QPose | undefined;
}

interface Stream {
  e: number;
  /** The last frame applied (or, lost, the last before the loss; -1: none yet). */
  n: number;
  /** Frames applied since a fresh start: a frame that is not one (f, n = 0) waits for it. */
  started: boolean;
  slots: Map<number, Held>;
  waiting: Map<number, { m: Frame; at: number }>;
}

/** Why streams were lost. */
export interface LostWhy {
  /** A frame was missing for REORDER_MS. */
  gap: number;
  /** More than MAX_WAITING frames waited for one missing. */
  overflow: number;
  /** A frame could not be read (unknown slot, malformed bytes). */
  unreadable: number;
}

export interface PositionsOutcome {
  /** Players whose position the frames applied carried (ourselves left out). */
  players: PlayerFrame[];
  /** Players the host said are gone from the region (hex ids). */
  gone: string[];
  /** A frame could not be read (or never came): ask its sender to start again. */
  lost: boolean;
}

export class PositionStreams {
  private readonly streams = new Map<string, Stream>();
  private readonly asked = new Map<string, number>();
  /** Frames that could not be read (gap not filled in time, unknown slot, malformed bytes). */
  unreadable = 0;

  constructor(
    private readonly region: RegionCoord,
    private readonly selfHex: string,
    /** Counted here (a client's streams of every region may share one count). */
    readonly lostWhy: LostWhy = { gap: 0, overflow: 0, unreadable: 0 },
  ) {}

  take(fromHex: string, m: Frame, now: number): PositionsOutcome {
    const out: PositionsOutcome = { players: [], gone: [], lost: false };
    let s = this.streams.get(fromHex);
    if (!s || s.e !== m.e) s = { e: m.e, n: -1, started: false, slots: new Map(), waiting: new Map() };
    // The host started afresh: marked, at a number past what we applied (a mark at or below
    // it is an older start's), or at 0 (a host that counts from the start: a new stream, or
    // one that forgot ours). Its frames after the start that came first wait on; those before
    // it are old. (Frames waiting for an n = 0 are its own only if we never applied a frame.)
    const fresh = m.f === true ? m.n > s.n : m.n === 0;
    if (fresh) {
      const after = m.n > 0 || s.n === -1 ? [...s.waiting].filter(([n]) => n > m.n) : [];
      s = { e: m.e, n: m.n - 1, started: true, slots: new Map(), waiting: new Map(after) };
      this.asked.delete(fromHex);
    }
    this.streams.delete(fromHex);
    this.streams.set(fromHex, s);
    if (this.streams.size > MAX_STREAMS) this.streams.delete(this.streams.keys().next().value!);
    if (m.n <= s.n) return out; // a copy of one applied, or a frame from before a fresh start
    s.waiting.set(m.n, { m, at: now });
    if (!s.started) return this.awaitStart(fromHex, s, now, out);
    for (let next = s.waiting.get(s.n + 1); next; next = s.waiting.get(s.n + 1)) {
      s.waiting.delete(s.n + 1);
      if (!this.apply(s, next.m, out)) return this.lose(fromHex, s, now, out, 'unreadable');
    }
    for (const w of s.waiting.values()) {
      if (s.waiting.size > MAX_WAITING) return this.lose(fromHex, s, now, out, 'overflow');
      if (now - w.at > REORDER_MS) return this.lose(fromHex, s, now, out, 'gap');
    }
    return out;
  }

  /**
   * No fresh start yet (a new stream, or one lost): frames wait for it, the newest
   * MAX_WAITING of them (from before the start they are dropped when it comes). A stream
   * never started is lost after REORDER_MS; one lost is asked for again after ASK_AGAIN_MS.
   */
  private awaitStart(fromHex: string, s: Stream, now: number, out: PositionsOutcome): PositionsOutcome {
    if (s.waiting.size > MAX_WAITING) s.waiting.delete(Math.min(...s.waiting.keys()));
    const asked = this.asked.get(fromHex);
    const due = asked === undefined ? [...s.waiting.values()].some((w) => now - w.at > REORDER_MS) : now - asked >= ASK_AGAIN_MS;
    if (!due) return out;
    if (asked === undefined) {
      this.unreadable++;
      this.lostWhy.gap++;
    }
    return this.ask(fromHex, now, out);
  }

  /** What `fromHex`'s stream holds now: slot -> player and its quantised position. */
  holding(fromHex: string): ReadonlyMap<number, Held> {
    return this.streams.get(fromHex)?.slots ?? new Map();
  }

  /** Streams from hosts no longer serving the region are forgotten. */
  keepOnly(hosts: readonly string[]): void {
    for (const hex of this.streams.keys()) if (!hosts.includes(hex)) this.streams.delete(hex);
  }

  /** One frame onto its stream, whole or not at all (false: unreadable). */
  private apply(s: Stream, m: Frame, out: PositionsOutcome): boolean {
    const slots = new Map(s.slots);
    const gone: string[] = [];
    for (const slot of m.gone ?? []) {
      const p = slots.get(slot);
      if (p && slots.delete(slot)) gone.push(p.hex);
    }
    for (const r of m.roster ?? []) slots.set(r.s, { id: r.id, hex: idToHex(r.id), look: r.l, q: { x: 0, y: 0, z: 0, yaw: 0, pitch: 0 }, prev: undefined });
    const fresh = new Set((m.roster ?? []).map((r) => r.s));
    let entries;
    try {
      entries = decodePositions(
        m.b,
        (slot) => (fresh.has(slot) ? undefined : slots.get(slot)?.q),
        (slot) => (fresh.has(slot) ? undefined : slots.get(slot)?.prev),
      );
    } catch (e) {
      if (!(e instanceof PositionCodeError)) throw e;
      return false;
    }
    const players: PlayerFrame[] = [];
    for (const { slot, q } of entries) {
      const p = slots.get(slot);
      if (!p) return false;
      // Field by field, not by spreads: once per player per frame, and the spreads were a
      // visible share of a crowd simulation's time.
      slots.set(slot, { id: p.id, hex: p.hex, look: p.look, q, prev: fresh.has(slot) ? undefined : p.q });
      if (p.hex !== this.selfHex) {
        const at = dequantise(this.region, q);
        players.push({ id: p.id, look: p.look, x: at.x, y: at.y, z: at.z, yaw: at.yaw, pitch: at.pitch });
      }
    }
    s.slots = slots;
    s.n = m.n;
    out.players.push(...players);
    out.gone.push(...gone);
    return true;
  }

  /**
   * What was applied before the failure stands; the rest is forgotten, and the stream waits
   * for the host's fresh start (numbers up to the last applied stay old).
   */
  private lose(fromHex: string, s: Stream, now: number, out: PositionsOutcome, why: keyof LostWhy): PositionsOutcome {
    this.unreadable++;
    this.lostWhy[why]++;
    s.started = false;
    s.slots = new Map();
    s.waiting.clear();
    this.asked.delete(fromHex);
    return this.ask(fromHex, now, out);
  }

  /** Asks the host to start again: not while a request is on its way (ASK_AGAIN_MS). */
  private ask(fromHex: string, now: number, out: PositionsOutcome): PositionsOutcome {
    if (now - (this.asked.get(fromHex) ?? -Infinity) < ASK_AGAIN_MS) return out;
    this.asked.delete(fromHex);
    this.asked.set(fromHex, now);
    if (this.asked.size > MAX_STREAMS * 4) this.asked.delete(this.asked.keys().next().value!);
    return { ...out, lost: true };
  }
}
