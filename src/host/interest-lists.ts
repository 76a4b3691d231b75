// Interest management in crowds: what each subscriber of a region hears of the
// players standing in it, so a host's upload follows what players can see rather than the
// square of the crowd. Per subscriber, each tick:
// - its `nearest` players (by where each will be aheadMs on, as it walks now:
//   player-velocities.ts; re-chosen every nearEveryMs; all of them while the region holds no
//   more) go out whenever their position changed: full rate (in a crowd, at most every
//   crowdNearMs);
// - every other player goes out round-robin, each at least every `farMs`, a share of them per
//   tick: nobody is hidden, however large the crowd (no cap on who is listed);
// - positions are coded against what this subscriber holds (region/position-code.ts), so
//   a walking near player costs about 3 bytes (a step like its last), a far one 3 (to
//   within a quarter block); new players are introduced once (roster), and players gone
//   from the region are named once (gone).
// What a subscriber holds is what we sent it; `n` numbers our frames to it, so a lost frame
// shows as a gap, and the subscriber asks us to start again (POSITIONS_LOST: reset()). A
// fresh start goes on counting and is marked (`f`), so the subscriber tells our frames from
// before it, still on their way, from those after it (region/position-streams.ts).
// Pure: time and the players are passed in; sending is the caller's.
import type { NodeId } from '../core/node-id';
import { coarsen, encodePositions, sameQPose, type PositionEntry, type QPose } from '../region/position-code';
import { MAX_GONE, MAX_POSITION_ENTRIES, MAX_ROSTER, type SubscriptionMessageOf } from '../region/subscription-messages';
import type { PlayerLook } from '../region/player-look';
import { distanceAfter, PlayerVelocities, type Velocity } from './player-velocities';

export const INTEREST_DEFAULTS = {
  /**
   * Players each subscriber hears at full rate: the nearest to it. 56 for the target's 32
   * nearest: who is nearest changes as a crowd walks, and one that came close a second ago
   * was already at full rate. (In a model of the crowd of 200 with the ranking below, near
   * pairs' 2 s windows that missed a position: 7.5% at 48, 3.4% at 56, for 10% more bytes a
   * subscriber, which POSITIONS without field names paid for: docs/BENCHMARKS.md "Crowds".)
   */
  nearest: 56,
  /** Every other player reaches each subscriber at least this often. */
  farMs: 800,
  /**
   * The nearest are re-chosen this often (players walk a few blocks a second): each tick. At
   * 250 ms the crowd of 200 lost 5-7% of its near positions to who the host counted among a
   * subscriber's nearest lagging the subscriber's own count (a model of that crowd:
   * nearest-32 p10 9.2 at 250 ms, 9.5 at 100, 10 at 50, for 0.7% more bytes).
   */
  nearEveryMs: 50,
  /**
   * The nearest are those nearest this long on, as they walk now: a player closing in is at
   * full rate a second before it is among the nearest (in the crowd of 200, a player among
   * the 32 nearest was often outside the 48 nearest a second before), and one walking away
   * gives its place up. Ranked instead by how close each comes within the second, a player
   * near now kept its place while it walked off, one of 16 spare places lost to it: a model
   * of the crowd of 200 (docs/BENCHMARKS.md "Crowds")
   * missed a position in 11.9% of near pairs' 2 s windows that way, 7.5% this way (with
   * velocities from the last step).
   */
  aheadMs: 1000,
  /**
   * In a crowd (more players than `nearest`) a near player goes out at most this often: MOVE
   * comes 20 times a second (region/move-rate.ts), and at every change a crowd's subscriber's
   * nearest 56 cost twice the bytes they cost at 10 (a crowd of 36, every player near: the
   * busiest upload 35.6 kB/s at 10, 49.5 at 20), where the crowd of 200 was 236 kB/s of its 256.
   * Below a crowd, everyone goes at every change: MOVE's rate.
   */
  crowdNearMs: 100,
};

export type InterestOptions = typeof INTEREST_DEFAULTS;

/** Subscribers whose dropped views' counts are kept (the oldest forgotten: its next view counts from 0). */
const MAX_DROPPED = 1024;

