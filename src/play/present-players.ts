// Who stands in a region, as its primary lists them (the hosting page, window.voxel.hosting):
// names only as the players' nodes signed them, checked by the one checker a player tab uses
// (player-looks.ts). The look a MOVE carried is the sender's word, and a forged, borrowed or
// replayed one lists no name.
import { shortId, unnamedPlayerName } from '../world/player-name';
import type { PlayerFrame } from '../region/subscription-messages';
import type { PlayerLooks } from './player-looks';

/** A player standing in a region, as its primary knows it from the player's MOVE: the name its node signed (once proven, unnamedPlayerName till then) and the first 6 hex of its node id (two of one name told apart). */
export interface PresentPlayer {
  name: string;
  id: string;
}

/**
 * The players standing in a region (hex id, the look their MOVE carried), sorted by name then
 * id. A MOVE's look is the sender's word, checked here as a player tab checks a host's roster:
 * by the tab's one checker (play/player-looks.ts: signature over the sender's node id, replay,
 * ahead of time, rate). A name shows once its node's signature is proven (the check runs on
 * the first listing, so the next one shows it); until then, or with no checker, the unproven
 * form. A look proven before (MOVEs or a roster) stays shown over a worse one. */
export function presentPlayers(standing: Iterable<[string, PlayerFrame]>, looks: Pick<PlayerLooks, 'take' | 'shown'> | undefined): PresentPlayer[] {
  const out: PresentPlayer[] = [];
  for (const [hex, p] of standing) {
    if (p.look) looks?.take(p.id, hex, p.look, hex); // a MOVE comes from the player's own node
    out.push({ name: looks?.shown(hex)?.n ?? unnamedPlayerName(hex), id: shortId(hex) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
