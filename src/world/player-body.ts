// The player's body: an axis-aligned box 0.6 wide and 1.8 tall standing on its feet
// position, its eye, its reach and its fastest speeds. One place for the facts both sides
// use: the page's physics and crosshair (play/) and the hosts (host/), which refuse a block
// placed inside any player's body or out of reach, and a move faster than the game allows.
export const PLAYER_HALF_WIDTH = 0.3;
export const PLAYER_HEIGHT = 1.8;
/** The eye sits this far above the feet (the position a player reports). */
export const EYE_HEIGHT = 1.62;
/** The crosshair picks blocks this far from the eye at most. */
export const PLAYER_REACH = 6;
/** Fastest horizontal and upward speed the game allows (flying), blocks a second. */
export const FLY_SPEED = 12;
/** Fastest fall, blocks a second. */
export const TERMINAL_SPEED = 60;
/** Slack so a body touching a face does not count as inside the block beyond it. */
const EPS = 1e-4;

/** Whether a body with feet at (x, y, z) overlaps block (bx, by, bz). */
export function bodyOverlapsBlock(x: number, y: number, z: number, bx: number, by: number, bz: number): boolean {
  return (
    Math.floor(x - PLAYER_HALF_WIDTH + EPS) <= bx && bx <= Math.floor(x + PLAYER_HALF_WIDTH - EPS) &&
    Math.floor(y + EPS) <= by && by <= Math.floor(y + PLAYER_HEIGHT - EPS) &&
    Math.floor(z - PLAYER_HALF_WIDTH + EPS) <= bz && bz <= Math.floor(z + PLAYER_HALF_WIDTH - EPS)
  );
}
