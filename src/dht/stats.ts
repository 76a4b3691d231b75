// Counters a dashboard (or the simulator) reads straight off `node.stats`; plain numbers,
// only ever incremented, so a reader can diff two snapshots.
import type { CodecErrorReason } from '../core/codec';
import type { IdWorkPoint } from './id-gate';

export type DropReason =
  | CodecErrorReason
  /** A reply nobody asked for (late, duplicated, or from the wrong peer). */
  | 'unexpected'
  /** A routed message with no live link closer to its destination. */
  | 'noRoute'
  /** A routed message whose hop limit ran out. */
  | 'ttl'
  /** A routed message seen before. */
  | 'duplicate'
  /** A ROUTE inside a ROUTE. */
  | 'nested'
  /** Over its link's frame or byte rate (link-set.ts). */
  | 'rateLimited'
  /**
   * A routed message for us whose signature fails, or whose public key does not hash to
   * its claimed source (a forwarder forged the source, altered the body, or swapped the key).
   */
  | 'forged'
  /** A routed message for us without a signature, where signed routes are required. */
  | 'unsigned'
  /**
   * A signed routed message for us whose timestamp is out of the age bound (a replay after
   * the duplicate window, or a clock too far off), or at or below the replay window's floor.
   */
  | 'stale';

/** Why a STORE was answered ok:false. */
export type StoreRefusal =
  /** We are not among the 2k nodes closest to the key that we know of (values.ts, `storeNearFactor`). */
  | 'notNear'
  /** The namespace's rule refused the value (by reason: `ruleRejects`). */
  | 'invalid'
  /** Not newer than the value held (by the rule's version). */
  | 'stale'
  | 'tooLarge'
  /** The namespace's table is full, or the store's total bytes are (value-store.ts). */
  | 'full'
  /** The publisher holds its share of the store already (value-store.ts `maxPerPublisher`). */
  | 'publisherFull'
  /** A ttl of 0. */
  | 'expired'
  /** We are a read-only node: we hold nobody's values (read-only-peers.ts). */
  | 'readOnly';

export interface DhtStats {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  /**
   * Frames and bytes sent and received on links by type (frame-types.ts: the DHT message's
   * name, 'ROUTE' for a routed envelope, '?' otherwise; a bounded set of keys).
   */
  framesInByType: Record<string, number>;
  framesOutByType: Record<string, number>;
  bytesInByType: Record<string, number>;
  bytesOutByType: Record<string, number>;
  /** Routed messages we originated, and those delivered to us, by their inner frame's type. */
  routedSentByType: Record<string, number>;
  routedDeliveredByType: Record<string, number>;
  dropped: Record<DropReason, number>;
  rpcSent: number;
  rpcTimeouts: number;
  rpcFailures: number;
  lookups: number;
  /** RPCs sent by lookups (sum over lookups). */
  lookupRpcs: number;
  /** Sum of lookup hops (see lookup.ts for the definition). */
  lookupHops: number;
  routedSent: number;
  routedForwarded: number;
  routedDelivered: number;
  /** Routed messages a dead end handed back to the node they came from (overlay-router.ts). */
  routedHandedBack: number;
  /** Routed messages we originated and signed, and signed ones for us whose signature checked. */
  routedSigned: number;
  routedVerified: number;
  /** Wall-clock ms spent awaiting signing and verifying routed messages (route-auth.ts). */
  routeSignMs: number;
  routeVerifyMs: number;
  dials: number;
  dialFailures: number;
  linksOpened: number;
  linksClosed: number;
  linksRefused: number;
  /** A peer's second link, long after ours opened, taken in place of ours (link-set.ts ESTABLISHED_LINK_MS). */
  linksReplaced: number;
  /** Pins refused: `maxPinnedLinks` peers pinned already (link-pins.ts). */
  pinsRefused: number;
  junkLinksClosed: number;
  /** Links closed for breaking their rate limits again and again. */
  floodLinksClosed: number;
  heartbeatTimeouts: number;
  /** Links PINGed because a route through them seemed to lose frames (Liveness.probeNow). */
  suspectProbes: number;
  /** Of those, links dropped for not answering. */
  suspectsDropped: number;
  storesAccepted: number;
  /** STOREs answered ok:false (the sum of storeRefused). */
  storesRejected: number;
  storeRefused: Record<StoreRefusal, number>;
  /**
   * Values a namespace rule refused, STOREd or read, by `ns:reason` (at most 32 keys,
   * record-rules.ts).
   */
  ruleRejects: Record<string, number>;
  /** Values answered to our gets that failed their rule (dropped, never returned). */
  valuesInvalid: number;
  /** Gets that ran a lookup, and the valid values their lookups collected. */
  getLookups: number;
  getAnswers: number;
  replications: number;
  /** Peers whose frame told us they are read-only (read-only-peers.ts): kept out of the table. */
  readOnlyMarked: number;
  /** Links to read-only peers retired past `maxReadOnlyLinks` (link-set.ts `setReadOnly`). */
  readOnlyLinksRetired: number;
  /** Ids refused for showing less work than `idWorkBits` (id-gate.ts), by where. */
  idWorkRefused: Record<IdWorkPoint, number>;
}

export function newStats(): DhtStats {
  return {
    framesIn: 0,
    framesOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    framesInByType: {},
    framesOutByType: {},
    bytesInByType: {},
    bytesOutByType: {},
    routedSentByType: {},
    routedDeliveredByType: {},
    dropped: {
      oversized: 0,
      malformed: 0,
      'unknown-type': 0,
      invalid: 0,
      unencodable: 0,
      unexpected: 0,
      noRoute: 0,
      ttl: 0,
      duplicate: 0,
      nested: 0,
      rateLimited: 0,
      forged: 0,
      unsigned: 0,
      stale: 0,
    },
    rpcSent: 0,
    rpcTimeouts: 0,
    rpcFailures: 0,
    lookups: 0,
    lookupRpcs: 0,
    lookupHops: 0,
    routedSent: 0,
    routedForwarded: 0,
    routedDelivered: 0,
    routedHandedBack: 0,
    routedSigned: 0,
    routedVerified: 0,
    routeSignMs: 0,
    routeVerifyMs: 0,
    dials: 0,
    dialFailures: 0,
    linksOpened: 0,
    linksClosed: 0,
    linksRefused: 0,
    linksReplaced: 0,
    pinsRefused: 0,
    junkLinksClosed: 0,
    floodLinksClosed: 0,
    heartbeatTimeouts: 0,
    suspectProbes: 0,
    suspectsDropped: 0,
    storesAccepted: 0,
    storesRejected: 0,
    storeRefused: { notNear: 0, invalid: 0, stale: 0, tooLarge: 0, full: 0, publisherFull: 0, expired: 0, readOnly: 0 },
    ruleRejects: {},
    valuesInvalid: 0,
    getLookups: 0,
    getAnswers: 0,
    replications: 0,
    readOnlyMarked: 0,
    readOnlyLinksRetired: 0,
    idWorkRefused: { link: 0, contact: 0, route: 0, answer: 0 },
  };
}
