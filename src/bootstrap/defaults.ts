// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** One peer's wiring: peers asked of the relay, relay retries, doorway and join deadlines. */
export { PEER_DEFAULTS } from './peer';
/** A lone peer's searches for others: first and longest wait. */
export { PEER_FINDER_DEFAULTS } from './peer-finder';
/** Reopening a doorway that dropped: backoff, and when it counts as stable. */
export { DOORWAY_REOPEN_DEFAULTS } from './doorway-reopener';
/** Round-trip probes of live links: how often, samples kept, timeout. */
export { RTT_PROBE_DEFAULTS } from './rtt-probe';
