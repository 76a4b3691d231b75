// Whether a host may grant a claim: the rules that need no signature check and no lookup,
// as one pure function of what the host holds (region-granter.ts runs them first, then checks
// the claimant's certificate and that the claimant is inside its view of the host set).
import { compareDistance, idEquals, type NodeId } from '../core/node-id';
import { certShapeFault, MAX_EPOCH_JUMP, sameSet, type CertPrev, type ClaimTerms, type EpochCert, type GrantSig } from '../region/epoch-cert';

export interface ClaimFrame {
  e: number;
  from: NodeId;
  fromHex: string;
  hosts: NodeId[];
  /** The newest certificate the claimant holds. */
  known?: EpochCert | undefined;
  rebase?: boolean | undefined;
  /** Granted epochs above `known` the claim also needs a majority of (epoch-cert.ts). */
  pend?: CertPrev[] | undefined;
}

export interface GranterView {
  selfId: NodeId;
  /** Highest epoch we granted or claimed. */
  promised: number;
  /** The newest certificate we hold. */
  cert: EpochCert | undefined;
  /** Epochs we granted above `cert` (the last claim we granted and what it covered): each may be certified unseen by us. */
  accepted?: readonly CertPrev[] | undefined;
  /** Highest epoch among our entries (bounds a first claim's epoch when we hold no certificate). */
  stateEpoch: number;
  /** We are a live primary. */
  primary: boolean;
  /** The node we (as primary, or our primary) handed the region to, hex. */
  handoffTo: string;
  /** We follow a primary (hex) and heard it `heardAgoMs` ago. */
  following: string;
  heardAgoMs: number;
  failoverMs: number;
  /**
   * The claim merges our chain into the claimant's, and we yield to it (cert-anchor.ts
   * `yieldsTo`, checked by the caller; `mergeClaim`): neither our live primary nor our own
   * certificate at the claim's epoch holds it back.
   */
  merging?: boolean;
  /**
   * The claim's certificate is of another chain of the region than ours, told by the links
   * (cert-anchor.ts `forkOf` through our chain and the claimant's, checked by the caller), not
   * by its epoch: two chains that grew apart each build above the other's head.
   */
  fork?: boolean;
}

/** The terms a grant of `m` signs. */
export function claimTerms(m: ClaimFrame): ClaimTerms {
  return { e: m.e, primary: m.from, hosts: m.hosts, ...(m.known ? { prev: { e: m.known.e, hosts: m.known.hosts } } : {}), ...(m.rebase ? { rebase: true } : {}), ...(m.pend?.length ? { pend: m.pend } : {}) };
}

/** The first epoch of `accepted` below the claim's that the claim does not cover, if any. */
export function uncovered(accepted: readonly CertPrev[] | undefined, m: ClaimFrame): CertPrev | undefined {
  return accepted?.find((t) => t.e < m.e && !coversGranted(m, t));
}

/** Whether the claim needs (a majority of) `t`'s hosts: its certificate or its `pend` list names that epoch and set (a certificate's successor must name it exactly: epoch-cert.ts `succeeds`). */
export function covers(m: ClaimFrame, t: CertPrev): boolean {
  if (m.known && m.known.e >= t.e) return m.known.e > t.e || sameSet(m.known.hosts, t.hosts);
  return !!m.pend?.some((q) => q.e === t.e && sameSet(q.hosts, t.hosts));
}

/**
 * For an epoch we granted (not known certified): whether the claim's certificate needs a
 * majority of its set, by any epoch of that set: `covers`, or the claim's new hosts, its
 * previous hosts (unless a rebase), or a `pend` entry of the same set. The set is what
 * matters: a majority of it holds every edit an epoch of that set confirmed, so one entry
 * per set covers them all (with one per epoch, a claim could not cover four granted epochs
 * in its three pend slots, and the region waited for ever).
 */
export function coversGranted(m: ClaimFrame, t: CertPrev): boolean {
  if (covers(m, t)) return true;
  if (sameSet(m.hosts, t.hosts) || (m.known && !m.rebase && sameSet(m.known.hosts, t.hosts))) return true;
  return !!m.pend?.some((q) => sameSet(q.hosts, t.hosts));
}

