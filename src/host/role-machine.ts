// Whom one host of a region follows, or whether it is the primary itself: the role, the
// epoch and primary it follows, the host set, and the backup's bookkeeping of that primary
// (when it last heard it, what of its epoch it applied), with every move that changes them.
// The claimant, the granter, the backup and the primary's own moves (hosted-region.ts) each
// used to write these fields one by one (about 30 writes in five files), so no one place
// said which roles lead to which. Here each move is one method named for what happened, and
// everyone else reads the fields through `RoleView`. A new path that changes a region's role
// adds a move here, beside the others, as the commit and backup machines hold theirs.
//
//   idle / backup --startClaim--> claiming --becamePrimary--> primary
//   claiming --claimFailed--> (the role before) ; claiming --notOurs--> idle
//   any but primary --granted--> backup (the set names us) or idle
//   any --followed (a SYNC's certificate)--> backup
//   primary --steppedDown--> backup ; primary --released--> backup or idle
//   any --stoodAside (a certificate leaving us out)--> idle
import { idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';

export type Role = 'idle' | 'claiming' | 'primary' | 'backup';

/** What a region's role is, read-only (the machine itself holds the moves). */
export interface RoleView {
  readonly role: Role;
  /** Epoch of the primary we follow (or are). */
  readonly epoch: number;
  readonly primary: NodeId | undefined;
  readonly primaryHex: string;
  /** The host set of that epoch. */
  readonly hosts: NodeId[];
  /** When we last heard the primary (backups). */
  readonly lastHeard: number;
  /** Backups: highest seq of `epoch` applied contiguously; undefined until a SYNC. */
  readonly applied: number | undefined;
  /** The closer node the primary handed the region to (we grant its claim), hex; '' for none. */
  readonly handoffTo: string;
}

/** What the backup machine (backup-machine.ts) moves: what it heard and applied of its primary. */
export interface FollowMoves {
  readonly lastHeard: number;
  readonly applied: number | undefined;
  /** The primary spoke (a beat, a batch, a SYNC piece) at `now`. */
  heard(now: number): void;
  /** Its batches are applied contiguously up to `seq`. */
  appliedUpTo(seq: number): void;
  /** Count the primary silent since at least `at` (its link closed). */
  silentSince(at: number): void;
}

export class RoleMachine implements RoleView, FollowMoves {
  private r: Role = 'idle';
  private e = 0;
  private p: NodeId | undefined;
  private pHex = '';
  private set: NodeId[] = [];
  private heardAt = -Infinity;
  private upTo: number | undefined;
  private handedTo = '';

  get role(): Role {
    return this.r;
  }
  get epoch(): number {
    return this.e;
  }
  get primary(): NodeId | undefined {
    return this.p;
  }
  get primaryHex(): string {
    return this.pHex;
  }
  get hosts(): NodeId[] {
    return this.set;
  }
  get lastHeard(): number {
    return this.heardAt;
  }
  get applied(): number | undefined {
    return this.upTo;
  }
  get handoffTo(): string {
    return this.handedTo;
  }

  /** Our claim goes out; returns the role to go back to should it fail. */
  startClaim(): Role {
    const before = this.r;
    this.r = 'claiming';
    return before;
  }

  /** Our claim failed: back to what we were, unless a grant or a SYNC moved us meanwhile. */
  claimFailed(before: Role): void {
    if (this.r === 'claiming') this.r = before;
  }

  /** The region's closest nodes leave us out: not ours to host. */
  notOurs(): void {
    this.r = 'idle';
  }

  /** We take the primary we followed for dead (or its claim never became an epoch): its last word keeps no claimant off. */
  forgetPrimaryVoice(): void {
    this.heardAt = -Infinity;
  }

  /** Our claim won `cert`. */
  becamePrimary(cert: EpochCert, self: NodeId): void {
    this.r = 'primary';
    this.follow(cert.e, self, cert.hosts);
    this.handedTo = '';
  }

  /** We granted `from` epoch `e` over `hosts` (our state went with the grant): we follow it, as a backup when the set names us. */
  granted(e: number, from: NodeId, hosts: NodeId[], named: boolean, now: number): void {
    this.follow(e, from, hosts);
    this.r = named ? 'backup' : 'idle';
    this.upTo = undefined;
    this.heardAt = now;
  }

  /** A SYNC's certificate made us a backup of its sender. */
  followed(cert: EpochCert, from: NodeId, now: number): void {
    if (this.e !== cert.e || this.pHex !== idToHex(from)) this.upTo = undefined;
    this.follow(cert.e, from, cert.hosts);
    this.r = 'backup';
    this.handedTo = '';
    this.heardAt = now;
  }

  /** A certificate whose hosts leave us out: we point askers at its primary. */
  stoodAside(c: EpochCert): void {
    this.r = 'idle';
    this.follow(c.e, c.primary, c.hosts);
  }

  /** Read back from the store: the newest epoch we knew, the hosts of its certificate. */
  restored(e: number, hosts: NodeId[] | undefined): void {
    this.e = Math.max(this.e, e);
    if (hosts) this.set = hosts;
  }

  /** As primary, we stopped ordering for a later epoch: a backup from now on. */
  steppedDown(now: number): void {
    this.r = 'backup';
    this.upTo = undefined;
    this.heardAt = now;
  }

  /** As primary, we stopped without a successor yet (a handoff or host-set change under way, or no majority answering). */
  released(role: 'backup' | 'idle', now: number): void {
    this.r = role;
    this.p = undefined;
    this.pHex = '';
    this.upTo = undefined;
    this.heardAt = now;
  }

  /** The node (hex) we, or our primary, handed the region to: we grant its claim although we heard the primary just now. */
  handedOffTo(hex: string, now?: number): void {
    this.handedTo = hex;
    if (now !== undefined) this.heardAt = now;
  }

  /** We granted someone: no handoff stands any more. */
  handoffOver(): void {
    this.handedTo = '';
  }

  heard(now: number): void {
    this.heardAt = now;
  }

  appliedUpTo(seq: number): void {
    this.upTo = seq;
  }

  silentSince(at: number): void {
    this.heardAt = Math.min(this.heardAt, at);
  }

  private follow(e: number, primary: NodeId, hosts: NodeId[]): void {
    this.e = e;
    this.p = primary;
    this.pHex = idToHex(primary);
    this.set = hosts;
  }
}
