// Every tuning object of this layer, one line each on what it tunes; each object, with why for
// each knob, stays beside the code that reads it. A newcomer looking for a setting starts here;
// src/defaults-index.test.ts fails when a *_DEFAULTS object is not listed in its layer's file.
/** One area's items: pickup reach, spawn lead and mean, items on the ground, time slack. */
export { ITEM_LEDGER_DEFAULTS } from './item-ledger';
/** A region's items at its hosts: how often state is shared, handover and catch-up waits. */
export { REGION_ITEMS_DEFAULTS } from './region-items-defaults';
/** Items at one hosting node: its tick, the first nonce. */
export { HOST_ITEMS_DEFAULTS } from './host-items';
/** Drops signed by a majority of the region's hosts: re-sends, giving up, drops held. */
export { REPLICATED_DROPS_DEFAULTS } from './replicated-drops';
/** The synchronised world clock: probe period and bursts, references. */
export { WORLD_CLOCK_DEFAULTS } from './world-clock';