/** Why `v` must refuse the claim `m` (a short reason), or null when the remaining checks may go on. */
export function grantRefusal(v: GranterView, m: ClaimFrame): string | null {
  if (m.e <= v.promised) return `promised ${v.promised}`;
  const fault = certShapeFault(claimTerms(m));
  if (fault) return fault;
  const has = (list: readonly NodeId[]) => list.some((h) => idEquals(h, v.selfId));
  if (!has(m.hosts) && !(m.known && has(m.known.hosts)) && !m.pend?.some((q) => has(q.hosts))) return 'not a host';
  // Epochs move in bounded steps: a forged huge epoch must not end failover for good. The
  // step is from our promise too: failed claims may have raised it past our certificate by
  // more than a step, and a bound from the certificate alone then refused every claim.
  if (m.e > Math.max(v.cert?.e ?? v.stateEpoch, v.promised) + MAX_EPOCH_JUMP) return 'epoch jump';
  // The claimant must build on the newest certificate we know (else two chains could grow).
  // (Or past it: the claim needs a majority of our certificate's hosts as a pending epoch.)
  if (v.cert && (!m.known || m.known.e < v.cert.e) && !covers(m, v.cert)) return `behind e${v.cert.e}`;
  if (v.cert && m.known && m.known.e === v.cert.e && !idEquals(m.known.primary, v.cert.primary) && !v.merging) return 'other certificate';
  // Built on another chain's certificate: no link of ours, whatever its epoch. Granted (by a
  // host that follows no live primary: one that does finds it unanchored), the other chain
  // took our chain's last live hosts into its set unmerged; an edit our chain confirmed came
  // only in one host's grant, signed under our chain, and rule 8 dropped it: never shown
  // (hosting-chains-apart.test.ts). Only the merge of ours into it is granted (`merging`: its
  // primary nearer the key); our refusal names our certificate, and the chain whose primary
  // is nearer merges the other.
  if (v.cert && m.known && v.fork && !v.merging) return `other chain e${m.known.e}`;
  // We granted an epoch above the claimant's certificate: it may have been certified
  // without the claimant hearing of it. Paxos's rule: the claim must win its hosts too.
  const open = uncovered(v.accepted, m);
  if (open) return `pending e${open.e}`;
  // A live primary yields only to the node it handed the region to; a backup that heard its
  // primary just now does not help depose it (the primary's lease counts on it).
  if (v.merging) return null;
  if (v.primary && v.handoffTo !== m.fromHex) return 'alive primary';
  if (v.following && m.fromHex !== v.following && m.fromHex !== v.handoffTo && v.heardAgoMs < v.failoverMs / 2) return 'primary alive';
  return null;
}

/**
 * Whether `m` claims to merge the chain of `cert` (ours) into the claimant's own: built on a
 * certificate whose primary is the claimant, and naming ours, its epoch and set, in `pend`
 * (so it needs a majority of our set, whose grants carry our chain's state).
 */
export function mergeClaim(m: ClaimFrame, cert: EpochCert | undefined): m is ClaimFrame & { known: EpochCert } {
  return !!cert && !!m.known && idEquals(m.from, m.known.primary) && !!m.pend?.some((q) => q.e === cert.e && sameSet(q.hosts, cert.hosts));
}

/**
 * What a refusal of `m` tells the claimant: our certificate when the claimant's is older (its
 * next claim must build on it) or of another chain of the region (`fork`: the claimant may
 * merge ours into its next epoch, cert-anchor.ts `mergeable`), and a granted epoch it must cover.
 */
export function refusalNews(cert: EpochCert | undefined, accepted: readonly CertPrev[] | undefined, m: ClaimFrame, fork = false): { cert?: EpochCert; pend?: CertPrev } {
  const open = uncovered(accepted, m);
  return { ...(cert && (!m.known || m.known.e < cert.e || fork) ? { cert } : {}), ...(open ? { pend: open } : {}) };
}

/**
 * Whether a refused claim from `from` holds our own claims back: duelling claimants starve
 * each other (every claim leaves grants the next must cover), so we wait for a host of the
 * set we know (`hosts`, or our certificate's) that is closer to the key than we are. Not for
 * an outsider (its claims must change nothing here), nor while a rebase is pending.
 */
export function defersToCloser(selfId: NodeId, key: NodeId, hosts: readonly NodeId[], cert: EpochCert | undefined, from: NodeId, mustRebase: boolean): boolean {
  const has = (list: readonly NodeId[]) => list.some((h) => idEquals(h, from));
  return !mustRebase && (has(hosts) || (!!cert && has(cert.hosts))) && compareDistance(from, selfId, key) < 0;
}

/** Our last grant, said again to its claimant if its CLAIM comes again. */
export interface LastGrant {
  e: number;
  to: string;
  hosts: NodeId[];
  sig: GrantSig;
}

/** Whether `m` is the claim we last granted, said again (our grant may have been lost): the same promise, so the same grant. */
export function grantsAgain(last: LastGrant | undefined, promised: number, promisedTo: string, m: ClaimFrame): last is LastGrant {
  return !!last && last.e === m.e && last.to === m.fromHex && promised === m.e && promisedTo === m.fromHex && sameSet(last.hosts, m.hosts);
}
