// What a region client is given and what it reports: its arguments, its events and
// counters, and the errors an edit can end with. It has no options: each timing is a constant
// of the module that reads it (region-client.ts, primary-search.ts, submitted-edits.ts).
import { EditRejectedError, EditTimeoutError } from '../world/edit-error';
import type { Clock } from '../core/clock';
import type { NodeId } from '../core/node-id';
import type { Verifier } from '../core/signer';
import type { Dht } from '../dht/dht';
import type { EpochCert } from '../region/epoch-cert';
import type { CertChecker } from '../region/cert-checker';
import type { KeyHash, RegionCoord } from '../region/region-key';
import type { Entry, RegionState, Stamp } from '../region/region-state';
import type { PlayerWire } from '../region/region-wire';
import type { PlayerFrame } from '../region/subscription-messages';
import type { DeltaOrder, GapCause } from './delta-order';
import type { PendingView, TakenBack } from './pending-view';
import type { LostWhy, PositionStreams } from '../region/position-streams';
import type { PlayerPass } from '../region/player-pass';

// A host's refusal of an edit (EditRejectedError<RejectReason>: `code` and `reason` are the
// wire's reject reason) and no answer in time: the one family of world/edit-error.ts.
export { EditRejectedError, EditTimeoutError };


export interface ClientEvents extends Record<string, unknown> {
  /** Entries that changed a subscribed region (from a snapshot or a delta): committed. */
  edits: { region: RegionCoord; entries: Entry[] };
  /**
   * Edits ordered but not yet committed (`shown`: draw them, marked pending, over the state),
   * and blocks whose pending edit left without the state showing it (`takenBack`: draw them
   * as the state has them; `entry` undefined: the terrain's block). pending-view.ts.
   */
  pending: { region: RegionCoord; shown: Entry[]; takenBack: TakenBack[] };
  /** Positions a host sent (`players`), and players it said left the region (`gone`, hex ids); `via`: that host (hex). */
  players: { region: RegionCoord; players: PlayerFrame[]; gone: string[]; via?: string };
  attached: { region: RegionCoord; primary: string; epoch: number };
  detached: { region: RegionCoord; why: ReattachCause };
}

/**
 * Why an attached subscription let go of its primary and looked again (primary-search.ts):
 * - silence: no beat or delta for `SILENCE_MS`;
 * - linkClosed: our link to it closed, not on purpose (a link a budget let go is no death:
 *   region-client.ts onLinkClose);
 * - takeover / redirect: a host of the set named itself primary of a later epoch / our
 *   primary said it is not (any more);
 * - reject: it refused an edit as not primary or busy.
 */
export type ReattachCause = 'silence' | 'linkClosed' | 'takeover' | 'redirect' | 'reject';

// Why an attached subscription re-subscribed saying it missed frames: defined where it is found (delta-order.ts).
export type { GapCause } from './delta-order';


export interface ClientStats {
  attaches: number;
  reattaches: number;
  /** The re-attaches by cause. */
  reattachWhy: Record<ReattachCause, number>;
  redirects: number;
  snapshots: number;
  deltas: number;
  gaps: number;
  /** The gaps by cause. */
  gapWhy: Record<GapCause, number>;
  /** Frames from a node that is not our primary, or of another epoch (dropped). */
  stale: number;
  confirmed: number;
  rejected: number;
  timeouts: number;
  /** Attachments to a new primary of a later epoch of a region we were attached to. */
  failovers: number;
  /** Other players' positions received (entries of POSITIONS frames). */
  playerUpdates: number;
  /** POSITIONS streams lost (a frame missing or unreadable): the host was asked to start again. */
  positionsLost: number;
  /** Why streams were lost (region/position-streams.ts; a loss is asked for once, and again if no fresh start came). */
  positionsLostWhy: LostWhy;
  /** Snapshots dropped: no valid epoch certificate naming their sender (an impostor primary). */
  uncertified: number;
  /** Entries of SNAPSHOTs, DELTAs and PENDINGs against the world's rules (region-state.ts obeysWorldRules), from our certified primary or not: never merged nor shown. */
  againstRules: number;
  /** DELTAs and PENDINGs (alone or riding) a host of the set relayed without the primary's valid signatures over their batches (relay-proofs.ts): dropped. */
  relayUnproven: number;
  /** Times a node said no certified primary can be had (we are alone). */
  alone: number;
  /** Links to our primary a link budget let go (we stayed attached: its beats' silence tells a death). */
  retiredLinks: number;
  /** Of those, primaries that did not answer a routed ping within `LINK_CLOSE_PING_MS`: dialled again. */
  redials: number;
  /** Times a primary (or claimant) said it holds as many subscribers as it takes: we asked again later. */
  full: number;
  /** Pending entries drawn (PENDING), and those taken back (never committed as shown) or refused by the bound (MAX_PENDING). */
  pendingShown: number;
  pendingTakenBack: number;
  pendingRefused: number;
}

