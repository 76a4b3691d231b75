// A look (region/player-look.ts) of the right shape whose signature is no node's: what a
// hostile sender can always make, and what tests of the hosts' side (which keep looks but
// never check them) and the fuzz targets' seed frames carry.
import type { PlayerLook } from '../region/player-look';

export function sampleLook(n = 'h', c = 1, w = 1_750_000_000_000): PlayerLook {
  return { a: 0, k: new Uint8Array(32).fill(3), w, n, c, s: new Uint8Array(64).fill(4) };
}
