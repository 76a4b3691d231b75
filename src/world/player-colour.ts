// A player's colour: what tints their avatar and their nametag in other people's worlds, and
// their name in the chat box and the "who is here" list. Chosen from a small fixed palette, so
// on the wire it is one small number a receiver checks exactly (an index out of the palette is
// a hostile sender's: its frame is dropped, never clamped), and no stranger picks a colour that
// hides a nametag (every entry reads against the label's dark backing and the sky). A player
// who chose none shows a colour derived from their id, the same in every tab.

/** The palette, as 0xRRGGBB; a colour travels as its index. */
export const PLAYER_COLOURS: readonly number[] = [
  0xe0473c, // red
  0xf08a24, // orange
  0xf2c230, // yellow
  0x8cc63f, // lime
  0x2fa84f, // green
  0x26b5a8, // teal
  0x3aa7e8, // sky
  0x3d63d9, // blue
  0x8a55d6, // violet
  0xd957b5, // pink
  0x9a6a3f, // brown
  0xe8e8e8, // white
];

/** Names of the palette's entries (the settings' choice, in palette order). */
export const PLAYER_COLOUR_NAMES: readonly string[] = ['red', 'orange', 'yellow', 'lime', 'green', 'teal', 'sky', 'blue', 'violet', 'pink', 'brown', 'white'];

/** The largest colour index a receiver takes. */
export const PLAYER_COLOUR_MAX = PLAYER_COLOURS.length - 1;

/** True when `c` is exactly a colour index (what a receiver checks: it clamps nothing). */
export function isPlayerColour(c: unknown): c is number {
  return typeof c === 'number' && Number.isInteger(c) && c >= 0 && c <= PLAYER_COLOUR_MAX;
}

/** The colour of a player who chose none: a hash (FNV-1a) of their id's hex digits into the palette. */
export function defaultPlayerColour(idHex: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < idHex.length; i++) {
    h ^= idHex.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % PLAYER_COLOURS.length;
}

/** A colour index as CSS ('#rrggbb'); an index out of the palette shows the first entry. */
export function playerColourCss(c: number): string {
  return `#${(PLAYER_COLOURS[c] ?? PLAYER_COLOURS[0]!).toString(16).padStart(6, '0')}`;
}
