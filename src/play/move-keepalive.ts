// Whether a MOVE is worth sending: a player's position, look or primary changed since the
// last one it sent, or MOVE_KEEPALIVE_MS went by (region/move-rate.ts). A standing player sent
// the same pose 20 times a second before: a primary's MOVEs in, its presence, velocities and
// fan-out walked for nothing. The pose compared is the one last *sent*, not the last frame's,
// so the final step of a walk always goes (it may fall between MOVE's beats). A new primary
// (failover, or the player crossed into another region) hears the player at once rather than
// at the next keep-alive. Pure: time is passed in.
import type { PlayerLook } from '../region/player-look';
import { samePose, type Pose } from '../world/pose';

interface Sent {
  pose: Pose;
  look: PlayerLook | undefined;
  to: string | undefined;
  at: number;
}

export class MoveKeepAlive {
  private last: Sent | undefined;

  constructor(private readonly keepAliveMs: number) {}

  /** Whether a MOVE of `pose` with `look` to primary `to` (hex; undefined: none attached) should go at `now`. */
  needed(pose: Pose, look: PlayerLook | undefined, to: string | undefined, now: number): boolean {
    const l = this.last;
    return !l || now - l.at >= this.keepAliveMs || l.look !== look || l.to !== to || !samePose(l.pose, pose);
  }

  /** A MOVE went at `now`. */
  sent(pose: Pose, look: PlayerLook | undefined, to: string | undefined, now: number): void {
    this.last = { pose: { ...pose }, look, to, at: now };
  }
}
