// The rows of the "who is here" list (Tab), without a DOM so it is tested in Node: the
// players the hosts around us report, nearest first. The short id beside each name tells
// apart two players who chose the same one (names are not unique). A name is passed on as
// the characters it is: the overlay puts it in a text node, so markup in it shows as text.
// Each row carries the player's colour (world/player-colour.ts) as CSS, for the swatch beside the name.
import { playerColourCss } from '../world/player-colour';
import { shortId } from '../world/player-name';

/** Rows at most: a crowd's list stays one screen and costs one sort of a bounded slice. */
export const WHO_MAX_ROWS = 64;
/** A remote player as drawn (play/remote-player-smoother.ts): node id (hex), name, colour (palette index), feet position. */
export interface WhoPlayer {
  id: string;
  name: string;
  colour: number;
  x: number;
  y: number;
  z: number;
}

/** A live link of this node (window.voxel.net.links()): the peer's node id (hex) and its round trip, when measured. */
export interface WhoLink {
  id: string;
  rttMs: number | null;
}

export interface WhoRow {
  /** Node id (hex) of the player's tab. */
  id: string;
  /** Its short id (world/player-name.ts). */
  shortId: string;
  name: string;
  /** The player's colour, '#rrggbb'. */
  colour: string;
  /** Straight-line distance from our feet to theirs, in whole blocks. */
  distance: number;
  /** Round trip of our direct link to their node (ms, whole); null when not linked or not measured yet. */
  rttMs: number | null;
  /** The link column as shown: '23 ms', or '-'. */
  link: string;
}

/** The list's rows: nearest first (ties by name, then id, so the order holds still), at most `maxRows`. */
export function whoRows(players: readonly WhoPlayer[], self: { x: number; y: number; z: number }, links: readonly WhoLink[]): WhoRow[] {
  const rtt = new Map<string, number>();
  for (const l of links) if (l.rttMs !== null && Number.isFinite(l.rttMs)) rtt.set(l.id, Math.round(l.rttMs));
  const far = (p: WhoPlayer) => {
    const d = Math.hypot(p.x - self.x, p.y - self.y, p.z - self.z);
    // A position that is not a number (never expected from a host) sorts last instead of poisoning the order.
    return Number.isFinite(d) ? d : Infinity;
  };
  const sorted = players.map((p) => ({ p, d: far(p) })).sort((a, b) => a.d - b.d || cmp(a.p.name, b.p.name) || cmp(a.p.id, b.p.id));
  return sorted.slice(0, WHO_MAX_ROWS).map(({ p, d }) => {
    const ms = rtt.get(p.id);
    return {
      id: p.id,
      shortId: shortId(p.id),
      name: p.name,
      colour: playerColourCss(p.colour),
      distance: Number.isFinite(d) ? Math.round(d) : Infinity,
      rttMs: ms ?? null,
      link: ms === undefined ? '-' : `${ms} ms`,
    };
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
