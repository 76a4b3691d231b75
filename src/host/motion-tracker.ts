// Where the primary believes each player stands. Players report their own positions (MOVE,
// and the position carried by each EDIT); the primary accepts a report only as far as a
// player could have moved since the last one, and moves its belief towards anything
// farther at the fastest speed the game allows (a server-side "moved too quickly" check
// that never locks out an honest player: a teleported one catches up within seconds).
// Reach is then checked from this belief, so a client cannot edit far-off blocks by
// claiming to stand next to them. Pure: time is passed in.
import { FLY_SPEED, TERMINAL_SPEED } from '../world/player-body';
import { LruMap } from '../core/lru-map';

export interface Point {
  x: number;
  y: number;
  z: number;
}

// The game's fastest speeds (world/player-body.ts) with a margin for jitter in report timing.
export const MOTION_RULES = {
  /** Fastest horizontal and upward speed (flying) x 1.5. */
  maxSpeed: FLY_SPEED * 1.5,
  /** Fastest fall x 1.2. */
  maxFall: TERMINAL_SPEED * 1.2,
  /** Distance allowed on top of speed x time (rounding, a step up, a late report). */
  slack: 2,
  /** Beliefs unrefreshed for this long are forgotten (the next report is taken as is). */
  forgetMs: 30_000,
  /** Most players tracked at once (oldest forgotten first). */
  maxPlayers: 1024,
};

export type MotionRules = typeof MOTION_RULES;

interface Belief extends Point {
  at: number;
}

/** The part of a move from `from` to `to` that `dtMs` allows (all of it when plausible). */
export function clampStep(from: Point, to: Point, dtMs: number, rules: MotionRules = MOTION_RULES): { pos: Point; clamped: boolean } {
  const dt = Math.max(0, dtMs) / 1000;
  const reach = rules.maxSpeed * dt + rules.slack;
  const fall = rules.maxFall * dt + rules.slack;
  const dx = to.x - from.x, dz = to.z - from.z, dy = to.y - from.y;
  const h = Math.hypot(dx, dz);
  const kh = h > reach ? reach / h : 1;
  const y = dy > reach ? from.y + reach : dy < -fall ? from.y - fall : to.y;
  const clamped = kh < 1 || y !== to.y;
  return { pos: { x: from.x + dx * kh, y, z: from.z + dz * kh }, clamped };
}

export class MotionTracker {
  /** Players' believed positions, the least recently reported forgotten past the rules' maxPlayers. */
  private readonly beliefs: LruMap<string, Belief>;
  /** Reports the tracker did not take as they were. */
  clamped = 0;

  constructor(private readonly rules: MotionRules = MOTION_RULES) {
    this.beliefs = new LruMap(rules.maxPlayers);
  }

  /** Takes a player's reported position; returns where the primary now believes it is. */
  report(player: string, claimed: Point, now: number): Point {
    const prev = this.beliefs.peek(player);
    let pos: Point = { x: claimed.x, y: claimed.y, z: claimed.z };
    if (prev && now - prev.at < this.rules.forgetMs) {
      const step = clampStep(prev, claimed, now - prev.at, this.rules);
      if (step.clamped) this.clamped++;
      pos = step.pos;
    }
    this.beliefs.set(player, { ...pos, at: now });
    return pos;
  }
}
