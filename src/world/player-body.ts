// The player's body: an axis-aligned box 0.6 wide and 1.8 tall standing on its feet
// position. Shared by the page's physics (play/physics.ts) and the hosts, which refuse a
// block placed inside any player's body (host/edit-validator.ts).
export const PLAYER_HALF_WIDTH = 0.3;
export const PLAYER_HEIGHT = 1.8;
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
