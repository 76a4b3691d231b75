// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** Scrypt derivations of node keys others send: per source and for the realm, a second each and at once. */
export { DERIVATION_BUDGET_DEFAULTS } from './derivation-budget';
