// How often the players of the hosting simulation (hosting-scale-sim.ts) hear new positions
// of the others within the interest radius, counted three ways, because in a crowd walking
// at random who is among a player's 32 nearest changes within seconds (in the crowd of 200,
// about half of the 32 nearest at the end of a 2 s window were not among them at its start):
// - `remote` / `windowEnd`: new positions per second over a 2 s window, of each other player
//   within the radius (of the 32 nearest) at the window's end, whatever it was before: a
//   player that was 15 blocks away when the window began, at the round-robin's rate then,
//   counts as slow (the figure as first measured);
// - `whileNear`: every 100 ms, the 32 nearest of each player (true positions); per pair, the
//   MOVE the other sent DELIVERY_MS (1 s) before (one per 100 ms sample, of the 2 MOVE sends then at 20 Hz), and
//   whether the player has received that very position since; per 2 s window, for pairs
//   near at least half of it, MOVE's rate times the share of those positions received: the rate itself when
//   every position the other sent while it was near reached the player within a second
//   (how late is `ageMs`; nearness is judged at the sample, a second after the send). (Counting arrivals per window instead gives 9.5 or 10.5 where a
//   position's arrival jitters across the window's edge or the host's 50 ms tick, so even
//   a lossless relay shows a 10th percentile under 10.)
// - `stable`: `windowEnd` over the pairs among the 32 nearest at both ends of the window.
// `ageMs`: at each 100 ms sample, per pair among the 32 nearest, the time since the last new
// position of the other (20 Hz: under 50 ms plus the jitter of the host's tick).
import { MOVE_HZ } from '../region/move-rate';

/**
 * Why a near player's position did not reach a viewer within DELIVERY_MS (`whileNear`'s
 * misses), judged MISS_VERDICT_MS after the sample: it came later (`late`); none of that
 * player's came in the DELIVERY_MS after it was sent (`silent`: a stream stalled or lost);
 * others came about when it was sent (within AROUND_MS), at full rate (`skippedNear`: its
 * host had the player among the viewer's nearest and passed this one over) or slower
 * (`skippedFar`: the player was not among the viewer's nearest at its host then).
 */
export interface NearMisses {
  late: number;
  skippedNear: number;
  skippedFar: number;
  silent: number;
}

/** A miss is judged this long after its sample (a late position has come by then, or counts as never). */
const MISS_VERDICT_MS = 2000;
/** Positions of the other that came this close to the miss's send time tell the rate its host sent it at then. */
const AROUND_MS = 300;

export interface RateViewer {
  hex: string;
  x: number;
  z: number;
  joinedAt: number;
}

const SAMPLE_MS = 100;
const NEAREST = 32;
/**
 * A position sent this long ago should have reached every subscriber: two legs of 50 ms, a
 * tick, and routed legs take several hops (300 ms missed a fifth of the positions that came).
 */
const DELIVERY_MS = 1000;
/** Positions remembered per sender, and per (player, other) received (DELIVERY_MS of MOVEs and more). */
const KEEP = 40;

/** A position as MOVE sends it and POSITIONS carry it (1/32 block). */
export function positionKey(x: number, z: number): string {
  return `${Math.round(x * 32)},${Math.round(z * 32)}`;
}

export class PositionRates {
  readonly remote: number[] = [];
  readonly windowEnd: number[] = [];
  readonly whileNear: number[] = [];
  readonly stable: number[] = [];
  readonly ageMs: number[] = [];
  /** Viewer -> other -> new positions in this window. */
  private readonly inWindow = new Map<string, Map<string, number>>();
  /** Viewer -> other -> when its last new position came. */
  private readonly lastAt = new Map<string, Map<string, number>>();
  /** Viewer -> other -> this window's near samples, positions due then and received. */
  private readonly near = new Map<string, Map<string, { k: number; due: number; got: number }>>();
  /** Sender -> its last MOVEs (time, position key). */
  private readonly moves = new Map<string, { at: number; key: string }[]>();
  /** Viewer -> other -> the position keys received lately, and when. */
  private readonly received = new Map<string, Map<string, { key: string; at: number }[]>>();
  readonly misses: NearMisses = { late: 0, skippedNear: 0, skippedFar: 0, silent: 0 };
  /** Misses waiting for their verdict (MISS_VERDICT_MS). */
  private pendingMisses: { viewer: string; other: string; key: string; sentAt: number; sampleAt: number }[] = [];
  /** Viewer -> its 32 nearest at the last window's end. */
  private readonly nearBefore = new Map<string, Set<string>>();

  constructor(
    /** The interest radius (blocks). */
    private readonly radius: number,
    /** Players joined less than this long ago are neither viewers nor viewed. */
    private readonly graceMs: number,
    private readonly windowMs: number,
    /** MOVE's rate: the senders' positions a second (region/move-rate.ts). */
    private readonly moveHz: number = MOVE_HZ,
  ) {}

  /** `sender` sent a MOVE from (x, z). */
  sent(sender: string, x: number, z: number, now: number): void {
    let m = this.moves.get(sender);
    if (!m) this.moves.set(sender, (m = []));
    m.push({ at: now, key: positionKey(x, z) });
    if (m.length > KEEP) m.shift();
  }

