// Where to draw other players. Positions arrive at about the host's tick rate (20 Hz),
// late, jittered and sometimes not at all; drawn as they come, avatars would stutter and
// jump. Two stages, per player:
//  1. the goal G: snapshot interpolation, drawn `delayMs` in the past so that usually two
//     snapshots bracket the drawn instant; when none is newer (loss, lateness) the last
//     motion is extrapolated, for at most `maxExtrapolateMs`, then the avatar holds still;
//  2. the warped state W (Dueling Teapots, "state warping"): each frame W is extrapolated
//     (with the goal's velocity, capped) and blended towards the goal, W = F*W + (1-F)*G, so a goal that
//     jumps (a late snapshot correcting an extrapolation) is followed smoothly, never
//     teleported to. F = exp(-dt / WARP_TAU_MS) makes the filter independent of frame rate.
// A move longer than `TELEPORT_DISTANCE` between snapshots is a real teleport: it snaps.
// Pure and DOM-free: time is whatever clock the caller passes in (ms).
import type { Pose } from '../world/pose';
import { defaultPlayerColour } from '../world/player-colour';

export const REMOTE_PLAYER_DEFAULTS = {
  /** How far in the past players are drawn: two 20 Hz snapshots with one lost fit in it. */
  delayMs: 100,
  /** Extrapolate at most this long past the newest snapshot, then hold still. */
  maxExtrapolateMs: 250,
  /** A player silent this long is forgotten (a timeout, never a goodbye, decides it). */
  expireMs: 5000,
} as const;

/** Blocks per ms W may be carried by the goal's velocity (12 blocks/s: faster than a sprint). */
const MAX_SPEED = 0.012;
/** Time constant of the warping filter (larger: smoother, slower to correct). */
const WARP_TAU_MS = 80;
/** Blocks between consecutive snapshots beyond which the player is snapped, not warped. */
const TELEPORT_DISTANCE = 8;
/** Snapshots kept per player. */
const MAX_SNAPSHOTS = 32;
/** A frame gap longer than this (a hidden tab) snaps W to the goal instead of warping. */
const MAX_FRAME_GAP_MS = 500;

type Settings = { -readonly [K in keyof typeof REMOTE_PLAYER_DEFAULTS]: number };
export type RemotePlayerOptions = Partial<Settings>;

/** A remote player as drawn now; yaw in (-PI, PI]. */
export interface RemotePlayerSample extends Pose {
  id: string;
  name: string;
  /** Palette index (world/player-colour.ts). */
  colour: number;
}

interface Snapshot extends Pose { t: number }

interface Goal { x: number; y: number; z: number; vx: number; vy: number; vz: number; yaw: number; pitch: number }
type Warped = Omit<Goal, 'vx' | 'vy' | 'vz'>;

const TAU = Math.PI * 2;

/** Angle folded into (-PI, PI]. */
export function wrapAngle(a: number): number {
  const r = a - TAU * Math.floor((a + Math.PI) / TAU);
  return r === -Math.PI ? Math.PI : r;
}

/** The shortest signed turn from a to b. */
export function angleDelta(a: number, b: number): number {
  return wrapAngle(b - a);
}

class RemotePlayer {
  name: string;
  colour: number | undefined;
  private readonly snaps: Snapshot[] = [];
  lastHeardMs: number;
  /** (local arrival - sender time) minimum over recent updates: the sender's clock mapped to ours. */
  private readonly offsets: number[] = [];
  private warped: Warped | null = null;
  private lastSampleMs = NaN;

  constructor(private readonly o: Settings, name: string, atMs: number) {
    this.name = name;
    this.lastHeardMs = atMs;
  }

  add(s: Snapshot, atMs: number, sentMs: number | undefined): void {
    this.lastHeardMs = Math.max(this.lastHeardMs, atMs);
    if (sentMs !== undefined && Number.isFinite(sentMs)) {
      // Arrival times carry the network's jitter; sender stamps do not. The smallest
      // (arrival - sent) seen lately is the sender's clock on ours plus the least latency.
      this.offsets.push(atMs - sentMs);
      if (this.offsets.length > MAX_SNAPSHOTS) this.offsets.shift();
      s.t = sentMs + Math.min(...this.offsets);
    }
    const last = this.snaps[this.snaps.length - 1];
    if (last && Math.hypot(s.x - last.x, s.y - last.y, s.z - last.z) > TELEPORT_DISTANCE && s.t >= last.t) {
      this.snaps.length = 0;
      this.warped = null; // snap on the next sample
    }
    // Keep the buffer ordered by time; a duplicate or out-of-order stamp slots in or replaces.
    let i = this.snaps.length;
    while (i > 0 && this.snaps[i - 1]!.t > s.t) i--;
    if (i > 0 && this.snaps[i - 1]!.t === s.t) this.snaps[i - 1] = s;
    else this.snaps.splice(i, 0, s);
    if (this.snaps.length > MAX_SNAPSHOTS) this.snaps.shift();
  }

