// What the primary's work for one region reads of the region (`DutyRegion`: hosted-region.ts
// implements it) and what the parts of that work read of the duty that runs them
// (`DutyShared`: primary-duty.ts implements it). The parts (commit-pipeline.ts,
// primary-heartbeat.ts, host-set-check.ts, region-publisher.ts) see the duty only through
// it, so none imports primary-duty.ts (no import cycle).
import type { NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import type { RegionCoord } from '../region/region-key';
import type { RegionState } from '../region/region-state';
import type { FanOutPlan } from './fan-out-plan';
import type { PlayerOutbox } from './player-outbox';
import type { RegionContext } from './region-context';
import type { RequestLog } from './request-log';
import type { ProofSigner } from './state-proofs';

export interface Subscriber {
  id: NodeId;
  at: number;
}

/**
 * What the duty reads of its region and may ask of it (hosted-region.ts implements it):
 * the region's election side owns epoch, certificate and host set; the duty only reads them,
 * and asks for a handoff or a new epoch over other hosts.
 */
export interface DutyRegion {
  readonly ctx: RegionContext;
  readonly coord: RegionCoord;
  readonly key: NodeId;
  readonly name: string;
  readonly state: RegionState;
  readonly requests: RequestLog;
  readonly cert: EpochCert | undefined;
  /** The certificates before `cert` (election.ts `chain`), sent with it in a SYNC. */
  readonly chain: EpochCert[] | undefined;
  readonly epoch: number;
  readonly hosts: NodeId[];
  /** The subscribers a backup learned from our predecessor, handed over once (then cleared): told of our takeover. */
  takeKnownSubs(): NodeId[];
  /** When our claim went out: a grant of it holds our lease like an ack of a frame sent then. */
  readonly claimSentAt: number;
  persist(): Promise<void>;
  /** `hostedWithUs`: `to` is a host of our set that answered us as one (hosted-region.ts takes the region back from such a node if it does not claim). */
  handOff(to: NodeId, hostedWithUs: boolean): void;
  /** Whether `id` was handed the region lately and did not claim it (declined-handoffs.ts), its silence made us claim lately, or it left the region unanswered (unclaiming-hosts.ts): not handed it now. */
  declinedHandoff(id: NodeId): boolean;
  /** Whether `id` was dropped from our set as quiet and not heard since (quiet-hosts.ts): not named a host again. */
  quietHost(id: NodeId): boolean;
  /** Whether `id` left the region unanswered lately and has not answered us since (unclaiming-hosts.ts): a re-check names one such node at a time. */
  struck(id: NodeId): boolean;
  /** `hex` hosts nothing we hear (`dropped` from our set as quiet, or found silent since): kept out of the set; `neverAnswered`: it never hosted with us (struck: unclaiming-hosts.ts). */
  noteQuiet(hex: string, dropped?: boolean, neverAnswered?: boolean): void;
  /** The nodes we struck, newest first (unclaiming-hosts.ts): named in our SYNC. */
  struckHosts(): NodeId[];
  /** We stop being primary with no successor known (editors of unconfirmed edits hear 'busy'), as a backup with no primary or idle. */
  release(why: string, role?: 'backup' | 'idle'): void;
  reconfigure(hosts: NodeId[], why: string): void;
  suspects(): string[];
}

/** What every part of the primary's work reads of the duty that runs it. */
export interface DutyShared {
  readonly region: DutyRegion;
  readonly ctx: RegionContext;
  /** The region's coordinates, as every frame carries them. */
  readonly regionFields: { rx: number; rz: number };
  /** Our epoch. */
  readonly e: number;
  /** Set when the duty stops (step down, release): its parts start nothing new. */
  readonly stopped: boolean;
  readonly subscribers: Map<string, Subscriber>;
  /** Which subscribers we send deltas, beats and positions ourselves; which backups serve the rest. */
  readonly fanOut: FanOutPlan;
  /** Deltas and beats for our subscribers, held to the tick to ride in their POSITIONS frames (player-outbox.ts). */
  readonly outbox: PlayerOutbox;
  /** The certificate's hosts but us. */
  backups(): NodeId[];
  /** How many hosts the certificate names, us included. */
  readonly hostCount: number;
  /** Signs what we hand our backups (REPLICATE batches, SYNC pieces), in order. */
  readonly proofs: ProofSigner;
}
