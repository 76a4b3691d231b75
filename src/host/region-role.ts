// The role of one region at one host as its three sides see it (hosted-region.ts implements
// it): the claimant (region-claimant.ts: we want to be primary), the granter
// (region-granter.ts: someone else does) and the backup (region-backup.ts: we follow one).
// Each side reads the role through this interface and changes it only by the role machine's
// moves (role-machine.ts), and reaches the others only through it, so no side imports the
// class that owns it (no import cycle).
import { idEquals, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import type { Hold } from '../region/cert-anchor';
import type { HostToPlayer } from '../region/subscription-messages';
import type { Entry, Stamp } from '../region/region-state';
import type { Election } from './election';
import type { ReplicaFrame } from './host-wires';
import type { DeclinedHandoffs } from './declined-handoffs';
import type { DutyRegion } from './duty-region';
import type { PrimaryDuty } from './primary-duty';
import type { RoleMachine, RoleView } from './role-machine';
import type { ProofRing } from './state-proofs';

export const has = (list: readonly NodeId[], x: NodeId) => list.some((h) => idEquals(h, x));

export interface RegionRole extends DutyRegion, RoleView {
  /** The only writer of the role, epoch, primary and hosts (role-machine.ts); `RoleView`'s fields read them. */
  readonly roles: RoleMachine;
  /** What we promised, the newest certificate, granted and learned epochs, rebase evidence (election.ts). */
  readonly el: Election;
  readonly epoch: number;
  readonly hosts: NodeId[];
  /** While we are primary, its work; started by `becomePrimary`, ended by `stepDown` and `release`. */
  readonly duty: PrimaryDuty | undefined;
  /** Nodes handed the region that did not claim it (declined-handoffs.ts). */
  readonly declined: DeclinedHandoffs;
  /** Signed batches and SYNC pieces we keep as evidence of our entries (state-proofs.ts). */
  readonly proofs: ProofRing;
  /** Our primary named its subscribers (its HEARTBEAT): the next primary tells them of its takeover. */
  heardSubs(ids: NodeId[]): void;
  /** Hosts another host of the region says left it unanswered (our primary's SYNC, a granted claimant's ABANDON): struck here too (unclaiming-hosts.ts). */
  toldSilent(silent: readonly NodeId[], named?: readonly NodeId[]): void;
  /** Subscribers waiting for our claim to finish. */
  readonly waiting: Map<string, { id: NodeId; since: Stamp | undefined }>;
  readonly stopped: boolean;
  /** Whether our own claims are held back (someone else's claim is being considered). */
  readonly deferred: boolean;
  readonly regionFields: { rx: number; rz: number };
  trace(what: string): void;
  toHost(to: NodeId, msg: ReplicaFrame): void;
  toPlayer(to: NodeId, msg: HostToPlayer): void;
  allEntries(): Entry[];
  primaryAlive(): boolean;
  /** Whether we may believe `c` (cert-anchor.ts), reached from ours directly or through `chain`, the sender's earlier certificates (`via`: the sender, hex, whose derivation budget new keys spend): how we then hold it, or false. */
  acceptable(c: EpochCert, chain?: readonly EpochCert[], via?: string): Promise<Hold | false>;
  standAside(c: EpochCert, hold: Hold): void;
  /** Our certificate is learnt and its hosts are far from the key as we see it: an anchored one may replace it. */
  learntFar(): boolean;
  /** Our claim won `cert` (the role machine's move, then the primary's duty starts). */
  becomePrimary(cert: EpochCert): void;
  stepDown(next: NodeId | undefined, e: number): void;
  offerTo(primary: NodeId, theirs?: Entry[]): void;
  claim(minEpoch?: number, primarySilent?: boolean, hosts?: NodeId[], handedOver?: boolean): Promise<boolean>;
  /** Our primary may soon be taken for dead: the hosts we would claim over are pinged now (region-claimant.ts `pingAhead`). */
  pingAhead(): void;
  /** How long to wait before our next claim: `first` unless claims of ours failed lately (then a growing, randomised backoff). */
  claimRetryDelay(first: number): number;
  /** Ends the wait of our claim under way, if any (it then sees what changed). */
  wakeClaim(): void;
  /** Another chain of the region that our next epoch merges (checked: cert-checker.ts `mergeable`; region-claimant.ts `learnFork`). */
  learnFork(fork: EpochCert): void;
  /** A closer host of our set claims while we do: our claim under way, if any, ends now, and our promise goes back when `mayGrant` says its claim would then be granted (true: region-claimant.ts `giveWay`). */
  giveWay(mayGrant?: (promised: number) => boolean): boolean;
}

/** A side of the region (claimant, granter, backup): what it holds of the region. */
export abstract class RegionSide {
  constructor(protected readonly region: RegionRole) {}

  protected get ctx() {
    return this.region.ctx;
  }

  protected get el() {
    return this.region.el;
  }

  protected get regionFields() {
    return this.region.regionFields;
  }
}
