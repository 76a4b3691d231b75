// Who stands in a region, as its primary knows from MOVE: each player's believed position
// (motion-tracker.ts clamps what it reports) and a small slot number that names it in
// POSITIONS frames (region/position-code.ts), forgotten after PLAYER_TTL_MS without a report.
// Also where subscribers that stand elsewhere look from (a MOVE to a region the player does
// not stand in), so the nearest players of a crowd can be chosen for them too
// (interest-lists.ts). Pure: time is passed in.
import type { NodeId } from '../core/node-id';
import { MAX_SLOT } from '../region/position-code';
import type { PlayerFrame } from '../region/subscription-messages';
import type { Watched } from './interest-lists';
import { sameLook } from '../region/player-look';

/** Players tracked at once; beyond it the longest-silent one is forgotten (a MOVE flood of throwaway ids). */
export const MAX_TRACKED_PLAYERS = 1024;
/**
 * A player's look (name and colour, region/player-look.ts) changes here at most this often: a
 * change costs every subscriber a slot's introduction, so a player flipping names or colours
 * each MOVE would flood them; a change sooner keeps the old look until then (the next MOVE
 * carrying the new one brings it). The look is kept as the player signed it: the host does not
 * check the signature (every receiver does), only keeps the newest stamp.
 */
export const NAME_CHANGE_MS = 5000;
/** A player without MOVE for this long leaves PLAYERS (primary-duty.ts builds its presence with it). */
export const PLAYER_TTL_MS = 3000;

export interface Standing extends PlayerFrame {
  slot: number;
  at: number;
  /** Where its report before this one put it (interest-lists.ts: a position two MOVEs in one tick would hide). */
  prev: PlayerFrame | undefined;
  /** When it took its look. */
  namedAt: number;
}

export class RegionPresence {
  private readonly players = new Map<string, Standing>();
  private readonly looks = new Map<string, { x: number; z: number; at: number }>();
  private readonly used = new Set<number>();
  private nextSlot = 0;
  /** Looks (name, colour) taken by players already here (a first look too), and changes held back by NAME_CHANGE_MS. */
  renames = 0;
  renamesHeld = 0;

  constructor(private readonly ttlMs: number) {}

  get size(): number {
    return this.players.size;
  }

  /** A player (hex id) reported standing here at `now`. */
  report(hex: string, player: PlayerFrame, now: number): void {
    let old = this.players.get(hex);
    // A MOVE without a look keeps the one held; an older or equal stamp changes nothing.
    let look = old?.look;
    const offered = player.look;
    if (offered && (!look || offered.w > look.w)) {
      if (old && !sameLook(look, offered)) {
        if (look && now - old.namedAt < NAME_CHANGE_MS) {
          this.renamesHeld++;
        } else {
          // A new slot: subscribers learn a slot's look only when it is introduced (interest-lists.ts).
          this.used.delete(old.slot);
          old = undefined;
          look = offered;
          this.renames++;
        }
      } else {
        look = offered; // the first, or the same name and colour signed again (a fresher stamp for new subscribers)
      }
    }
    this.players.delete(hex); // re-inserted last: the map stays in order of last report
    this.looks.delete(hex);
    const prev = old && { id: old.id, look: old.look, x: old.x, y: old.y, z: old.z, yaw: old.yaw, pitch: old.pitch };
    this.players.set(hex, { ...player, look, slot: old?.slot ?? this.freeSlot(), at: now, prev, namedAt: old?.namedAt ?? now });
    if (this.players.size > MAX_TRACKED_PLAYERS) this.leave(this.players.keys().next().value!);
  }

  /** A player (hex id) said it stands elsewhere now (it walked out, or looks in from next door). */
  leave(hex: string, at?: { x: number; z: number }, now?: number): void {
    const p = this.players.get(hex);
    if (p) {
      this.players.delete(hex);
      this.used.delete(p.slot);
    }
    if (!at || now === undefined) return;
    this.looks.delete(hex);
    this.looks.set(hex, { x: at.x, z: at.z, at: now });
    if (this.looks.size > MAX_TRACKED_PLAYERS) this.looks.delete(this.looks.keys().next().value!);
  }

  /** Where a subscriber (hex id) stands or looks from, as reported within the TTL. */
  viewpoint(hex: string, now: number): { x: number; z: number } | undefined {
    const l = this.looks.get(hex);
    return this.position(hex, now) ?? (l && now - l.at <= this.ttlMs ? l : undefined);
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

  /** The players standing here (expired ones forgotten), in ascending slots, with `q` made by `quantise`. */
  watched(now: number, quantise: (p: PlayerFrame) => Watched['q']): Watched[] {
    const out: Watched[] = [];
    for (const [hex, p] of this.players) {
      if (now - p.at > this.ttlMs) this.leave(hex);
      else out.push({ slot: p.slot, hex, id: p.id as NodeId, look: p.look, x: p.x, z: p.z, q: quantise(p), ...(p.prev ? { prev: quantise(p.prev) } : {}) });
    }
    return out.sort((a, b) => a.slot - b.slot);
  }

  private freeSlot(): number {
    // Slots are not reused at once: a subscriber hears of the old holder's going first.
    while (this.used.has(this.nextSlot)) this.nextSlot = (this.nextSlot + 1) % (MAX_SLOT + 1);
    const s = this.nextSlot;
    this.used.add(s);
    this.nextSlot = (s + 1) % (MAX_SLOT + 1);
    return s;
  }
}
