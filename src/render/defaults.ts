// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
// A value no caller, test or bench sets is no option: it is a named constant beside the code
// that reads it, with its why.
/** The three.js view: render distance, field of view, transparent opacity, ambient occlusion. */
export { WORLD_RENDERER_DEFAULTS } from './world-renderer-defaults';
