// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** The three.js view: render distance, field of view, transparent opacity, ambient occlusion, pixel ratio. */
export { WORLD_RENDERER_DEFAULTS } from './world-renderer';
/** Sky, fog and light: colours, fog start, intensities. */
export { SKY_DEFAULTS } from './sky';
/** Items lying in the world: spin, hover, bob. */
export { ITEM_MODEL_DEFAULTS } from './item-models';
/** Meshing workers: how many, cores left free. */
export { MESHER_POOL_DEFAULTS } from './mesher-pool';
