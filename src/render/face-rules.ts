// Which faces the mesher draws. One rule covers every pair of blocks:
//
//   the face of block `a` towards neighbour `b` is drawn iff
//   a is not air, b does not hide it (b is not opaque), and a !== b.
//
// So opaque blocks show faces against anything see-through (air, water, glass,
// leaves); water shows its surface against air (and glass/leaves) but never against
// water or against stone, so a lake is one skin, not a grid of inner walls; glass and
// leaves show faces against air and other kinds of transparent block but not against
// their own kind (a hedge of leaves is drawn as one hull: cheaper, and with flat vertex
// colours inner faces would add nothing). HIDDEN marks cells we know nothing about (a
// neighbour column not loaded yet, below the world): it is opaque, so no face is drawn
// at an unknown border; the caller remeshes that border once the neighbour arrives.
import { BLOCK_COUNT, TRANSPARENT } from '../world/blocks';

/** Padding value for unknown cells: hides faces, never drawn itself. */
export const HIDDEN = 255;

/** OPAQUE[id] = 1 when the block hides faces behind it. Unknown ids count as opaque. */
export const OPAQUE: Uint8Array = (() => {
  const t = new Uint8Array(256).fill(1);
  for (let id = 0; id < BLOCK_COUNT; id++) t[id] = TRANSPARENT[id] ? 0 : 1;
  return t;
})();

/** PASS[id]: 0 = opaque pass, 1 = transparent pass (blended / see-through geometry). */
export const PASS: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (let id = 0; id < BLOCK_COUNT; id++) t[id] = TRANSPARENT[id] ? 1 : 0;
  return t;
})();