/** A player standing in the region, as the host's presence knows it. */
export interface Watched {
  slot: number;
  hex: string;
  id: NodeId;
  /** Its look as its node signed it (region/player-look.ts); none: it sent none yet. */
  look: PlayerLook | undefined;
  /** Where it stands (world blocks), for distances. */
  x: number;
  z: number;
  q: QPose;
  /** How it walks (blocks a second), if known. */
  v?: Velocity;
  /** Where it stood before q (its report before), if known. */
  prev?: QPose;
}

/** Where a subscriber looks from, and how it walks if known. */
export interface Viewpoint {
  x: number;
  z: number;
  v?: Velocity;
}

export type PositionsBody = Pick<SubscriptionMessageOf<'POSITIONS'>, 'n' | 'f' | 'b' | 'roster' | 'gone'>;

/** What one subscriber holds from us. */
export class InterestView {
  /** The next frame's number: never counted back, so a frame from before a fresh start is older than it. */
  n: number;
  /** The next frame starts the subscriber afresh (it forgets what it held from us). */
  private fresh = true;
  /** Slot -> the player it named, the position we last sent (and the one before: position-code.ts's prev), and when. */
  readonly held = new Map<number, { hex: string; q: QPose; prev: QPose | undefined; at: number }>();
  near = new Set<number>();
  nearAll = true;
  nearAt = -Infinity;

  /** `n`: where a view of the same subscriber dropped before left off (InterestLists.keepOnly). */
  constructor(n = 0) {
    this.n = n;
  }

  /**
   * Start again: the subscriber lost a frame (or is new); it forgets what it held from us at
   * our next frame. Counting goes on: frames we sent before are still on their way (in a crowd
   * a subscriber lost its stream again and again to them while n started again at 0).
   */
  reset(): void {
    this.fresh = true;
    this.held.clear();
    this.nearAt = -Infinity;
  }

  /** The next frame's number, and its fresh mark (implied at n = 0). */
  next(): { n: number; f?: true } {
    const f = this.fresh && this.n > 0;
    this.fresh = false;
    return { n: this.n++, ...(f ? { f } : {}) };
  }
}

/**
 * The next frame for one subscriber (`self`: its own hex, never sent to it), or undefined
 * when it has nothing new. `players` in ascending slots; `at`: where the subscriber stands
 * (undefined: unknown, then only the round-robin serves it in a crowd).
 */
export function nextFrame(view: InterestView, players: readonly Watched[], self: string, at: Viewpoint | undefined, now: number, tickMs: number, o: InterestOptions): PositionsBody | undefined {
  const bySlot = new Map<number, Watched>();
  for (const p of players) if (p.hex !== self) bySlot.set(p.slot, p);
  const gone: number[] = [];
  for (const [slot, h] of view.held) {
    if (gone.length >= MAX_GONE) break;
    if (bySlot.get(slot)?.hex !== h.hex) {
      gone.push(slot);
      view.held.delete(slot);
    }
  }
  if (now - view.nearAt >= o.nearEveryMs) chooseNear(view, bySlot, at, now, o);

  const picks: Watched[] = [];
  const dueFar: Watched[] = [];
  for (const p of bySlot.values()) {
    const h = view.held.get(p.slot);
    const stale = !h || now - h.at >= o.farMs;
    if (view.nearAll) {
      if (stale || !sameQPose(h.q, p.q)) picks.push(missed(p, h?.q));
    } else if (view.near.has(p.slot)) {
      // Its newest, every crowdNearMs (give or take half a tick of the ticks' jitter): the positions between are skipped on purpose.
      if (stale || (!sameQPose(h.q, p.q) && now - h.at >= o.crowdNearMs - tickMs / 2)) picks.push(p);
    } else if (stale) dueFar.push(p);
  }
  // The far share of this tick: enough that each is sent every farMs (with slack for joins);
  // the longest waiting first.
  const far = view.nearAll ? 0 : bySlot.size - view.near.size;
  const budget = Math.ceil(((far * tickMs) / o.farMs) * 1.25) + 1;
  dueFar.sort((a, b) => (view.held.get(a.slot)?.at ?? -Infinity) - (view.held.get(b.slot)?.at ?? -Infinity));
  const farPicks = new Set(dueFar.slice(0, budget));
  picks.push(...farPicks);

  const roster: { s: number; id: NodeId; l?: PlayerLook }[] = [];
  const entries: PositionEntry[] = [];
  for (const p of picks) {
    if (entries.length >= MAX_POSITION_ENTRIES) break;
    if (!view.held.has(p.slot)) {
      if (roster.length >= MAX_ROSTER) continue; // introduced next tick
      roster.push({ s: p.slot, id: p.id, ...(p.look ? { l: p.look } : {}) });
    }
    // A far player to within a quarter block (3 bytes: position-code.ts COARSE); the nearest exactly.
    entries.push({ slot: p.slot, q: farPicks.has(p) ? coarsen(p.q, view.held.get(p.slot)?.q) : p.q });
  }
  if (entries.length === 0 && gone.length === 0) return undefined;
  entries.sort((a, b) => a.slot - b.slot);
  const b = encodePositions(entries, (slot) => view.held.get(slot)?.q, (slot) => view.held.get(slot)?.prev);
  for (const e of entries) view.held.set(e.slot, { hex: bySlot.get(e.slot)!.hex, q: e.q, prev: view.held.get(e.slot)?.q, at: now });
  return { ...view.next(), b, ...(roster.length ? { roster } : {}), ...(gone.length ? { gone } : {}) };
}

