// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** Hosting a region: host set, beats, failover, claims, leases, subscribers, rates, idle and unload. */
export { HOST_DEFAULTS } from './host-options';
/** What each subscriber of a crowded region hears of the players in it. */
export { INTEREST_DEFAULTS } from './interest-lists';