  /** `viewer` received a new position (x, z) of `other`. */
  heard(viewer: string, other: string, x: number, z: number, now: number): void {
    bump(this.inWindow, viewer, other);
    let l = this.lastAt.get(viewer);
    if (!l) this.lastAt.set(viewer, (l = new Map()));
    l.set(other, now);
    let r = this.received.get(viewer);
    if (!r) this.received.set(viewer, (r = new Map()));
    let keys = r.get(other);
    if (!keys) r.set(other, (keys = []));
    keys.push({ key: positionKey(x, z), at: now });
    if (keys.length > KEEP) keys.shift();
  }

  /** Forget a player (it left). */
  drop(hex: string): void {
    for (const m of [this.inWindow, this.lastAt, this.near, this.nearBefore, this.moves, this.received]) m.delete(hex);
  }

  /** Every SAMPLE_MS (the caller's timer). */
  sample(viewers: readonly RateViewer[], now: number): void {
    for (const w of this.settled(viewers, now)) {
      let n = this.near.get(w.hex);
      if (!n) this.near.set(w.hex, (n = new Map()));
      for (const o of this.within(w, viewers, now).slice(0, NEAREST)) {
        const c = n.get(o.hex) ?? { k: 0, due: 0, got: 0 };
        c.k++;
        const due = this.moves.get(o.hex)?.find((m) => m.at > now - DELIVERY_MS - SAMPLE_MS && m.at <= now - DELIVERY_MS);
        if (due) {
          c.due++;
          if (this.received.get(w.hex)?.get(o.hex)?.some((r) => r.key === due.key)) c.got++;
          else this.pendingMisses.push({ viewer: w.hex, other: o.hex, key: due.key, sentAt: due.at, sampleAt: now });
        }
        n.set(o.hex, c);
        this.ageMs.push(now - (this.lastAt.get(w.hex)?.get(o.hex) ?? -Infinity));
      }
    }
  }

  /** Misses whose verdict is due (all of them with `all`: the run is over). */
  judgeMisses(now: number, all = false): void {
    const keep: typeof this.pendingMisses = [];
    for (const m of this.pendingMisses) {
      if (!all && now - m.sampleAt < MISS_VERDICT_MS) {
        keep.push(m);
        continue;
      }
      const got = this.received.get(m.viewer)?.get(m.other) ?? [];
      if (got.some((r) => r.key === m.key)) this.misses.late++;
      else {
        const meanwhile = got.filter((r) => r.at > m.sentAt && r.at <= m.sentAt + DELIVERY_MS).length;
        // Full rate about then: a position every 100 ms (two legs of latency after it was sent), most of them.
        const around = got.filter((r) => Math.abs(r.at - m.sentAt - 100) <= AROUND_MS).length;
        if (meanwhile === 0) this.misses.silent++;
        else if (around >= ((2 * AROUND_MS) / 1000) * this.moveHz * 0.6) this.misses.skippedNear++;
        else this.misses.skippedFar++;
      }
    }
    this.pendingMisses = keep;
  }

  /** Every `windowMs` (the caller's timer), after that instant's sample. */
  window(viewers: readonly RateViewer[], now: number): void {
    const sec = this.windowMs / 1000;
    for (const w of this.settled(viewers, now)) {
      const got = this.inWindow.get(w.hex);
      const near = this.within(w, viewers, now);
      const before = this.nearBefore.get(w.hex);
      near.forEach((o, i) => {
        const hz = (got?.get(o.hex) ?? 0) / sec;
        this.remote.push(hz);
        if (i >= NEAREST) return;
        this.windowEnd.push(hz);
        if (before?.has(o.hex)) this.stable.push(hz);
      });
      this.nearBefore.set(w.hex, new Set(near.slice(0, NEAREST).map((o) => o.hex)));
      const samples = this.windowMs / SAMPLE_MS;
      for (const c of this.near.get(w.hex)?.values() ?? []) if (c.k >= samples / 2 && c.due > 0) this.whileNear.push((this.moveHz * c.got) / c.due);
    }
    this.inWindow.clear();
    this.near.clear();
    this.judgeMisses(now);
  }

  private settled(viewers: readonly RateViewer[], now: number): RateViewer[] {
    return viewers.filter((v) => now - v.joinedAt >= this.graceMs);
  }

  /** The settled others within the radius, nearest first. */
  private within(w: RateViewer, viewers: readonly RateViewer[], now: number): { hex: string; d: number }[] {
    const out: { hex: string; d: number }[] = [];
    for (const b of viewers) {
      if (b === w || now - b.joinedAt < this.graceMs) continue;
      const d = Math.hypot(b.x - w.x, b.z - w.z);
      if (d <= this.radius) out.push({ hex: b.hex, d });
    }
    return out.sort((a, b) => a.d - b.d);
  }
}

function bump(m: Map<string, Map<string, number>>, a: string, b: string): void {
  let inner = m.get(a);
  if (!inner) m.set(a, (inner = new Map()));
  inner.set(b, (inner.get(b) ?? 0) + 1);
}

export { SAMPLE_MS as RATE_SAMPLE_MS };
