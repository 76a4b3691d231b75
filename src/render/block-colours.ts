// Per-face vertex colours for every block id, in linear RGB (three.js treats vertex
// colours as linear; block colours in the registry are sRGB hex). The directional shade
// is baked in per face so the greedy mesher can merge faces without caring about light,
// and so terrain reads well even where the sun does not reach.
import { BLOCKS } from '../world/blocks';

/** Face order used across render/: +x, -x, +y, -y, +z, -z (axis * 2 + (negative ? 1 : 0)). */
export const FACE_SHADE = [0.8, 0.8, 1.0, 0.55, 0.68, 0.68] as const;

/** Brightness of a vertex by its ambient-occlusion level (0 = corner boxed in, 3 = open). */
export const AO_LEVEL = [0.5, 0.68, 0.84, 1.0] as const;

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/** FACE_COLOUR[(id * 6 + face) * 3 + channel], linear, shade applied. */
export const FACE_COLOUR: Float32Array = (() => {
  const t = new Float32Array(256 * 6 * 3);
  for (const b of BLOCKS) {
    for (let face = 0; face < 6; face++) {
      const hex = face === 2 ? b.top : face === 3 ? b.bottom : b.side;
      const shade = FACE_SHADE[face]!;
      for (let ch = 0; ch < 3; ch++) {
        const srgb = ((hex >> (16 - 8 * ch)) & 0xff) / 255;
        t[(b.id * 6 + face) * 3 + ch] = srgbToLinear(srgb) * shade;
      }
    }
  }
  return t;
})();
