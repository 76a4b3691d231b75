// The player side of POSITIONS (issue 12 "Crowds"): per host serving us a region's player
// positions (its primary, or a backup serving a share of the subscribers), what that host
// sent us so far: slot -> player (id, name, quantised position), and the frame count `n`.
// Entries are coded against it (region/position-code.ts), so frames are applied in order of
// n: one that comes early waits (REORDER_MS) for the ones before it; a frame that never
// comes, or one that cannot be read, loses the stream: we forget it and ask the host to
// start again (POSITIONS_LOST); its next frame has n = 0. A frame is applied whole or not
// at all. Pure: time is passed in; the caller sends the request and emits what comes out.
import { idToHex } from '../core/node-id';
import { decodePositions, dequantise, PositionCodeError, type QPose } from './position-code';
import type { RegionCoord } from './region-key';
import type { PlayerFrame, SubscriptionMessageOf } from './subscription-messages';

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
type Frame = Pick<SubscriptionMessageOf<'POSITIONS'>, 'e' | 'n' | 'b' | 'roster' | 'gone'>;

/** A player as a stream holds it: its position, and the one before (position-code.ts's prev). */
interface Held {
  id: Uint8Array;
  hex: string;
  name: string;
  q: QPose;
  prev: QPose | undefined;
}

interface Stream {
  e: number;
  /** The last frame applied (-1: none yet; the next must be n = 0). */
  n: number;
  slots: Map<number, Held>;
  waiting: Map<number, { m: Frame; at: number }>;
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
  ) {}

  take(fromHex: string, m: Frame, now: number): PositionsOutcome {
    const out: PositionsOutcome = { players: [], gone: [], lost: false };
    let s = this.streams.get(fromHex);
    // A new epoch, or the host started again (n = 0 once we hold its earlier frames): afresh.
    if (!s || s.e !== m.e || (m.n === 0 && s.n >= 0)) s = { e: m.e, n: -1, slots: new Map(), waiting: new Map() };
    this.streams.delete(fromHex);
    this.streams.set(fromHex, s);
    if (this.streams.size > MAX_STREAMS) this.streams.delete(this.streams.keys().next().value!);
    if (m.n <= s.n) return out; // a copy of one applied
    s.waiting.set(m.n, { m, at: now });
    for (let next = s.waiting.get(s.n + 1); next; next = s.waiting.get(s.n + 1)) {
      s.waiting.delete(s.n + 1);
      if (!this.apply(s, next.m, out)) return this.lose(fromHex, now, out);
    }
    for (const w of s.waiting.values()) if (now - w.at > REORDER_MS || s.waiting.size > MAX_WAITING) return this.lose(fromHex, now, out);
    return out;
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
    for (const r of m.roster ?? []) slots.set(r.s, { id: r.id, hex: idToHex(r.id), name: r.name, q: { x: 0, y: 0, z: 0, yaw: 0, pitch: 0 }, prev: undefined });
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
      slots.set(slot, { ...p, q, prev: fresh.has(slot) ? undefined : p.q });
      if (p.hex !== this.selfHex) players.push({ id: p.id, name: p.name, ...dequantise(this.region, q) });
    }
    s.slots = slots;
    s.n = m.n;
    out.players.push(...players);
    out.gone.push(...gone);
    return true;
  }

  private lose(fromHex: string, now: number, out: PositionsOutcome): PositionsOutcome {
    this.unreadable++;
    this.streams.delete(fromHex);
    // What was applied before the failure stands; the request is not repeated while one is on its way.
    if (now - (this.asked.get(fromHex) ?? -Infinity) < ASK_AGAIN_MS) return out;
    this.asked.set(fromHex, now);
    if (this.asked.size > MAX_STREAMS * 4) this.asked.delete(this.asked.keys().next().value!);
    return { ...out, lost: true };
  }
}
