// Whom one host of a region follows, or whether it is the primary itself: the role, the
// epoch and primary it follows, the host set, and the backup's bookkeeping of that primary
// (when it last heard it, what of its epoch it applied), with every move that changes them.
// Each move is one method named for what happened, and everyone else reads the fields
// through `RoleView` (`agree/` through host/items-region.ts, narrower still). A new path
// that changes a region's role adds a move here, beside the others, as the commit and
// backup machines hold theirs.
//
//   idle / backup --startClaim--> claiming --becamePrimary--> primary
//   claiming --claimFailed--> (the role before) ; claiming --notOurs--> idle
//   any but primary --granted--> backup (the set names us) or idle
//   backup / idle --grantAbandoned (the claimant we granted never became primary)--> as before that grant
//   any but primary --followed (a SYNC's certificate)--> backup
//   primary --steppedDown--> backup ; primary --released--> backup or idle
//   any but primary --stoodAside (a certificate leaving us out)--> idle
//
// A move from a role the diagram does not lead it from is refused (the machine stays as it
// was, and says so through `onRefused`): a primary stops its duty before it follows or
// grants anyone (hosted-region.ts stepDown), so "primary" is never left behind by a move
// that forgets the duty. The followed epoch never falls below the highest epoch taken
// firmly (our own certificate, our grant, or a certificate anchored in our view:
// cert-anchor.ts `Hold`); a learnt certificate's epoch, or one read back from the store,
// is not firm, so an anchored certificate may still replace it from below (election.ts
// `supersedes`).
import { idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import type { Hold } from '../region/cert-anchor';

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
  /** A frame refused under our promise came from `hex` at `now`: if that is the primary we followed before our last grant (`grantAbandoned`), or the one our own claim replaces, it is alive. */
  formerSpoke(hex: string, now: number): void;
}

/** Whom we followed before our last grant, as the role machine held it (`grantAbandoned`). */
interface BeforeGrant {
  e: number;
  to: string;
  r: Role;
  epoch: number;
  floor: number;
  p: NodeId | undefined;
  pHex: string;
  set: NodeId[];
  heardAt: number;
  upTo: number | undefined;
}

/** A refused move: its name and why (the role it came in, or the epoch it would go back to). */
export type RoleRefusal = (move: string, why: string) => void;

export class RoleMachine implements RoleView, FollowMoves {
  private r: Role = 'idle';
  private e = 0;
  /** The highest epoch taken firmly: no move goes below it. */
  private floorE = 0;
  private p: NodeId | undefined;
  private pHex = '';
  private set: NodeId[] = [];
  private heardAt = -Infinity;
  private upTo: number | undefined;
  private handedTo = '';
  private beforeGrant: BeforeGrant | undefined;

  constructor(private readonly onRefused: RoleRefusal = () => {}) {}

