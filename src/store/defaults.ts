// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** The identities kept in the browser: database, node id pool and its leases, id work. */
export { IDENTITY_STORE_DEFAULTS } from './identity-store';
