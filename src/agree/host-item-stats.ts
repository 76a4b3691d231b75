// Refused item input at a host, by reason (beside the vote engine's, the ledger's and the
// proof checker's counters): what a hostile or confused peer sent and this host dropped.

/** Refused item input at a host, by reason (beside the vote engine's and the ledger's counters). */
export interface HostItemStats {
  /** A vote frame for a region this host does not vote in now, or not yet (its ledger is catching up). */
  notVoting: number;
  /** A CLAIM naming another claimant than its sender. */
  impersonation: number;
  /** ITEM_STATE / ITEM_SEEN / handover not from a host of the region's set, or of another epoch. */
  notFromHost: number;
  /** ITEM_DROP at a host that is not the primary, or refused by the ledger. */
  dropRefused: number;
  /** Frames about a region this node does not host. */
  stray: number;
  /** Decisions and records that came without the voters' signatures (DECIDED without a proof, ITEM_STATE records without one). */
  unsigned: number;
  /** ITEM_BRING / an arrival to sign whose tombstone is not proven by its region's certified hosts. */
  unprovenCarry: number;
  /** Vote frames whose record this host cannot work out yet (the item not known here): not signed, not checked. */
  unprovable: number;
}

export const newHostItemStats = (): HostItemStats => ({ notVoting: 0, impersonation: 0, notFromHost: 0, dropRefused: 0, stray: 0, unsigned: 0, unprovable: 0, unprovenCarry: 0 });
