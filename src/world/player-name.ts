// What a player may be called: the one rule the name field, the sender and every peer that
// receives a name (region hosts, other players) apply. A name is shown on a nametag in
// other people's worlds, so it is text a stranger chose: letters and digits of any script,
// space, '_' and '-', 1-16 characters. Everything else is refused rather than cleaned at the
// receiver: control and format characters (bidirectional overrides that reverse a
// neighbouring label, zero-width joiners that make two names look alike), combining marks
// piled into a tower, markup and emoji. The sender normalises what the person typed
// (Unicode NFC, trimmed, runs of spaces made one), so an honest name always passes the
// receivers' exact check and a name that does not is a hostile sender's.

/** Characters (code points) a name holds at most. */
export const PLAYER_NAME_MAX = 16;

const ALLOWED = /^[\p{L}\p{Nd}_ -]+$/u;

/** A typed name made a valid one, or undefined when no valid name can be made of it. */
export function normalisePlayerName(typed: string): string | undefined {
  // A cheap bound before any work on text of unbounded length.
  if (typed.length > PLAYER_NAME_MAX * 8) return undefined;
  const name = typed.normalize('NFC').trim().replace(/ {2,}/g, ' ');
  const chars = [...name].length;
  return chars >= 1 && chars <= PLAYER_NAME_MAX && ALLOWED.test(name) ? name : undefined;
}

/** True when `name` is exactly a valid name (what a receiver checks: it cleans nothing). */
export function isPlayerName(name: unknown): name is string {
  return typeof name === 'string' && normalisePlayerName(name) === name;
}

/** Hex digits of a node id shown to players to tell apart two who chose one name (who list, chat, unnamed players). */
export const SHORT_ID_HEX = 6;

/** A node id as players see it: its first SHORT_ID_HEX hex digits. */
export function shortId(idHex: string): string {
  return idHex.slice(0, SHORT_ID_HEX);
}

/** The name of a player who chose none: `player-` and the short id. */
export function defaultPlayerName(idHex: string): string {
  return `player-${shortId(idHex)}`;
}

/**
 * What a player is shown as while no look of theirs is proven (none came yet, or none that
 * their node signed): `?` and the short id of their node. No valid name holds a
 * `?`, so no player can choose to look like one.
 */
export function unnamedPlayerName(nodeHex: string): string {
  return `? ${shortId(nodeHex)}`;
}
