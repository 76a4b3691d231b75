// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
// A value no caller, test or bench sets is no option: it is a named constant beside the code
// that reads it, with its why.
/** The DHT node: k, lookups, RPC and heartbeat timeouts, refresh, values, routes, links (LINK_BUDGET_DEFAULTS and LINK_LIMIT_DEFAULTS spread in). */
export { DHT_DEFAULTS } from './dht-options';
/** How many links a node holds: the budget, per bucket, pinned and read-only links. */
export { LINK_BUDGET_DEFAULTS } from './link-budget';
/** Per-link size and rate limits on what a peer sends. */
export { LINK_LIMIT_DEFAULTS } from './link-set';
/** The values a node holds: bytes in all, and per publisher. */
export { VALUE_STORE_DEFAULTS } from './value-store';
