// The other players this tab shows, from the POSITIONS of the regions it watches: each with
// the region whose primary reported it and when, its name and colour only as its node signed
// them (player-looks.ts). A host's POSITIONS carry only the players whose turn it was
// (interest-lists.ts: the nearest at every change, the others round-robin), so the players not
// named stay; those named gone leave at once, and one not heard of for `PLAYER_EXPIRE_MS` (its
// region's hosts died, or we stopped watching) goes too.
import { idToHex } from '../core/node-id';
import type { PlayerLook } from '../region/player-look';
import type { PlayerFrame } from '../region/subscription-messages';
import { defaultPlayerColour } from '../world/player-colour';
import { unnamedPlayerName } from '../world/player-name';
import type { PlayerLooks } from './player-looks';

/**
 * A remote player not heard of for this long is no longer listed: well above the hosts'
 * round-robin period (interest-lists.ts farMs), below the smoother's own expiry.
 */
const PLAYER_EXPIRE_MS = 3000;
/** How often the player list drops the players not heard of for PLAYER_EXPIRE_MS. */
const EXPIRE_SWEEP_MS = 250;

/** Another player as this tab shows it: its name and colour only as its node signed them (player-looks.ts). */
export interface RemotePlayer extends Omit<PlayerFrame, 'look'> {
  hex: string;
  /** Its proven name, or unnamedPlayerName while none is. */
  name: string;
  /** Its proven colour (palette index), or the one its node id gives while none is. */
  colour: number;
  /** Region whose primary reported it. */
  region: string;
  /** Local clock time of the report (for interpolation). */
  at: number;
}

export class RemotePlayerList {
  private readonly players = new Map<string, RemotePlayer>();
  /** When the list last dropped its expired players. */
  private sweptAt = -Infinity;

  /** `selfHex`: this tab's node, never listed. `looks`: the other players' proven looks (none: every one shows unnamed). */
  constructor(private readonly selfHex: string, private readonly looks: () => PlayerLooks | undefined) {}

  /** A POSITIONS of region `region` (its name) heard at local time `now` from the host `via` (hex: whose derivation budget the looks' new keys spend). */
  take(region: string, list: readonly PlayerFrame[], gone: readonly string[], now: number, via?: string): void {
    const looks = this.looks();
    // Gone first: a player renamed is gone from its old slot and listed in its new one in the same frame.
    for (const hex of gone) if (this.players.get(hex)?.region === region) this.players.delete(hex);
    for (const f of list) {
      const hex = idToHex(f.id);
      if (hex === this.selfHex) continue;
      // The look as a host gave it shows only once proven (player-looks.ts); until then, the one proven before.
      if (f.look) looks?.take(f.id, hex, f.look, via);
      const shown = looks?.shown(hex);
      // Field by field, not `{ ...rest }` of the frame: one entry per player per POSITIONS
      // frame, and copying a rest object's fields was 7% of a crowd simulation's time.
      this.players.set(hex, {
        id: f.id, x: f.x, y: f.y, z: f.z, yaw: f.yaw, pitch: f.pitch,
        hex, name: shown?.n ?? unnamedPlayerName(hex), colour: shown?.c ?? defaultPlayerColour(hex), region, at: now,
      });
    }
    // The sweep walks every player we know: a few times a second, not per frame (a crowd's
    // frames come 20 a second from each host; the sweep per frame was 7% of a 400-player
    // simulation's time). A player leaves at most EXPIRE_SWEEP_MS late.
    if (now - this.sweptAt >= EXPIRE_SWEEP_MS) {
      this.sweptAt = now;
      for (const [hex, p] of this.players) if (now - p.at > PLAYER_EXPIRE_MS) this.players.delete(hex);
    }
  }

  /** A look proven since its player was listed: it shows now. */
  showLook(hex: string, look: PlayerLook): void {
    const p = this.players.get(hex);
    if (!p) return;
    p.name = look.n;
    p.colour = look.c;
  }

  /** The players region `region` (its name) reported go: it is no longer watched. */
  dropRegion(region: string): void {
    for (const [hex, p] of this.players) if (p.region === region) this.players.delete(hex);
  }

  list(): RemotePlayer[] {
    return [...this.players.values()];
  }
}