/**
 * A near player whose two last positions both came since this subscriber's last (two MOVEs
 * in one tick: routes of different length, jitter at the tick's edge): the earlier goes now,
 * the later next tick, so no position of a near player is skipped. Otherwise the player as is.
 */
function missed(p: Watched, held: QPose | undefined): Watched {
  return held && p.prev && !sameQPose(held, p.prev) && !sameQPose(p.prev, p.q) ? { ...p, q: p.prev } : p;
}

function chooseNear(view: InterestView, others: Map<number, Watched>, at: Viewpoint | undefined, now: number, o: InterestOptions): void {
  view.nearAt = now;
  view.nearAll = others.size <= o.nearest;
  if (view.nearAll || !at) {
    view.near = new Set();
    return;
  }
  const ahead = o.aheadMs / 1000;
  const byDistance = [...others.values()].map((p) => ({
    slot: p.slot,
    d: distanceAfter(p.x - at.x, p.z - at.z, (p.v?.vx ?? 0) - (at.v?.vx ?? 0), (p.v?.vz ?? 0) - (at.v?.vz ?? 0), ahead),
  }));
  byDistance.sort((a, b) => a.d - b.d);
  view.near = new Set(byDistance.slice(0, o.nearest).map((p) => p.slot));
}

/** The views of one region's subscribers, as one host serves them. */
export class InterestLists {
  private readonly views = new Map<string, InterestView>();
  /** Where the views dropped last left off (hex -> next n): a view made again goes on counting. */
  private readonly dropped = new Map<string, number>();
  private readonly velocities = new PlayerVelocities();

  constructor(
    private readonly tickMs: number,
    private readonly o: InterestOptions = INTEREST_DEFAULTS,
  ) {}

  get size(): number {
    return this.views.size;
  }

  /** A frame for each subscriber that has something new (each tick: how the players walk is measured from it). */
  *frames(subscribers: Iterable<{ hex: string; at: { x: number; z: number } | undefined }>, players: readonly Watched[], now: number): Iterable<{ hex: string; body: PositionsBody }> {
    this.velocities.update(players, now);
    const walking = players.map((p) => ({ ...p, v: this.velocities.of(p.hex) }));
    for (const s of subscribers) {
      let view = this.views.get(s.hex);
      if (!view) this.views.set(s.hex, (view = new InterestView(this.dropped.get(s.hex))));
      const at = s.at && { ...s.at, v: this.velocities.of(s.hex) };
      const body = nextFrame(view, walking, s.hex, at, now, this.tickMs, this.o);
      if (body) yield { hex: s.hex, body };
    }
  }

  /** The subscriber starts afresh at our next frame (it lost a frame, or subscribed anew). */
  reset(hex: string): void {
    this.views.get(hex)?.reset();
  }

  /** Forget subscribers we no longer serve (but where their frames' numbers got to). */
  keepOnly(serving: (hex: string) => boolean): void {
    for (const [hex, view] of this.views) {
      if (serving(hex)) continue;
      this.views.delete(hex);
      this.dropped.delete(hex);
      this.dropped.set(hex, view.n);
      if (this.dropped.size > MAX_DROPPED) this.dropped.delete(this.dropped.keys().next().value!);
    }
  }
}
