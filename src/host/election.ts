// The election record of one region at one host and the rules that change it: what we
// promised (to whom), the newest certificate we know, the epochs we granted above it, what
// refusals taught us, and whether the previous set's majority is gone (a rebase). Pure: no
// clock, wire, store or crypto; the caller (hosted-region.ts) passes the time in, persists
// the record before any promise leaves the node, and checks signatures before it adopts a
// certificate. docs/HOSTING.md "The state machine" and "Authority" give the reasons.
import { LruMap } from '../core/lru-map';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { MAX_CHAIN, MAX_EPOCH_JUMP, MAX_PEND, quorum, sameSet, succeeds, type CertPrev, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { chainedFrom, chainLinks, sameCert, type Hold } from '../region/cert-anchor';
import { CLAIM_TIMEOUT_MS } from './claim-round';

const has = (list: readonly NodeId[], x: NodeId) => list.some((h) => idEquals(h, x));

/**
 * Most granted epochs a host keeps (`accepted`). A claim covers at most MAX_PEND sets
 * besides its own hosts and its certificate's, and a host grants only a claim that covers
 * every set it granted, so its grants name at most MAX_PEND + 2 sets: past this bound there
 * is always an older epoch of a set a newer one names, and that one goes (the newer one
 * keeps the set covered; only its claimant's ABANDON then takes the set with it).
 */
export const MAX_GRANTED = 2 * (MAX_PEND + 1);

const setTag = (list: readonly NodeId[]) => list.map(idToHex).sort().join(',');

/** `list` (oldest first) within MAX_GRANTED: the oldest epochs of sets named again later go first. */
function boundGranted(list: CertPrev[]): CertPrev[] {
  const out = [...list];
  while (out.length > MAX_GRANTED) {
    const i = out.findIndex((q, k) => out.slice(k + 1).some((r) => setTag(r.hosts) === setTag(q.hosts)));
    out.splice(i >= 0 ? i : 0, 1);
  }
  return out;
}

/**
 * The links of `chain` that lead into `c`, each granted by a majority of the hosts of the one
 * before, oldest first (the sender's own chain up to `c`; signatures are the readers' to check).
 */
function linksInto(c: EpochCert, chain: readonly EpochCert[] | undefined): EpochCert[] {
  const out: EpochCert[] = [];
  let at = c;
  for (const link of [...(chain ?? [])].sort((a, b) => b.e - a.e)) {
    if (link.e >= at.e || !chainedFrom(at, link)) continue;
    out.unshift(link);
    at = link;
  }
  return out;
}

/** How a claim of ours ended, as `afterClaim` needs it. */
export interface ClaimOutcome {
  /** The certificate our claim was built on (its previous epoch), if any. */
  known: EpochCert | undefined;
  certified: boolean;
  /** Hex ids of the nodes that answered at all (a refusal is proof of life too). */
  answered: ReadonlySet<string>;
  /** The round's fault when it failed ('no-previous-majority', ...). */
  fault: string | undefined;
  /** Granted epochs the refusals told us of. */
  learned: CertPrev[];
  /** Granted epochs our claim covered of whose set no majority answered (claim-round.ts `unheard`). */
  unheard?: CertPrev[];
  /** The highest promise a refusal named (already bounded by the round). */
  highestRefusal: number;
  /**
   * `known` is learnt and a majority of its hosts is far from the key (hosted-region.ts
   * `learntFar`): keys an attacker drew, so its primary's answer is one vote like another's.
   */
  knownFar?: boolean;
}

/**
 * How long a set that a claim of ours covered in `pend` and heard no majority of is not learnt
 * again from refusals (`unheardLately`), and how many such sets are kept.
 */
export const UNHEARD_MS = 10_000;
const UNHEARD_KEPT = MAX_GRANTED;

/** Host sets of certificates held as learnt that are remembered (`heldLearnt`). */
const LEARNT_SETS_KEPT = 8;

/** A claimant outside a set whose majority went silent holds its claims back rebaseMs and this, for the rebase of a host of that set (`afterClaim`). */
export const REBASE_AFTER_MS = 2 * CLAIM_TIMEOUT_MS;

export interface RebaseTimings {
  rebaseMs: number;
  rebaseRestoredMs: number;
}

/** What a learnt certificate's chain may have raised, as it stood before (election.ts `learnt`). */
export interface LearntHold {
  promised: number;
  promisedTo: string;
  refusedAt: number;
}

export class Election {
  /** Highest epoch granted or claimed; no grant at or below it ever again. */
  promised = 0;
  /** Who `promised` went to (hex; ours while we claim). */
  promisedTo = '';
  /** The newest valid certificate we know of this region (ours as primary). */
  cert: EpochCert | undefined;
  /**
   * The certificates we held before `cert`, oldest first (at most MAX_CHAIN): sent with
   * ours, so a reader that missed those epochs can check each link from the one it holds
   * (docs/TRUST.md rule 1) instead of refusing ours as unanchored.
   */
  chain: EpochCert[] = [];
  /**
   * Epochs we granted above `cert`: the last claim we granted, and the epochs it covered
   * (its `pend`). Each may have been certified without us seeing it, so claims must win a
   * majority of its hosts too. A claimant that failed says so (ABANDON) and its epoch goes;
   * what it covered stays.
   */
  accepted: CertPrev[] = [];
  /** Such epochs that refusals told us of (bounded): our next claim covers them. */
  learned: CertPrev[] = [];
  /**
   * Sets (`setTag`) that refusals named in `pend`, that a claim of ours covered and heard no
   * majority of, and until when they are not learnt again (`unheardLately`); the same for the
   * hosts (hex) that named them: a fresh made-up set with every refusal holds off one claim.
   */
  private readonly unheardSets = new LruMap<string, number>(UNHEARD_KEPT);
  private readonly unheardNamers = new LruMap<string, number>(UNHEARD_KEPT);
  /**
   * The host sets (epoch and `setTag`) of the certificates we held only as learnt, the newest
   * LEARNT_SETS_KEPT (`heldLearnt`).
   */
  private readonly learntSets = new LruMap<string, true>(LEARNT_SETS_KEPT);
  /** Who named each set refusals taught us (`setTag` -> hex), the newest UNHEARD_KEPT. */
  private readonly namers = new LruMap<string, string>(UNHEARD_KEPT);
  /**
   * Heads of other chains of the region that our next claim merges (`learnFork`): named in
   * its `pend`, so a majority of each one's hosts grants and sends its state (at most MAX_PEND).
   */
  forks: CertPrev[] = [];
  /** Highest epoch a refusal told us was promised elsewhere: our next claim goes above it. */
  refusedAt = 0;
  /**
   * The highest epoch we claimed ourselves: never claimed again. A failed claim's ABANDON
   * makes its granters forget it, but their grants, signatures over the same terms, still
   * exist (one may have been lost on its way to us): a second round of that epoch could
   * certify with them while a granter no longer holds the epoch as pending (two chains, e7
   * and e8 over e6).
   */
  ownClaimed = 0;
  /** Our promise before our last grant, and what the grant made of the learnt hold (`undoGrant`); not kept in the store. */
  private beforeGrant: { e: number; to: string; promised: number; promisedTo: string; learnt: LearntHold | undefined; learntAfter: LearntHold | undefined } | undefined;
  /**
   * Our last grant, when its claim named no certificate (a first claim: its claimant held
   * none and no location record taught it one): whose claim, of what epoch (`followsRoot`).
   * Not kept in the store.
   */
  private grantedRoot: { e: number; to: string } | undefined;
  /** Our own claims wait until then while someone else's claim is being considered. */
  deferUntil = -Infinity;
  /**
   * Our claims also wait until `until` for a rebase of certificate `e`'s set, whose majority
   * did not answer our claim from outside it (`afterClaim`), unless a certificate above `e`
   * that names us has come meanwhile (`deferred`).
   */
  private outsideHold: { e: number; until: number } | undefined;
  /** Since when no majority of certificate `prevGone.e`'s hosts answers our claims at all (see rebaseMs). */
  prevGone: { e: number; since: number } | undefined;
  /** Our certificate came from our own store, not from a live peer (see rebaseRestoredMs). */
  certRestored = false;
  /**
   * Set while our certificate is learnt (cert-anchor.ts `Hold`: taken on its signatures
   * alone, or after one that was): the promise our own grants and claims made, before
   * following the learnt chain raised it. A certificate anchored in our own view replaces the
   * learnt one (`supersedes`), and the promise falls back to this: a chain an attacker
   * signed alone must not keep us refusing the region's real one for good. Kept in the store.
   */
  learnt: LearntHold | undefined;

  constructor(private readonly self: NodeId) {}

  /** What the host store kept (a reloaded tab); `cert` was checked when it was first taken (`learnt`: as learnt). */
  restore(promised: number, promisedTo: string, cert: EpochCert | undefined, accepted: CertPrev[] | undefined, succeedsOurs: boolean, learnt?: { promised: number; promisedTo?: string | undefined }): void {
    if (promised > this.promised) this.promisedTo = promisedTo;
    this.promised = Math.max(this.promised, promised);
    if (cert && succeedsOurs) {
      this.adoptCert(cert, undefined, learnt ? 'learnt' : 'anchored');
      if (learnt && this.learnt) this.learnt = { promised: learnt.promised, promisedTo: learnt.promisedTo ?? '', refusedAt: 0 };
      this.certRestored = true;
    }
    if (accepted) this.accepted = boundGranted(accepted.filter((q) => q.e > (this.cert?.e ?? 0)));
  }

  /**
   * Takes `c` as the newest certificate, held as `hold`; granted or learned epochs it passes
   * need no cover any more. `links`: the sender's chain before `c`, kept where it leads on
   * from our old certificate (forwarded as it came: readers check each link's signatures).
   * An anchored certificate that does not succeed our learnt one replaces it (`supersedes`):
   * the learnt chain goes, and with it the promise following it made. True when it did.
   */
  adoptCert(c: EpochCert, links?: readonly EpochCert[], hold: Hold = 'anchored'): boolean {
    const old = this.cert;
    const replaces = !!old && !!this.learnt && hold === 'anchored' && !succeeds(c, old);
    if (replaces && this.learnt) {
      this.chain = [];
      this.promised = this.learnt.promised;
      this.promisedTo = this.learnt.promisedTo;
      this.refusedAt = Math.min(this.refusedAt, this.learnt.refusedAt);
      this.learned = [];
    } else if (!old || old.e < c.e) {
      // The sender's links that lead into `c` come first: a reader that missed the epochs
      // before `c` needs those, and a host that took its first certificate of the region,
      // or one far below `c`, kept none of them (its successor's readers then refused the
      // next certificate as unanchored: a subscriber held e18, the primary of e21 showed e20).
      const into = linksInto(c, links);
      const before = [...this.chain, ...(old ? [old, ...chainLinks(old, links, c.e)] : [])].filter((x) => x.e < (into[0]?.e ?? c.e));
      this.chain = [...before, ...into].filter((x) => x.e < c.e).slice(-MAX_CHAIN);
    }
    this.learnt = hold === 'learnt' ? (this.learnt ?? { promised: this.promised, promisedTo: this.promisedTo, refusedAt: this.refusedAt }) : undefined;
    if (hold === 'learnt') this.learntSets.set(`${c.e} ${setTag(c.hosts)}`, true);
    this.cert = c;
    this.certRestored = false;
    this.accepted = this.accepted.filter((q) => q.e > c.e);
    this.learned = this.learned.filter((q) => q.e > c.e);
    this.forks = this.forks.filter((f) => !(c.pend ?? []).some((q) => q.e === f.e && sameSet(q.hosts, f.hosts)) && f.e < c.e + MAX_EPOCH_JUMP);
    return replaces;
  }

  /**
   * Another chain of the region that our next claim merges (the caller checked it:
   * cert-anchor.ts `mergeable`): its head goes into our claims' `pend` until a certificate of
   * ours covers it. Its epoch raises our next one, as a refusal's promise does.
   */
  learnFork(c: EpochCert): void {
    if (this.forks.some((f) => f.e === c.e && sameSet(f.hosts, c.hosts))) return;
    this.forks = [...this.forks.filter((f) => !sameSet(f.hosts, c.hosts)), { e: c.e, hosts: c.hosts }].sort((a, b) => a.e - b.e).slice(-MAX_PEND);
    this.refusedAt = Math.max(this.refusedAt, c.e);
  }

  /**
   * Whether `c`, held as `hold` (cert-anchor.ts), may take our certificate's place: it
   * succeeds ours (epoch-cert.ts `succeeds`), or ours is learnt, far from the key, and `c`,
   * another one, is anchored in our own view, at any epoch (`replaces`).
   */
  supersedes(c: EpochCert, hold: Hold, learntFar: boolean): boolean {
    if (succeeds(c, this.cert)) return true;
    return this.replaces(c, hold, learntFar);
  }

  /**
   * Whether `c` replaces our learnt certificate: anchored, another one, and ours is far from
   * the key (`learntFar`: a majority of its hosts beyond the nodes we find nearest,
   * cert-anchor.ts `farSet`), as keys an attacker drew are. A learnt certificate whose hosts
   * are near by their ids is the region's own (hosts are chosen nearest the key) even when
   * they are dead or cut off: replacing it by an older anchored one left a region without a
   * primary after a partition healed.
   */
  private replaces(c: EpochCert, hold: Hold, learntFar: boolean): boolean {
    return !!this.learnt && learntFar && hold === 'anchored' && !!this.cert && !sameCert(c, this.cert);
  }

  /**
   * Whether we held a certificate of epoch `e` over `hosts` only as learnt (one of the last
   * LEARNT_SETS_KEPT): its set names no item voters, not even as the previous set of a later
   * certificate of ours (agree/region-items.ts). Our own claim built on a learnt certificate
   * that an attacker's live key granted names it so (docs/TRUST.md "Open gaps").
   */
  heldLearnt(e: number, hosts: readonly NodeId[]): boolean {
    return this.learntSets.peek(`${e} ${setTag(hosts)}`) !== undefined;
  }

  /** The promise `c`, held as `hold`, must not fall below to be followed: ours, or, where it replaces a learnt chain, the one our own grants and claims made. */
  promiseFor(c: EpochCert, hold: Hold, learntFar: boolean): number {
    return this.learnt && !succeeds(c, this.cert) && this.replaces(c, hold, learntFar) ? this.learnt.promised : this.promised;
  }

  /** The chain a reader holding epoch `since` may need to reach our certificate (links above it). */
  chainAbove(since: number): EpochCert[] | undefined {
    const links = this.chain.filter((x) => x.e > since);
    return links.length ? links : undefined;
  }

  deferred(now: number): boolean {
    return now < this.deferUntil || this.heldOutside(now);
  }

  /**
   * Whether the hold of `afterClaim` for a rebase of a set we are outside still stands: not
   * once we hold, anchored, a later certificate that names us (that set's live chain took us
   * in, or our own claim won). Kept past it, a backup's hold kept it from taking its
   * primary's silence for death: after a crash, both backups of a set that had taken them in
   * as newcomers claimed only 4.1 s later, when the hold set before ran out (failover_crash).
   */
  private heldOutside(now: number): boolean {
    const h = this.outsideHold;
    if (!h || now >= h.until) return false;
    return !(this.cert && !this.learnt && this.cert.e > h.e && has(this.cert.hosts, this.self));
  }

  defer(until: number): void {
    this.deferUntil = Math.max(this.deferUntil, until);
  }

  /** The epoch our next claim asks for: above every epoch we know of (our state's included: new edits must not be shadowed). */
  nextEpoch(following: number, stateEpoch: number, minEpoch: number): number {
    return Math.max(this.promised, following, stateEpoch, this.refusedAt, this.ownClaimed, minEpoch - 1, this.cert?.e ?? 0) + 1;
  }

  /**
   * The terms of our next claim over `hosts` (the caller checks their shape): above every
   * epoch we know of (`nextEpoch`), built on our certificate, covering the epochs it must
   * (`pendFor`), a rebase when we may (`mayRebase`).
   */
  claimTerms(hosts: NodeId[], following: number, stateEpoch: number, minEpoch: number, now: number, t: RebaseTimings, farKnown = false): ClaimTerms {
    const known = this.cert;
    const e = this.nextEpoch(following, stateEpoch, minEpoch);
    const rebase = this.mayRebase(now, t, farKnown);
    const pend = this.pendFor(e, hosts);
    return { e, primary: this.self, hosts, ...(known ? { prev: { e: known.e, hosts: known.hosts } } : {}), ...(rebase ? { rebase } : {}), ...(pend.length ? { pend } : {}) };
  }

  /**
   * Granted epochs above our certificate that our next claim `e` over `hosts` must also win
   * a majority of: one entry per host set (its newest epoch: a majority of a set covers every
   * epoch of it, grant-rules.ts `covers`), none for the claim's own set or our certificate's
   * (the certificate needs their majorities anyway), newest kept, at most MAX_PEND.
   */
  pendFor(e: number, hosts: readonly NodeId[] = []): CertPrev[] {
    const base = this.cert?.e ?? 0;
    const skip = new Set([setTag(hosts), ...(this.cert ? [setTag(this.cert.hosts)] : [])]);
    const bySet = new Map<string, CertPrev>();
    for (const q of [...this.accepted, ...this.learned]) {
      if (q.e <= base || q.e >= e) continue;
      const tag = setTag(q.hosts);
      if (skip.has(tag)) continue;
      const had = bySet.get(tag);
      if (!had || q.e > had.e) bySet.set(tag, q);
    }
    // Newest first kept: an older one was granted by fewer hosts' knowledge. Another chain's
    // head we merge goes in whatever its epoch (`forks`), before them.
    const granted = [...bySet.values()].sort((a, b) => a.e - b.e);
    const forks = this.forks.filter((f) => f.e < e && !skip.has(setTag(f.hosts)) && !granted.some((q) => setTag(q.hosts) === setTag(f.hosts)));
    const room = Math.max(0, MAX_PEND - forks.length);
    return [...forks.slice(-MAX_PEND), ...(room ? granted.slice(-room) : [])].sort((a, b) => a.e - b.e);
  }

  /**
   * Whether our claim now may be a rebase (certified by the new set alone): we are a host of
   * our certificate, or its hosts are far from the key (`farKnown`: cert-anchor.ts `farSet`,
   * a chain drawn by keys nobody finds near), and neither a majority of its hosts nor its
   * primary answered our claims for rebaseMs (`afterClaim`; far longer when the certificate
   * is only from our own store).
   */
  mayRebase(now: number, t: RebaseTimings, farKnown = false): boolean {
    const known = this.cert;
    if (!known || (!has(known.hosts, this.self) && !farKnown) || this.prevGone?.e !== known.e) return false;
    return now - this.prevGone.since >= (this.certRestored ? t.rebaseRestoredMs : t.rebaseMs);
  }

  /**
   * When our claims may rebase (`mayRebase`), as a host of our certificate whose majority went
   * silent; undefined when they may not.
   */
  rebaseAt(t: RebaseTimings): number | undefined {
    return this.rebaser() ? this.prevGone!.since + (this.certRestored ? t.rebaseRestoredMs : t.rebaseMs) : undefined;
  }

  /**
   * A majority of our certificate's hosts is gone, so only a rebase, which only they may
   * claim, can certify the next epoch: a claimant from outside them cannot win, and holding
   * our own claims back for it would keep the region down for good.
   */
  mustRebase(from: NodeId): boolean {
    return this.rebaser() && !has(this.cert!.hosts, from);
  }

  /** We are a host of our certificate and its majority is gone: only we (and its other live hosts) can carry the chain on. */
  rebaser(): boolean {
    return !!this.cert && has(this.cert.hosts, this.self) && this.prevGone?.e === this.cert.e;
  }

  /**
   * A node claims one epoch at a time, and a claim that certified makes it primary: its new
   * claim above an epoch we granted it, not built on that epoch's certificate, says that
   * claim failed (its ABANDON may have been lost).
   */
  dropFailedGrants(from: NodeId, claimE: number, knownE: number): void {
    const gone = this.accepted.filter((q) => q.p && idEquals(q.p, from) && q.e < claimE && knownE < q.e);
    if (gone.length) this.accepted = this.accepted.filter((q) => !gone.includes(q));
  }

  /**
   * A claimant's ABANDON of e, the last thing we promised: our promise falls back to what it
   * was before that grant (`grant`), so we follow the primary we followed then again. Safe
   * because a promise only guards a round that may still certify: the certificate of e names
   * its claimant as primary, only it can assemble one from our grant, and it abandons e only
   * after its round ended without one, never claiming e again (election.ts `ownClaimed`; a
   * late grant of e is answered ABANDON again). So no certificate of e can ever exist: no
   * other claimant's grant of an epoch at or below e can meet one, and nothing we ack after
   * this is missing from a state our grant vouched for. Only when nothing moved our promise
   * since (a later grant or claim keeps it); false when it did not fall back.
   */
  undoGrant(e: number, fromHex: string): boolean {
    const b = this.beforeGrant;
    if (!b || b.e !== e || b.to !== fromHex || this.promised !== e || this.promisedTo !== fromHex) return false;
    this.beforeGrant = undefined;
    this.grantedRoot = undefined;
    this.promised = b.promised;
    this.promisedTo = b.promisedTo;
    if (this.learnt === b.learntAfter) this.learnt = b.learnt;
    return true;
  }

  /** Whether our last grant was of `hex`'s first claim of e (it named no certificate), the claim we follow when our epoch is e and `hex` our primary. */
  followsRoot(e: number, hex: string): boolean {
    return this.grantedRoot?.e === e && this.grantedRoot.to === hex;
  }

  /** A claimant's ABANDON of e: the epoch we granted it goes (what it covered stays). False when we hold no such grant. */
  abandon(e: number, from: NodeId): boolean {
    if (!this.accepted.some((q) => q.e === e && q.p && idEquals(q.p, from))) return false;
    this.accepted = this.accepted.filter((q) => q.e !== e || !q.p || !idEquals(q.p, from));
    return true;
  }

  /**
   * We grant `fromHex`'s claim of e over `hosts`: what we granted may be certified unseen.
   * Our earlier grants stay beside it (the claim covered each of them, so a claim that covers
   * it and them is what we granted anyway): when its claimant abandons e, what we owed before
   * is still owed, and nothing more. The claim's own `pend` is not taken over: those are
   * epochs other hosts granted, and they hold them themselves. (Taken over, they outlived the
   * abandoned claim that brought them, spread to every host that granted it, and left a
   * region more granted sets than a claim can cover: no claim could win any more.)
   * `root`: the claim named no certificate (`followsRoot`).
   */
  grant(e: number, hosts: NodeId[], from: NodeId, fromHex: string, root = false): void {
    const before = { e, to: fromHex, promised: this.promised, promisedTo: this.promisedTo, learnt: this.learnt };
    this.grantedRoot = root ? { e, to: fromHex } : undefined;
    this.promised = e;
    this.promisedTo = fromHex;
    // A grant is our own promise, whatever chain it builds on: it stays when the chain goes.
    if (this.learnt) this.learnt = { ...this.learnt, promised: e, promisedTo: fromHex };
    this.beforeGrant = { ...before, learntAfter: this.learnt };
    const base = this.cert?.e ?? 0;
    this.accepted = boundGranted([...this.accepted, { e, hosts, p: from }].filter((q) => q.e > base));
  }

  /**
   * We refused a claim of epoch e by a host of our set, which promised e to itself: our next
   * claim goes above it. A primary whose new host set came while its backup, taking its
   * slowness for death, was claiming claimed the epoch after its own, at or below the
   * backup's, and the backup refused it: no majority of the old set without it, the primary
   * was deposed by its own set change (8 tabs on 2 cores). Above it, the backup grants (its
   * own claim then ends) and any granter of that claim says what the new one must cover
   * (a refusal's `pend`). Within the epoch jump of what we hold, as a granter bounds a claim.
   */
  claimRefused(e: number): void {
    if (e <= this.promised || e > Math.max(this.cert?.e ?? 0, this.promised) + MAX_EPOCH_JUMP) return;
    this.refusedAt = Math.max(this.refusedAt, e);
  }

  /** A refusal named a newer certificate (checked by the caller; `hold`: how): our next claim builds on it and goes above it. */
  learnCert(c: EpochCert, links?: readonly EpochCert[], hold: Hold = 'anchored'): void {
    this.adoptCert(c, links, hold);
    this.refusedAt = Math.max(this.refusedAt, c.e);
  }

  /**
   * What a finished claim teaches: refusals raise our next epoch; granted epochs they named
   * must be covered; when no majority of the previous set answered, we hold our claims back
   * for rebaseMs if we are not of that set (no claim of ours can win until one of them
   * rebases or its live primary takes us in, and ours would only outbid them), and when its
   * primary said nothing either (unless the chain is learnt and far: `knownFar`), that is
   * the silence a rebase waits for.
   * Where nobody rebases (rebaseMs infinite) there is nothing to wait for: that majority may
   * only be cut off, and our claims win once it answers again (held back for good, every
   * host outside a far set a split left certified waited on it after healing, while its
   * hosts, idle and asked by no subscriber, never claimed: the region had no primary).
   */
  afterClaim(o: ClaimOutcome, now: number, rebaseMs: number): void {
    this.refusedAt = Math.max(this.refusedAt, o.highestRefusal);
    const known = o.known;
    // No majority of the previous set answered (its primary one vote of them): no claim of
    // ours that needs that majority can win.
    const noMajority = !!known && known.hosts.filter((h) => idEquals(h, this.self) || o.answered.has(idToHex(h))).length < quorum(known.hosts.length);
    // But a primary that answered is alive, whatever its backups' bare refusals say ('primary
    // alive': claim-round.ts `alive` leaves them out for a silent primary's sake, and counts
    // the primary only while a majority of its set answered at all): its set is not silent. Taken for silence, a round of a claimant outside an honest set its primary
    // had filled from links (host-set-check.ts: the nearer nodes quiet, so the set was
    // rebasable) let it rebase over the live primary rebaseMs later: two chains ran on
    // (rebase-live-primary.test.ts). Not for a learnt far chain (`knownFar`): one live key
    // among the attacker's would hold off for good the rebase that alone leaves it.
    const primaryAnswered = !!known && !o.knownFar && !idEquals(known.primary, this.self) && o.answered.has(idToHex(known.primary));
    const prevSilent = noMajority && !primaryAnswered;
    // Outside that set we hold our claims back. Past rebaseMs by a claim round and the SYNC
    // after it: a host of that set began waiting about when we did, and our claim at the end
    // of the same wait took the spare's grant its rebase needed (a duel: kill to a primary
    // 17-21 s, a hostile backup withholding its grant). As long when its primary answered:
    // its re-check takes us in when we are near, and claiming on, a claimant nearest the key
    // refused the primary's claim that named it and was left out as quiet, again and again
    // (sybil-scale-sim's 60-peer run, before first claims named the lookup's set).
    if (!o.certified && noMajority && known && !has(known.hosts, this.self) && Number.isFinite(rebaseMs)) {
      const until = Math.max(now + rebaseMs + REBASE_AFTER_MS, this.outsideHold?.e === known.e ? this.outsideHold.until : -Infinity);
      this.outsideHold = { e: known.e, until };
    }
    if (o.certified || !prevSilent) this.prevGone = undefined;
    else if (o.fault === 'no-previous-majority' && known && this.prevGone?.e !== known.e) this.prevGone = { e: known.e, since: now };
    // A learnt epoch our claim covered, no majority of its set answering, goes, and neither
    // its set nor what the host that named it names is learnt for UNHEARD_MS: a refusal's
    // `pend` over ids no node holds, the same or fresh each time, then holds off one claim,
    // not every claim after it. Safety does not rest on learning: a host that granted the
    // epoch refuses every claim that does not cover it (grant-rules.ts `uncovered`).
    for (const q of o.unheard ?? []) {
      if (!this.learned.some((x) => sameSet(x.hosts, q.hosts))) continue;
      const tag = setTag(q.hosts), namer = this.namers.peek(tag);
      this.unheardSets.set(tag, now + UNHEARD_MS);
      if (namer) this.unheardNamers.set(namer, now + UNHEARD_MS);
    }
    this.learned = [...this.learned, ...o.learned].filter((q) => !this.unheardLately(q.hosts, this.namers.peek(setTag(q.hosts)) ?? '', now)).slice(-MAX_PEND);
  }

  /**
   * Pings of the hosts of `known`, a certificate we hold only as learnt, answered by
   * `answered` (hex; we count ourselves): what a claim of ours over them that only those
   * answered would teach (`afterClaim`), no claim sent (region-granter.ts `onHandoff`).
   */
  probedLearnt(known: EpochCert, answered: ReadonlySet<string>, now: number, rebaseMs: number, knownFar: boolean): void {
    this.afterClaim({ known, certified: false, answered, fault: 'no-previous-majority', learned: [], highestRefusal: 0, knownFar }, now, rebaseMs);
  }

  /** `hex`'s refusal named `hosts` in `pend`, and we learn it (`unheardLately`). */
  namedPend(hosts: readonly NodeId[], hex: string): void {
    this.namers.set(setTag(hosts), hex);
  }

  /**
   * Whether a claim of ours covered `hosts` in `pend`, or a set `hex` named, and heard no
   * majority of it within UNHEARD_MS before `now` (`afterClaim`): a refusal's granted epoch
   * over `hosts` from `hex` is then not learnt.
   */
  unheardLately(hosts: readonly NodeId[], hex: string, now: number): boolean {
    return (this.unheardSets.peek(setTag(hosts)) ?? -Infinity) > now || (this.unheardNamers.peek(hex) ?? -Infinity) > now;
  }
}