  get role(): Role {
    return this.r;
  }
  get epoch(): number {
    return this.e;
  }
  /** No move takes the epoch below this (the highest taken firmly). */
  get floor(): number {
    return this.floorE;
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

  /** Our claim goes out; returns the role to go back to should it fail (undefined: refused, we are primary or claim already). */
  startClaim(): Role | undefined {
    if (!this.from('startClaim', 'idle', 'backup')) return undefined;
    const before = this.r;
    this.r = 'claiming';
    return before;
  }

  /** Our claim failed: back to what we were, unless a grant or a SYNC moved us meanwhile. */
  claimFailed(before: Role): void {
    if (this.r === 'claiming') this.r = before;
  }

  /** The region's closest nodes leave us out: not ours to host. */
  notOurs(): boolean {
    if (!this.from('notOurs', 'claiming')) return false;
    this.r = 'idle';
    return true;
  }

  /** We take the primary we followed for dead (or its claim never became an epoch): its last word keeps no claimant off. */
  forgetPrimaryVoice(): void {
    this.heardAt = -Infinity;
  }

  /** Our claim won `cert`. */
  becamePrimary(cert: EpochCert, self: NodeId): boolean {
    if (!this.from('becamePrimary', 'claiming') || !this.notBelow('becamePrimary', cert.e)) return false;
    this.r = 'primary';
    this.follow(cert.e, self, cert.hosts, true);
    this.handedTo = '';
    return true;
  }

  /** We granted `from` epoch `e` over `hosts` (our state went with the grant): we follow it, as a backup when the set names us. */
  granted(e: number, from: NodeId, hosts: NodeId[], named: boolean, now: number): boolean {
    if (!this.notPrimary('granted') || !this.notBelow('granted', e)) return false;
    const before: BeforeGrant = { e, to: idToHex(from), r: this.r, epoch: this.e, floor: this.floorE, p: this.p, pHex: this.pHex, set: this.set, heardAt: this.heardAt, upTo: this.upTo };
    this.follow(e, from, hosts, true);
    this.beforeGrant = before;
    this.r = named ? 'backup' : 'idle';
    this.upTo = undefined;
    this.heardAt = now;
    return true;
  }

  /** Whether `grantAbandoned(e, hex)` would move: we still follow the claimant `hex` of e as our grant left us. */
  grantUndoable(e: number, hex: string): boolean {
    const b = this.beforeGrant;
    return !!b && b.e === e && b.to === hex && this.e === e && this.pHex === hex && (this.r === 'backup' || this.r === 'idle');
  }

  /**
   * The claimant we granted e never became primary and said so (ABANDON), and our promise
   * fell back (election.ts `undoGrant`): we follow whom we followed before the grant again,
   * at its epoch (the grant's floor goes with it). Its silence counts from the last frame it
   * sent us, refused or not (`formerSpoke`): a primary slow towards the claimant is still
   * heard here.
   */
  grantAbandoned(e: number, hex: string): boolean {
    const b = this.beforeGrant;
    if (!b || !this.grantUndoable(e, hex)) {
      this.onRefused('grantAbandoned', `not following e${e} of ${hex.slice(0, 6)} as granted`);
      return false;
    }
    this.beforeGrant = undefined;
    this.r = b.r;
    this.e = b.epoch;
    this.floorE = b.floor;
    this.p = b.p;
    this.pHex = b.pHex;
    this.set = b.set;
    this.heardAt = b.heardAt;
    this.upTo = b.upTo;
    return true;
  }

  formerSpoke(hex: string, now: number): void {
    if (this.beforeGrant && hex === this.beforeGrant.pHex) this.beforeGrant.heardAt = Math.max(this.beforeGrant.heardAt, now);
    // Our own claim is out over the primary we follow, taken for dead: it is not.
    if (this.r === 'claiming' && hex === this.pHex) this.heardAt = Math.max(this.heardAt, now);
  }

  /** A SYNC's certificate, held as `hold` (cert-anchor.ts), made us a backup of its sender. */
  followed(cert: EpochCert, from: NodeId, now: number, hold: Hold): boolean {
    if (!this.notPrimary('followed') || !this.notBelow('followed', cert.e)) return false;
    if (this.e !== cert.e || this.pHex !== idToHex(from)) this.upTo = undefined;
    this.follow(cert.e, from, cert.hosts, hold === 'anchored');
    this.r = 'backup';
    this.handedTo = '';
    this.heardAt = now;
    return true;
  }

  /** A certificate, held as `hold`, whose hosts leave us out: we point askers at its primary. */
  stoodAside(c: EpochCert, hold: Hold): boolean {
    if (!this.notPrimary('stoodAside') || !this.notBelow('stoodAside', c.e)) return false;
    this.r = 'idle';
    this.follow(c.e, c.primary, c.hosts, hold === 'anchored');
    return true;
  }

  /** Read back from the store: the newest epoch we knew, the hosts of its certificate (not firm: how it was held is not kept). */
  restored(e: number, hosts: NodeId[] | undefined): void {
    this.e = Math.max(this.e, e);
    if (hosts) this.set = hosts;
  }

  /** As primary, we stopped ordering for a later epoch: a backup from now on. */
  steppedDown(now: number): boolean {
    if (!this.from('steppedDown', 'primary')) return false;
    this.r = 'backup';
    this.upTo = undefined;
    this.heardAt = now;
    return true;
  }

  /** As primary, we stopped without a successor yet (a handoff or host-set change under way, or no majority answering). */
  released(role: 'backup' | 'idle', now: number): boolean {
    if (!this.from('released', 'primary')) return false;
    this.r = role;
    this.p = undefined;
    this.pHex = '';
    this.upTo = undefined;
    this.heardAt = now;
    return true;
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

  private follow(e: number, primary: NodeId, hosts: NodeId[], firm: boolean): void {
    this.beforeGrant = undefined;
    this.e = e;
    if (firm) this.floorE = Math.max(this.floorE, e);
    this.p = primary;
    this.pHex = idToHex(primary);
    this.set = hosts;
  }

  private from(move: string, ...roles: Role[]): boolean {
    if (roles.includes(this.r)) return true;
    this.onRefused(move, `from ${this.r}`);
    return false;
  }

  private notPrimary(move: string): boolean {
    if (this.r !== 'primary') return true;
    this.onRefused(move, 'from primary');
    return false;
  }

  private notBelow(move: string, e: number): boolean {
    if (e >= this.floorE) return true;
    this.onRefused(move, `epoch ${e} below ${this.floorE}`);
    return false;
  }
}