  /** The un-warped target at render time `t`. */
  private goal(t: number): Goal {
    const s = this.snaps;
    const last = s[s.length - 1]!;
    if (t >= last.t) {
      const prev = s[s.length - 2];
      if (!prev) return { ...last, vx: 0, vy: 0, vz: 0 };
      const span = last.t - prev.t;
      const ahead = Math.min(t - last.t, this.o.maxExtrapolateMs);
      const moving = t - last.t < this.o.maxExtrapolateMs && span > 0;
      const vx = span > 0 ? (last.x - prev.x) / span : 0, vy = span > 0 ? (last.y - prev.y) / span : 0, vz = span > 0 ? (last.z - prev.z) / span : 0;
      return {
        x: last.x + vx * ahead, y: last.y + vy * ahead, z: last.z + vz * ahead,
        vx: moving ? vx : 0, vy: moving ? vy : 0, vz: moving ? vz : 0,
        yaw: last.yaw, pitch: last.pitch,
      };
    }
    const first = s[0]!;
    if (t <= first.t) return { ...first, vx: 0, vy: 0, vz: 0 };
    let j = s.length - 1;
    while (j > 0 && s[j - 1]!.t > t) j--;
    const a = s[j - 1]!, b = s[j]!;
    const span = b.t - a.t;
    const k = span > 0 ? (t - a.t) / span : 1;
    return {
      x: a.x + (b.x - a.x) * k, y: a.y + (b.y - a.y) * k, z: a.z + (b.z - a.z) * k,
      vx: span > 0 ? (b.x - a.x) / span : 0, vy: span > 0 ? (b.y - a.y) / span : 0, vz: span > 0 ? (b.z - a.z) / span : 0,
      yaw: wrapAngle(a.yaw + angleDelta(a.yaw, b.yaw) * k), pitch: a.pitch + (b.pitch - a.pitch) * k,
    };
  }

  sample(nowMs: number): Warped {
    const g = this.goal(nowMs - this.o.delayMs);
    const dt = nowMs - this.lastSampleMs;
    this.lastSampleMs = nowMs;
    const w = this.warped;
    if (!w || !(dt >= 0) || dt > MAX_FRAME_GAP_MS) {
      this.warped = { x: g.x, y: g.y, z: g.z, yaw: g.yaw, pitch: g.pitch };
      return this.warped;
    }
    const f = Math.exp(-dt / WARP_TAU_MS);
    // Teapots: extrapolate W, then blend it towards the goal. W moves with the goal's
    // velocity, capped at a plausible speed: in steady motion W tracks G exactly (no lag),
    // while a goal that lurches (a correction, a late snapshot) is low-passed, not followed.
    const speed = Math.hypot(g.vx, g.vy, g.vz);
    const cap = speed > MAX_SPEED ? MAX_SPEED / speed : 1;
    w.x = f * (w.x + g.vx * cap * dt) + (1 - f) * g.x;
    w.y = f * (w.y + g.vy * cap * dt) + (1 - f) * g.y;
    w.z = f * (w.z + g.vz * cap * dt) + (1 - f) * g.z;
    w.yaw = wrapAngle(w.yaw + (1 - f) * angleDelta(w.yaw, g.yaw));
    w.pitch = f * w.pitch + (1 - f) * g.pitch;
    return w;
  }

  /** Drops snapshots older than the one bracketing render time (they can never be used again). */
  prune(renderT: number): void {
    while (this.snaps.length > 2 && this.snaps[1]!.t <= renderT) this.snaps.shift();
  }
}

/** Every remote player one client draws, by player id. */
export class RemotePlayers {
  private readonly o: Settings;
  private readonly players = new Map<string, RemotePlayer>();

  constructor(opts: RemotePlayerOptions = {}) {
    this.o = { ...REMOTE_PLAYER_DEFAULTS, ...opts };
  }

  /**
   * A position update for player `id`, received at local time `atMs`. When the sender's
   * own timestamp is known (`sentMs`, e.g. the host's tick time) pass it too: snapshots are
   * then spaced by when they were sent, not by when the network delivered them. `colour`:
   * the player's palette index, when its host said it (none: the one its id gives).
   */
  update(id: string, name: string, x: number, y: number, z: number, yaw: number, pitch: number, atMs: number, sentMs?: number, colour?: number): void {
    if (![x, y, z, yaw, pitch, atMs].every(Number.isFinite)) return;
    let p = this.players.get(id);
    if (!p) this.players.set(id, (p = new RemotePlayer(this.o, name, atMs)));
    p.name = name;
    if (colour !== undefined) p.colour = colour;
    p.add({ t: atMs, x, y, z, yaw: wrapAngle(yaw), pitch }, atMs, sentMs);
  }

  /** Where to draw every player at local time `nowMs` (call once per frame); forgets silent ones. */
  sample(nowMs: number): RemotePlayerSample[] {
    const out: RemotePlayerSample[] = [];
    for (const [id, p] of this.players) {
      if (nowMs - p.lastHeardMs > this.o.expireMs) {
        this.players.delete(id);
        continue;
      }
      const w = p.sample(nowMs);
      p.prune(nowMs - this.o.delayMs);
      out.push({ id, name: p.name, colour: p.colour ?? defaultPlayerColour(id), x: w.x, y: w.y, z: w.z, yaw: w.yaw, pitch: w.pitch });
    }
    return out;
  }

  remove(id: string): boolean {
    return this.players.delete(id);
  }

  has(id: string): boolean {
    return this.players.has(id);
  }

  get size(): number {
    return this.players.size;
  }

  ids(): string[] {
    return [...this.players.keys()];
  }
}
