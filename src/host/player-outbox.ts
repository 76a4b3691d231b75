// What a host owes its subscribers besides their positions, held to its next tick so that it
// rides in the POSITIONS frame the subscriber gets then (the upload budget of a
// crowd). A crowd's subscriber gets a POSITIONS frame nearly every tick from the host that
// serves it, and, apart, a committed DELTA about as often (20 edits a second in a crowd of
// 200) and a HEARTBEAT 10 times a second: each frame costs its own header (a DELTA of one
// entry is 46 bytes, 12 of them the entry; a beat 19), so carried inside the POSITIONS frame
// (`d`, `s`) the same news costs its entries and about 10 bytes, and 3 bytes. What finds no
// POSITIONS frame within a tick of coming goes out as it did, a DELTA or a HEARTBEAT of its
// own: a delta or beat waits less than two ticks (MOVE comes 20 times a second, ticks 20, so
// a subscriber watching anyone move gets a POSITIONS frame nearly every tick).
// Beats that name the host set or say `idle` always go alone (rare, and the player reads
// them only from a beat). A batch just ordered (PENDING, shown before its commit: the
// latency path) waits only for the next tick's frames: what none took goes alone then. In a
// crowd of 200 (~20 batches a second to each subscriber) PENDINGs of their own were ~40 kB/s
// more at the busiest host (46 bytes each, 12 of them the entry). Only a crowd's (its
// fan-out shared: fan-out-plan.ts) wait: below that a subscriber may get no POSITIONS frame
// at all, and the primary sends them at once.
import type { NodeId } from '../core/node-id';
import { MAX_RELAY_PROOFS, type RelayProofs } from '../region/entry-proofs';
import type { RegionCoord } from '../region/region-key';
import type { PlayerWire } from '../region/region-wire';
import type { HostToPlayer } from '../region/subscription-messages';

/** A committed delta as it rides in a POSITIONS frame. */
export interface RidingDelta {
  from: number;
  to: number;
  entries: Uint8Array;
  /** The primary's signatures over its batches, when we relay it (region/entry-proofs.ts). */
  pf?: RelayProofs;
}

/** What rides in one subscriber's POSITIONS frame this tick: a committed delta, batches ordered and not committed yet (as PENDING's), a beat. */
export interface Riders {
  /** [from, to, entries] */
  d?: [number, number, Uint8Array];
  p?: [number, number, Uint8Array];
  s?: number;
  /** `d`'s and `p`'s batch signatures (relayed). */
  dp?: RelayProofs;
  pp?: RelayProofs;
}

interface Owed {
  /** Subscribers (hex) still owed it. */
  owed: Map<string, NodeId>;
  /** When it came. */
  at: number;
}

interface OwedDelta extends Owed, RidingDelta {
  e: number;
}

interface OwedBeat extends Owed {
  e: number;
  s: number;
  hosts?: NodeId[];
  idle?: boolean;
}

/** Entry bytes a merged delta may carry in one POSITIONS frame (more goes as DELTA frames). */
const MAX_RIDING_BYTES = 4096;

export class PlayerOutbox {
  private deltas: OwedDelta[] = [];
  private pendings: OwedDelta[] = [];
  private beats: OwedBeat[] = [];

  constructor(private readonly region: RegionCoord) {}

  /** A committed delta of epoch `e` for these subscribers. */
  delta(e: number, d: RidingDelta, to: Iterable<[string, NodeId]>, now: number): void {
    const owed = new Map(to);
    if (owed.size > 0) this.deltas.push({ e, ...d, owed, at: now });
  }

  /** A batch of epoch `e` just ordered, for these subscribers (PENDING): it waits for the next tick's frames only. */
  pending(e: number, b: RidingDelta, to: Iterable<[string, NodeId]>, now: number): void {
    const owed = new Map(to);
    if (owed.size > 0) this.pendings.push({ e, ...b, owed, at: now });
  }

  /** A beat (committed up to `s` of epoch `e`) for these subscribers. */
  beat(e: number, s: number, to: Iterable<[string, NodeId]>, now: number, extra: { hosts?: NodeId[]; idle?: boolean } = {}): void {
    const owed = new Map(to);
    if (owed.size > 0) this.beats.push({ e, s, ...extra, owed, at: now });
  }

  get empty(): boolean {
    return this.deltas.length === 0 && this.pendings.length === 0 && this.beats.length === 0;
  }

