// What a region's hosts and its players must agree on about a host set, read by both from
// here: the hosts' options (host/host-options.ts) and the region client's
// (play/region-client-types.ts) take these as their defaults.

/** Hosts in a region's set: the primary and HOST_SET_SIZE - 1 backups. */
export const HOST_SET_SIZE = 3;

/**
 * The least time a set's majority is silent to a claimant before it may rebase over that set
 * (a certificate of the new set alone: docs/TRUST.md rule 7); for as long after it last heard
 * its primary, a subscriber takes a later certificate only as a link of its own chain.
 */
export const REBASE_SILENCE_MS = 10_000;
