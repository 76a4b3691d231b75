// Who stands in a region, as its primary tells its subscribers (PLAYERS): each player's
// believed position (motion-tracker.ts clamps what it reports), sent again only when the
// list changed, and forgotten after playerTtlMs without a report. Pure: time is passed in.
// The crowd work (issue 12) replaces the one list for everyone with lists by interest.
import { MAX_PLAYERS, type PlayerFrame } from '../region/subscription-messages';

/** Players tracked at once; beyond it the longest-silent one is forgotten (a MOVE flood of throwaway ids). */
export const MAX_TRACKED_PLAYERS = 1024;

export class RegionPresence {
  private readonly players = new Map<string, PlayerFrame & { at: number }>();
  private dirty = false;

  constructor(private readonly ttlMs: number) {}

  get size(): number {
    return this.players.size;
  }

  /** A player (hex id) reported standing here at `now`. */
  report(hex: string, player: PlayerFrame, now: number): void {
    this.players.delete(hex); // re-inserted last: the map stays in order of last report
    this.players.set(hex, { ...player, at: now });
    if (this.players.size > MAX_TRACKED_PLAYERS) this.players.delete(this.players.keys().next().value!);
    this.dirty = true;
  }

  /** A player (hex id) said it stands elsewhere now (it walked out): the next list drops it. */
  leave(hex: string): void {
    if (this.players.delete(hex)) this.dirty = true;
  }

  /** Where the players other than `hex` stand (feet), as reported within the TTL: no block goes inside them. */
  *bodiesExcept(hex: string, now: number): Iterable<{ x: number; y: number; z: number }> {
    for (const [h, p] of this.players) if (h !== hex && now - p.at <= this.ttlMs) yield p;
  }

  /** Where a player (hex id) was believed to stand at its last report within the TTL. */
  position(hex: string, now: number): { x: number; y: number; z: number } | undefined {
    const p = this.players.get(hex);
    return p && now - p.at <= this.ttlMs ? p : undefined;
  }

  /** The players reported within the TTL, with where they stand (hex id, position). */
  *standing(now: number): Iterable<[string, PlayerFrame]> {
    for (const [h, p] of this.players) if (now - p.at <= this.ttlMs) yield [h, p];
  }

  /** A new subscriber needs the list. */
  resend(): void {
    if (this.players.size > 0) this.dirty = true;
  }

  /** Someone's report is older than the TTL: the next list drops it. */
  checkExpiry(now: number): void {
    for (const p of this.players.values()) {
      if (now - p.at > this.ttlMs) {
        this.dirty = true;
        return;
      }
    }
  }

  /** The list to send when it changed since the last one (at most MAX_PLAYERS per frame), else undefined. */
  take(now: number): PlayerFrame[] | undefined {
    if (!this.dirty) return undefined;
    this.dirty = false;
    const out: PlayerFrame[] = [];
    for (const [hex, p] of this.players) {
      if (now - p.at > this.ttlMs) this.players.delete(hex);
      else if (out.length < MAX_PLAYERS) out.push({ id: p.id, name: p.name, x: p.x, y: p.y, z: p.z, yaw: p.yaw, pitch: p.pitch });
    }
    return out;
  }
}
