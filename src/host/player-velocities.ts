// How fast, and which way, each player of a region walks, as a host sees its positions
// (issue 12 "Crowds": who will be near). A subscriber's nearest players are chosen by where
// they will be over the next second, not only where they stand (interest-lists.ts): in a
// crowd walking at random two players close in at up to twice a walker's speed, and the
// 32 nearest lie within ~10 blocks, so one a few places outside the nearest now is among
// them within a second. Velocity is the move over the last VELOCITY_MS or more (positions
// come 10 times a second, each a step of the walk). Pure: time is passed in.

/** Velocity is measured over at least this long. */
export const VELOCITY_MS = 200;
/** Velocities past this are taken as this (blocks a second): a teleport is no walk. */
const MAX_SPEED = 20;

export interface Velocity {
  vx: number;
  vz: number;
}

export class PlayerVelocities {
  private readonly track = new Map<string, { x: number; z: number; at: number; v: Velocity }>();

  /** This tick's positions (each player once); players not among them are forgotten. */
  update(players: Iterable<{ hex: string; x: number; z: number }>, now: number): void {
    const seen = new Set<string>();
    for (const p of players) {
      seen.add(p.hex);
      const t = this.track.get(p.hex);
      if (!t) {
        this.track.set(p.hex, { x: p.x, z: p.z, at: now, v: { vx: 0, vz: 0 } });
        continue;
      }
      const dt = (now - t.at) / 1000;
      if (dt * 1000 < VELOCITY_MS) continue;
      const vx = (p.x - t.x) / dt, vz = (p.z - t.z) / dt;
      const k = Math.min(1, MAX_SPEED / (Math.hypot(vx, vz) || 1));
      this.track.set(p.hex, { x: p.x, z: p.z, at: now, v: { vx: vx * k, vz: vz * k } });
    }
    if (seen.size < this.track.size) for (const hex of this.track.keys()) if (!seen.has(hex)) this.track.delete(hex);
  }

  of(hex: string): Velocity | undefined {
    return this.track.get(hex)?.v;
  }
}

/**
 * How close a player at relative position (dx, dz), moving at relative velocity (ux, uz),
 * comes within `horizonS` seconds (now included): the distance players are ranked by.
 */
export function closestWithin(dx: number, dz: number, ux: number, uz: number, horizonS: number): number {
  const u2 = ux * ux + uz * uz;
  const t = u2 > 0 ? Math.min(horizonS, Math.max(0, -(dx * ux + dz * uz) / u2)) : 0;
  return Math.hypot(dx + ux * t, dz + uz * t);
}
