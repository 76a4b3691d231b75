// What a region's hosting code is given by its node (hosting-service.ts builds it): identity,
// options, clock and ticker, the two wires, the store, the DHT, counters, keys and the
// node's view of who is alive. The region code does all its I/O through it.
import type { Clock } from '../core/clock';
import type { NodeId } from '../core/node-id';
import type { Signer } from '../core/signer';
import type { Ticker } from '../core/ticker';
import type { Dht } from '../dht/dht';
import type { CertChecker } from '../region/cert-checker';
import type { KeyHash } from '../region/region-key';
import type { RecordVerifier } from '../region/region-records';
import type { HostStore } from '../store/host-store';
import type { TransportProbe } from '../net/transport-watch';
import type { CommitLatency, HostOptions, HostStats } from './host-options';
import type { HostWires } from './host-wires';
import type { PlayerPasses } from './player-passes';
import type { PinRank } from './host-pins';
import type { BeatRound } from './beat-round';

export interface RegionContext {
  readonly selfId: NodeId;
  readonly selfHex: string;
  readonly opts: HostOptions;
  readonly clock: Clock;
  readonly ticker: Ticker;
  /** The node's heartbeat round (beat-round.ts): its regions' thinned beats to subscribers fall on the same rounds. */
  readonly beatRound: BeatRound;
  readonly wires: HostWires;
  readonly store: HostStore | null;
  readonly dht: Pick<Dht, 'put' | 'get' | 'suspectRoute' | 'suspect'>;
  /** Pins our link to `id` (host-pins.ts; unpinned by the sweep once no region of ours wants it). */
  pin(id: NodeId, rank: PinRank): void;
  readonly stats: HostStats;
  readonly latency: CommitLatency;
  /** Signs this node's grants. */
  readonly signer: Signer;
  /** Checks certificates and grant signatures. */
  readonly certs: CertChecker;
  /** Checks the region's DHT records again on reading (the holders' rules ran already). */
  readonly records: RecordVerifier;
  /** Which player each editing node is (its pass checked): edits are judged per player. */
  readonly passes: PlayerPasses;
  /** How region and record keys are hashed (the DHT edit log's part keys). */
  readonly keyHash: KeyHash;
  /** The `replicas` closest live nodes to key (self included when it is among them), closest first. */
  hostSet(key: NodeId, fresh: boolean): Promise<NodeId[]>;
  /** Whether we hold a link to this node (hex): a frame to it goes direct. */
  linked(hex: string): boolean;
  /** Whether our link to this node closed (and has not reopened since). */
  linkClosed(hex: string): boolean;
  /** Our direct link to this node, watched at the transport (net/transport-watch.ts); undefined where it cannot be. */
  transport?(hex: string): TransportProbe | undefined;
  /** The n nodes closest to key in our routing table, self included: no lookup, possibly with dead contacts. */
  tableNear(key: NodeId, n: number): NodeId[];
  /** The n nodes closest to key among those we hold a live link to (so known alive), minus `exclude` (hex). */
  linkedNear(key: NodeId, n: number, exclude: ReadonlySet<string>): NodeId[];
  /** Of `ids`, the hex ids of those that answer a ping within waitMs (answering.ts). */
  answering(ids: readonly NodeId[], waitMs: number): Promise<Set<string>>;
  /**
   * Whether our own tab has been awake long enough since its last stall to judge others'
   * silence (stall-guard.ts `settled`): the frames that came while it slept are read first.
   * Absent (a context built without a hosting service): always.
   */
  settled?(): boolean;
  /** Dials a node through the relay when we hold no link to it (a claim it did not answer: islands after a partition). */
  reach(id: NodeId): void;
  /** Test hook: called whenever a primary accepts (orders) an edit. */
  onAccept?: (region: string, epoch: number, primaryHex: string) => void;
  /** Test hook: called whenever a primary confirms edits to their editors (lease checks). */
  onConfirm?: (region: string, epoch: number, primaryHex: string, at: number) => void;
  /** Diagnostics: role changes, claims, grants and refusals. */
  trace?: (region: string, what: string) => void;
}
