// How fast, and which way, each player of a region walks, as a host sees its positions
// (crowds: who will be near). A subscriber's nearest players are chosen by where
// they will be about a second on, when the player whose position it is counts who is near
// (interest-lists.ts): in a crowd walking at random two players close in at up to twice a
// walker's speed, and the 32 nearest lie within ~10 blocks, so one a few places outside the
// nearest now is among them within a second.
// Velocity is a player's last step: its position less the one it reported before (MOVE
// comes every REPORT_MS), so it turns as the player turns. (Measured over the host's ticks
// instead, at least 200 ms apart, a step of the walk more or less fell in the span, so a
// speed was off by up to half, and a second old at worst: in a model of the crowd of 200,
// 11.9% of near pairs' windows missed a position, against 7.5% with the last step.) A
// player whose position has not changed for STILL_MS stands still. Pure: time is passed in.
import { POS_SCALE, sameQPose, type QPose } from '../region/position-code';
import { MOVE_MS } from '../region/move-rate';

/**
 * How often a walking player reports its position: MOVE's rate (region/move-rate.ts: on the
 * first page frame at or after each beat of its schedule, play/move-pace.ts).
 */
export const REPORT_MS = MOVE_MS;
/**
 * A player whose position stayed the same this long stands still: a few reports lost, or
 * late (a busy tab's frames come 100-200 ms apart), are not a stop.
 */
export const STILL_MS = 300;
/** Velocities past this are taken as this (blocks a second): a teleport is no walk. */
const MAX_SPEED = 20;

export interface Velocity {
  vx: number;
  vz: number;
}

export class PlayerVelocities {
  private readonly track = new Map<string, { q: QPose; changedAt: number; v: Velocity }>();

  /** This tick's positions (each player once; prev: its report before q); players not among them are forgotten. */
  update(players: Iterable<{ hex: string; q: QPose; prev?: QPose | undefined }>, now: number): void {
    const seen = new Set<string>();
    for (const p of players) {
      seen.add(p.hex);
      const t = this.track.get(p.hex);
      if (t && sameQPose(t.q, p.q)) {
        if (now - t.changedAt >= STILL_MS) t.v = { vx: 0, vz: 0 };
        continue;
      }
      this.track.set(p.hex, { q: p.q, changedAt: now, v: p.prev ? step(p.q, p.prev) : { vx: 0, vz: 0 } });
    }
    if (seen.size < this.track.size) for (const hex of this.track.keys()) if (!seen.has(hex)) this.track.delete(hex);
  }

  of(hex: string): Velocity | undefined {
    return this.track.get(hex)?.v;
  }
}

/** The velocity of a step from `prev` to `q` taken in REPORT_MS (blocks a second), at most MAX_SPEED. */
function step(q: QPose, prev: QPose): Velocity {
  const s = 1000 / REPORT_MS / POS_SCALE;
  const vx = (q.x - prev.x) * s, vz = (q.z - prev.z) * s;
  const k = Math.min(1, MAX_SPEED / (Math.hypot(vx, vz) || 1));
  return { vx: vx * k, vz: vz * k };
}

/**
 * How far a player at relative position (dx, dz), moving at relative velocity (ux, uz), will
 * be in `afterS` seconds, as it walks now: the distance players are ranked by.
 */
export function distanceAfter(dx: number, dz: number, ux: number, uz: number, afterS: number): number {
  return Math.hypot(dx + ux * afterS, dz + uz * afterS);
}