/** One region we subscribe to: whom we are attached to, what we hold, and the attach loop's state. */
export interface Subscription {
  coord: RegionCoord;
  name: string;
  key: Promise<NodeId>;
  state: RegionState;
  epoch: number;
  primary: NodeId | undefined;
  primaryHex: string;
  /** The host set the primary told us of (who may announce a takeover). */
  hosts: NodeId[];
  /** The backup of the set that serves us a share of a crowd's fan-out (host/fan-out-share.ts), if any: we pin our link to it. */
  servedBy?: NodeId;
  /** When `servedBy` last sent us a frame of this region: silent for SERVED_MS, it serves us no more and its pin goes. */
  servedAt?: number;
  /** Everything up to this stamp has been applied. */
  since: Stamp;
  attached: boolean;
  attaching: boolean;
  target: string;
  hint: NodeId | undefined;
  /**
   * The node that named itself primary (a takeover notice or a redirect) and that we
   * subscribe to now, until its snapshot or the wait for it ends: a new edit goes to it at
   * once, as the waiting ones went behind the SUBSCRIBE (primary-search.ts).
   */
  named?: NodeId;
  /**
   * Whom this attach sent a SUBSCRIBE to (hex, at most ASKED_KEPT, primary-search.ts), while
   * it lasts: a snapshot from any of them counts, not only from the one asked last. A primary
   * that answered after the wait for it ended (a starved tab's answer, later than
   * ATTACH_TIMEOUT_MS) was dropped as stale, and the attach went on to ask again elsewhere.
   */
  asked?: Set<string>;
  lastHeard: number;
  ready: Promise<void>;
  markReady: () => void;
  wake: () => void;
  /** What each host serving us this region's positions sent so far. */
  positions: PositionStreams;
  /** DELTAs that came early, and how long we have known of a seq we lack (delta-order.ts). */
  deltas: DeltaOrder;
  /** Edits ordered but not committed yet, shown over `state` (pending-view.ts). */
  pending: PendingView;
  closed: boolean;
  /** When the current attach began (the first SUBSCRIBE of it). */
  attachStarted: number;
  /** The certificate of the primary we attached to last. */
  cert: EpochCert | undefined;
  /** Until then the region has no certified primary to be had (see onAlone). */
  aloneUntil: number;
}


export interface RegionClientArgs {
  /** `events` (optional): a closed link to a primary re-attaches at once. */
  dht: Pick<Dht, 'selfId' | 'findNode' | 'get' | 'connect' | 'unpin'> & Partial<Pick<Dht, 'events' | 'reach' | 'suspect' | 'ping' | 'readOnly' | 'nearView'>>;
  wire: PlayerWire;
  clock: Clock;
  world: string;
  /** How region keys are hashed (WebCrypto when absent; the simulator's is synchronous). */
  keyHash?: KeyHash;
  /** Checks the epoch certificate of every primary before we attach to it. */
  certs: CertChecker;
  /** Checks again, on reading, the records and logs read from the DHT (its holders' rules only *learn* certificates). */
  verify: Verifier;
  /** This node's player pass (region/player-pass.ts; minting takes a while): edits wait for it. Without one, hosts refuse our edits. */
  pass?: Promise<PlayerPass>;
  /** Where the client notes its attach decisions (window.voxel.hosting.trace(), beside the host's: a failover read on one time line). */
  trace?: (region: string, what: string) => void;
}
