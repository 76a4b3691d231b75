// The DHT as the other layers see it: one interface, its events, what it returns and its
// errors. `DhtNode` (dht-node.ts) implements it; a consumer types against `Dht`, or a
// `Pick` of it, never the class, so the parts behind it (join.ts, liveness.ts, ...) can
// change without touching another layer.
import type { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import type { LookupResult } from './lookup';
import type { NearView } from './near-view';
import type { Namespace } from './messages';
import type { DhtStats } from './stats';
import type { TransportProbe } from '../net/transport-watch';
import { VoxelError } from '../core/errors';

export interface DhtEvents extends Record<string, unknown> {
  /** An application payload sent to us with `send`. */
  message: { from: NodeId; body: Uint8Array };
  /** `readOnly`: the peer is a read-only node (read-only-peers.ts), so no host nor router. */
  'link-open': { id: NodeId; outbound: boolean; readOnly: boolean };
  'link-close': { id: NodeId; reason: string; readOnly: boolean };
  /** A join finished (its peers dialled, own id looked up): start's, and each join's. */
  ready: { contacts: number };
}

/**
 * A reader's own test of a value it read (Dht.get): true to believe it. `via`: the peer (hex)
 * that sent the value (the holder that answered, or the STORE's sender of our own copy;
 * OWN_SOURCE, core/derivation-budget.ts, when we published it: no budget), whose derivation
 * budget a test that derives keys spends.
 */
export type ValueFilter = (value: Uint8Array, via?: string) => Promise<boolean>;

/** How Dht.get reads. */
export interface GetOptions {
  /**
   * The read's lookup is also the reader's lookup of the key by disjoint paths (near-view.ts
   * `live`): it goes on past its values until every path ended, its answers are noted as that
   * lookup's, and only then is `accept` asked (it may judge by them). For a reader about to
   * check the key's certificate against its own lookup: one lookup instead of two.
   */
  live?: boolean;
}

export interface GotValue {
  value: Uint8Array;
  publisher: NodeId;
  /** The wire seq (set by the publisher; not what orders values in a namespace with a rule). */
  seq: number;
  /** The version its namespace rule gave it (the default rule's: seq). */
  version: number;
  /** Remaining lifetime in ms. */
  ttlMs: number;
  /** The peer (hex) that sent it: the holder whose answer it was, or the STORE's sender of our own copy (OWN_SOURCE: we published it). */
  via?: string;
}

export interface LinkInfo {
  id: NodeId;
  hex: string;
  outbound: boolean;
  pinned: boolean;
  rttMs: number | null;
  /** Its peer is read-only (read-only-peers.ts): no host, holder or router for others. */
  readOnly: boolean;
}

export interface PutOptions {
  /** Lifetime; default `valueTtlMs` (1 h). */
  ttlMs?: number;
  /** Wire seq; default one more than the last we published or hold for the key. */
  seq?: number;
}

export interface Dht {
  readonly selfId: NodeId;
  readonly selfHex: string;
  readonly events: Emitter<DhtEvents>;
  /** Counters, only ever incremented (stats.ts). */
  readonly stats: DhtStats;
  readonly isRunning: boolean;
  /** A read-only node (DhtOptions.readOnly): nobody's contact, holder or router; it hosts nothing. */
  readonly readOnly: boolean;
  /** Whether the peer's last frame to us said it hosts no regions (read-only, or DhtOptions.noHost): never a region host. */
  hostsNothing(hex: string): boolean;
  /** Dials the bootstrap peers, looks up our own id; resolves when joined (JoinError if not). */
  start(): Promise<void>;
  /** Joins a running node through `peers` (found since it started); JoinError if none was reached, the node left running. */
  join(peers: readonly NodeId[]): Promise<void>;
  stop(): void;
  /** Iterative FIND_NODE: the k closest live nodes to target. */
  findNode(target: NodeId): Promise<LookupResult>;
  /** Stores value on the k nodes closest to key; resolves with how many took it. */
  put(ns: Namespace, key: NodeId, value: Uint8Array, opts?: PutOptions): Promise<{ stored: number }>;
  /**
   * The highest valid version among a few holders' values, or undefined. `accept`: the
   * reader's own test on top of the namespace's rule (a certificate it anchors itself); a
   * value it refuses is dropped as invalid, so a higher forged version cannot hide a lower
   * one the reader believes.
   */
  get(ns: Namespace, key: NodeId, accept?: ValueFilter, o?: GetOptions): Promise<GotValue | undefined>;
  /**
   * Routes an application payload to any node id ('message' there). False if no first hop.
   * `mayWait`: nobody waits on it, so over a direct link it may wait briefly for company in
   * one frame (net/link.ts); a routed payload leaves at once.
   */
  send(to: NodeId, body: Uint8Array, mayWait?: boolean): boolean;
  /**
   * Pins a direct link to a peer one talks to often, for `owner` (default 'app'), opening
   * it if none is held. The pin is the peer's, not one link's: a link to it opened later,
   * by either end, is pinned too. Refused (counted, nothing dialled) past `maxPinnedLinks`.
   */
  connect(id: NodeId, owner?: string): Promise<void>;
  /**
   * Dials a peer through the relay when we hold no link to it, at most every 10 s per peer:
   * for a peer a higher layer must reach and gets no answer from (a healed partition can
   * leave two overlays with no path between them).
   */
  reach(id: NodeId): void;
  /** `owner` lets go of its pin (default 'app'); once nobody pins the link, the budget may close it again. */
  unpin(id: NodeId, owner?: string): void;
  /**
   * Our frames to `id` seem lost (an answer that was due did not come): the first hop of our
   * route to it is PINGed now and dropped if silent, so the next frame takes another route.
   */
  suspectRoute(id: NodeId): void;
  /**
   * `id` seems dead (it went silent where it should have spoken): our link to it, if any, is
   * PINGed now and closed if silent, before the periodic checks would notice; until it
   * answers, frames for others are not routed through it.
   */
  suspect(id: NodeId): void;
  /** Whether `id` answers a PING (over its link, else routed) before the RPC timeout. */
  ping(id: NodeId): Promise<boolean>;
  linkInfo(): LinkInfo[];
  /** Whether we hold an open link to this node (hex id): a frame to it goes direct, not routed. */
  linked(hex: string): boolean;
  /** Our link to this node (hex id), watched at the transport (net/transport-watch.ts); undefined: no link, or one whose runtime cannot tell. */
  transport?(hex: string): TransportProbe | undefined;
  /** Our own view of the nodes nearest a key: table, recent lookups' answers, ourselves (near-view.ts). */
  readonly nearView: NearView;
  /**
   * Zero bits of id work a peer's id must show to be dealt with (DhtOptions.idWorkBits): the
   * ids in `nearView` show them, and a certificate's named host without them is far
   * (region/cert-checker.ts).
   */
  readonly idWorkBits: number;
  /** The n contacts of our table closest to target, closest first (no network traffic). */
  closestContacts(target: NodeId, n: number): NodeId[];
  /** Every contact of our table. */
  contacts(): NodeId[];
  /** A contact heard of outside the DHT (the relay's live peers): the link budget may dial it. */
  addContact(id: NodeId): void;
  /**
   * Forgets the dial backoffs (a peer that closed a link on us is not redialled for
   * dialBackoffMs) and checks the link budget soon, when we hold no link: a lone peer's
   * search (bootstrap/peer.ts), after its links all dropped at once as when its network changed,
   * dials its peers again at once instead of waiting the backoff out. With a link, nothing.
   */
  retryDialsIfAlone(): void;
}

export class JoinError extends VoxelError {
  readonly code = 'join-failed';
  override readonly name = 'JoinError';
}
export class ValueTooLargeError extends VoxelError {
  readonly code = 'value-too-large';
  override readonly name = 'ValueTooLargeError';
}
export class NoRouteError extends VoxelError {
  readonly code = 'no-route';
  override readonly name = 'NoRouteError';
}
/** put() of a value its namespace's rule refuses (no other node would take it either). */
export class RecordRejectedError extends VoxelError {
  readonly code = 'record-rejected';
  override readonly name = 'RecordRejectedError';
  constructor(readonly ns: Namespace, readonly reason: string) {
    super(`${ns} record refused by its rule: ${reason}`);
  }
}