  /**
   * What rides in the POSITIONS frame of epoch `e` going to `hex` now: the deltas owed to it,
   * if they follow one another (merged into one), and its newest plain beat. Taken: they are
   * no longer owed.
   */
  ride(hex: string, e: number): Riders {
    const out: Riders = {};
    const d = merged(this.deltas, hex, e);
    if (d) {
      out.d = d.riding;
      if (d.pf) out.dp = d.pf;
    }
    const p = merged(this.pendings, hex, e);
    if (p) {
      out.p = p.riding;
      if (p.pf) out.pp = p.pf;
    }
    for (const b of this.beats) {
      if (b.e !== e || b.hosts || b.idle || !b.owed.has(hex)) continue;
      b.owed.delete(hex);
      out.s = Math.max(out.s ?? 0, b.s);
    }
    return out;
  }

  /**
   * The batches and deltas owed to `hex` go now, alone: an editor hears its edit's DELTA
   * before its CONFIRM, as when deltas went at once (the player's tentative block gives way to
   * the state).
   */
  sendNow(hex: string, wire: PlayerWire): void {
    for (const [t, owed] of [['PENDING', this.pendings], ['DELTA', this.deltas]] as const) {
      for (const d of owed) {
        const id = d.owed.get(hex);
        if (!id) continue;
        d.owed.delete(hex);
        wire.send(id, this.alone(t, d));
      }
    }
  }

  /** A batch ordered (PENDING) or committed (DELTA) as a frame of its own. */
  private alone(t: 'PENDING' | 'DELTA', d: OwedDelta): HostToPlayer {
    return { t, rx: this.region.rx, rz: this.region.rz, e: d.e, from: d.from, to: d.to, entries: d.entries, ...(d.pf ? { pf: d.pf } : {}) };
  }

  /**
   * What no POSITIONS frame took within `holdMs` of coming (all of it when `holdMs` is 0: the
   * duty stops) goes out on its own, in the order it came; what is younger waits for the next
   * tick's frames. A delta that waits holds back the deltas after it (they go in order).
   * Beats may wait longer (`beatHoldMs`): they carry no state, only that the host lives.
   */
  flush(wire: PlayerWire, now: number, holdMs = 0, beatHoldMs = holdMs): void {
    const { rx, rz } = this.region;
    // Batches ordered wait for one tick's frames at most: this one's went.
    for (const p of this.pendings) {
      const frame = this.alone('PENDING', p);
      for (const id of p.owed.values()) wire.send(id, frame);
    }
    this.pendings = [];
    const due = (x: Owed) => x.owed.size > 0 && now - x.at >= holdMs;
    const beatDue = (x: Owed) => x.owed.size > 0 && now - x.at >= beatHoldMs;
    const firstHeld = this.deltas.findIndex((d) => d.owed.size > 0 && !due(d));
    const deltas = firstHeld < 0 ? this.deltas : this.deltas.slice(0, firstHeld);
    for (const d of deltas) {
      const frame = this.alone('DELTA', d);
      for (const id of d.owed.values()) wire.send(id, frame);
    }
    this.deltas = firstHeld < 0 ? [] : this.deltas.slice(firstHeld).filter((d) => d.owed.size > 0);
    for (const b of this.beats) {
      if (!beatDue(b)) continue;
      const frame = { t: 'HEARTBEAT' as const, rx, rz, e: b.e, s: b.s, ...(b.hosts ? { hosts: b.hosts } : {}), ...(b.idle ? { idle: true } : {}) };
      for (const id of b.owed.values()) wire.send(id, frame);
      b.owed.clear();
    }
    this.beats = this.beats.filter((b) => b.owed.size > 0);
  }
}

/**
 * The batches of epoch `e` owed to `hex`, merged into one (they follow one another, and
 * their entries fit MAX_RIDING_BYTES, their signatures MAX_RELAY_PROOFS, all signed or none;
 * otherwise none ride, and they go alone). Taken: no longer owed to it.
 */
function merged(owed: readonly OwedDelta[], hex: string, e: number): { riding: [number, number, Uint8Array]; pf?: RelayProofs } | undefined {
  const mine = owed.filter((d) => d.e === e && d.owed.has(hex));
  const follow = mine.every((d, i) => i === 0 || d.from === mine[i - 1]!.to + 1);
  const bytes = mine.reduce((n, d) => n + d.entries.length, 0);
  const signed = mine.filter((d) => d.pf).length;
  const pf = signed > 0 ? mine.flatMap((d) => d.pf ?? []) : undefined;
  if (mine.length === 0 || !follow || bytes > MAX_RIDING_BYTES || (signed > 0 && signed < mine.length) || (pf && pf.length > MAX_RELAY_PROOFS)) return undefined;
  const entries = new Uint8Array(bytes);
  let at = 0;
  for (const d of mine) {
    entries.set(d.entries, at);
    at += d.entries.length;
    d.owed.delete(hex);
  }
  return { riding: [mine[0]!.from, mine[mine.length - 1]!.to, entries], ...(pf ? { pf } : {}) };
}
