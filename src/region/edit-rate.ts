// The rate a region's primary allows each player's edits (host/edit-validator.ts refuses an
// edit past it as 'rate'), read from here by the hosts' rules and by the region client, which
// sends its edits at a pace under it (play/edit-pacer.ts): a player's own backlog must never
// meet the refusal that is there for a flooding one.

/** Sustained edits a second per player at a primary, and the burst it allows on top. */
export const EDIT_RATE = { perSec: 20, burst: 20 };
