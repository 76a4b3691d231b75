// One claim for an epoch: the terms the claimant asked the hosts to sign, the grants that
// came back (each checked against the terms), what the refusals taught, the moment the
// grants make a certificate, when to ask again and when the round is over. Pure: the
// caller passes the time in; region-claimant.ts sends, signs, checks and waits.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { certShapeFault, MAX_EPOCH_JUMP, MAX_PEND, MIN_CERT_HOSTS, quorum, sameSet, type CertPrev, type ClaimTerms, type EpochCert, type GrantSig } from '../region/epoch-cert';

/** A claim that has no quorum after this long failed (region-claimant.ts); a granter holds its own claims back as long for a closer claimant (region-granter.ts). */
export const CLAIM_TIMEOUT_MS = 1500;

/** Resends of a claim to the hosts that have not answered. */
const MAX_RESENDS = 2;

/**
 * Who a claim with `terms` goes to (hex -> id, in this order): its hosts, the hosts we know
 * now, its previous set's and its pending epochs' (their grants count for their majorities,
 * and every answer's state is merged), not us.
 */
export function claimTargets(terms: ClaimTerms, current: readonly NodeId[], self: NodeId): Map<string, NodeId> {
  const targets = new Map<string, NodeId>();
  for (const h of [...terms.hosts, ...current, ...(terms.prev?.hosts ?? []), ...(terms.pend ?? []).flatMap((q) => q.hosts)]) if (!idEquals(h, self)) targets.set(idToHex(h), h);
  return targets;
}

export class ClaimRound {
  /** Checked grants by granter (hex); ours is in from the start. */
  private readonly grants = new Map<string, GrantSig>();
  /** Who answered (grant or refusal), of those asked. */
  readonly answered = new Set<string>();
  /**
   * Who answered only with refusals that named no newer certificate (nothing, or a granted
   * epoch to cover, which `backed` judges): no news of any successor by itself (`alive`).
   */
  private readonly bare = new Set<string>();
  private readonly told = new Set<string>();
  /** The granted epochs each refuser named for us to cover (`pend`), its newest MAX_PEND. */
  private readonly pends = new Map<string, CertPrev[]>();
  /** When the grants first made a certificate. */
  quorumAt: number | null = null;
  /** Highest promise a refusal named (bounded by the caller). */
  highestRefusal = 0;
  /** Granted epochs above our certificate that refusals said the next claim must cover (bounded by the caller). */
  learned: CertPrev[] = [];
  wake: () => void = () => {};
  /** A closer host of our set claims this epoch too: we give way (region-granter.ts) rather than duel. */
  yielded = false;

  constructor(
    readonly terms: ClaimTerms,
    own: GrantSig,
    /** Who was asked (hex): only their answers count. */
    readonly targets: ReadonlySet<string>,
  ) {
    this.grants.set(idToHex(own.id), own);
  }

  get e(): number {
    return this.terms.e;
  }

  get hosts(): NodeId[] {
    return this.terms.hosts;
  }

  granted(): string[] {
    return [...this.grants.keys()];
  }

  asked(hex: string): boolean {
    return this.targets.has(hex);
  }

  addGrant(hex: string, g: GrantSig): void {
    this.grants.set(hex, g);
  }

  /**
   * Who refused naming nothing with a promise below our epoch: no rival's epoch holds them
   * (an honest host whose view of the set leaves us out says 'outsider' so), so a first claim
   * may leave them out once they kept on (region-claimant.ts `firstRefusals`).
   */
  readonly refusedBelow = new Set<string>();

  /**
   * A refusal from `hex`; `news`: it named a newer certificate; `pend`: the granted epoch it
   * named for us to cover, news only where another answer backs it (`backed`); `promised`: its promise.
   */
  refusal(hex: string, news: boolean, promised = Infinity, pend?: CertPrev): void {
    (news ? this.told : this.bare).add(hex);
    if (pend) this.pends.set(hex, [...(this.pends.get(hex) ?? []), pend].slice(-MAX_PEND));
    if (!news && !pend && promised < this.e) this.refusedBelow.add(hex);
  }

  /**
   * Whether a granted epoch `hex`'s refusals named is backed by another node's answer: a
   * refusal from another node naming the same epoch and set, both of them among the
   * REBASE_RANK nodes we find nearest the key (`near`, hex). The claimant cannot check a
   * `pend` (a grant of a claim that may never have certified: no certificate, no signature
   * but its sender's vouches for it), and one host's word costs nothing: a hostile backup
   * that named a made-up epoch over two ids no node holds with every refusal counted as a
   * live host of the set, and the survivor never rebased (hosting-rebase-hostile.test.ts).
   * Nor does a second id's word anywhere: named in the made-up set, a live id of the
   * attacker's far from the key was asked by the next claim and named it too, and the
   * survivor never rebased either ('backed-pend'). Two ids among our 3 nearest are the
   * region (the model's limit). A claim that may have certified had a majority of its own
   * set and of the set it built on grant it, and each of them holds it until the claimant
   * abandons it: asked by a claim that does not cover it, a second one names it too; asked
   * by one that covers it, they grant; its primary, alive, names its certificate.
   */
  private backed(hex: string, near: ReadonlySet<string>): boolean {
    const named = this.pends.get(hex) ?? [];
    if (!near.has(hex)) return false;
    return [...this.pends].some(([other, qs]) => other !== hex && near.has(other) && this.answered.has(other) && qs.some((r) => named.some((q) => q.e === r.e && sameSet(q.hosts, r.hosts))));
  }

  /** What `hex`'s refusals named turned out to be no news (a certificate whose grants do not verify): as if they named nothing. */
  namedNothing(hex: string): void {
    this.told.delete(hex);
    this.bare.add(hex);
  }

  /**
   * Who answered as a live host of `known` counts for the rebase (election.ts `afterClaim`):
   * a grant, a refusal with news, and an answer from `known`'s primary while a majority of
   * `known`'s hosts answered at all (us included). Not a backup of it whose refusals named
   * nothing: with the primary silent, a successor of `known` needs that backup's grant or
   * ours, and its refusal would name it (as a certificate or a granted epoch), so a bare one
   * says only that it is alive, and a hostile backup that refused every claim kept the
   * survivor from ever rebasing (the region had no primary for good). A granted epoch it
   * named counts only as another answer among our nearest backs it (`backed`, `near`: hex).
   * A live primary answers for itself and its backups answer beside it ('primary alive'):
   * such a set is never deposed this way. A primary whose backups say nothing is one vote:
   * one live id of the attacker's, primary of a chain of its own ids anchored near the key,
   * refusing every claim, held the rebase off for good (hosting-sybil.test.ts).
   */
  alive(known: EpochCert | undefined, near: ReadonlySet<string>): Set<string> {
    const primary = known && this.heardOf(known.hosts) >= quorum(known.hosts.length) ? idToHex(known.primary) : '';
    return new Set([...this.answered].filter((hex) => !this.bare.has(hex) || this.told.has(hex) || this.grants.has(hex) || hex === primary || this.backed(hex, near)));
  }

  /** How many of `hosts` answered our claim at all (bare refusals too), our own grant counting for us. */
  private heardOf(hosts: readonly NodeId[]): number {
    return hosts.filter((h) => this.answered.has(idToHex(h)) || this.grants.has(idToHex(h))).length;
  }

  /**
   * The granted epochs our claim covered (`pend`) of whose set no majority answered (us
   * included): the claim could not certify over them (a rebase excepted), and neither they
   * nor what their namer names is learnt again for a while (election.ts `afterClaim`), so an
   * epoch made up over ids no node holds holds off one claim, not every claim after it.
   */
  unheard(): CertPrev[] {
    return (this.terms.pend ?? []).filter((q) => this.heardOf(q.hosts) < quorum(q.hosts.length));
  }

  /** The certificate the grants make, or undefined while they are too few. */
  cert(): EpochCert | undefined {
    return this.fault() ? undefined : { ...this.terms, grants: [...this.grants.values()] };
  }

  /**
   * Why the grants so far make no certificate (diagnostics, and `cert`): the reader's own
   * shape rule, so a chain's root waits for the grant of every host it names
   * (epoch-cert.ts `chainRoot`).
   */
  fault(): string | null {
    return certShapeFault({ ...this.terms, grants: [...this.grants.values()] });
  }

  /** Resends so far. */
  private resends = 0;

  /** Notes the moment the grants first make a certificate. */
  check(now: number): void {
    if (this.quorumAt === null && this.cert()) this.quorumAt = now;
  }

  /**
   * Whether to ask the hosts that have not answered again now (CLAIM_RESEND_MS after the
   * claim, twice at most, only while no certificate formed): 1 the first time (its answer
   * may be lost on a route through a dead node: the caller also probes the route and dials
   * it), 2 the second, else 0.
   */
  resendDue(now: number, sentAt: number, resendMs: number): number {
    if (this.quorumAt !== null || this.resends >= MAX_RESENDS || now - sentAt < (this.resends + 1) * resendMs) return 0;
    return ++this.resends;
  }

  /**
   * The round is over: a certificate formed, and every live host answered or the grace ran
   * out (it waits for states, not for the silent primary we replace), once every granter's
   * answer came whole or `framesMs` passed since the quorum. A granter's grant comes in the
   * first frame of its answer and its batch proofs in the last: an entry only that granter
   * holds (a tail its peer backup missed) is adopted only under those proofs, so a round
   * that ends at the grant drops confirmed edits.
   */
  settled(now: number, silent: { has(hex: string): boolean }, graceMs: number, framesMs = 0): boolean {
    if (this.quorumAt === null) return false;
    if (this.allAnswered(silent)) return true;
    const since = now - this.quorumAt;
    return since >= graceMs && (since >= framesMs || this.granted().every((hex) => !this.targets.has(hex) || this.answered.has(hex)));
  }

  /**
   * A refusal's promise raises our next claim, but by one step at most: a forged huge promise
   * must not push epochs out of range. (Clamped, not ignored: a claimant whose epoch lies
   * more than a step below its granters' promises catches up a step per round.)
   */
  refusedAt(promised: number): void {
    this.highestRefusal = Math.max(this.highestRefusal, Math.min(promised, this.e + MAX_EPOCH_JUMP));
  }

  /**
   * A refuser granted epoch `q` above our certificate (now at `certE`): our next claim must
   * win its hosts too. Bounded (a lying refuser can only slow our claims, which refusing
   * does anyway): above our certificate, below our claim's epoch (an honest refuser names
   * only epochs below it: grant-rules.ts `uncovered`), a certifiable set, the newest MAX_PEND kept.
   */
  learnPending(q: CertPrev | undefined, certE: number): boolean {
    if (!q || q.e <= certE || q.e >= this.e || q.hosts.length < MIN_CERT_HOSTS) return false;
    this.learned = [...this.learned.filter((x) => x.e !== q.e || !sameSet(x.hosts, q.hosts)), q].slice(-MAX_PEND);
    return true;
  }

  /**
   * Whether the round met another claimant of its epoch: every live target answered, no
   * certificate formed, and a refusal named our epoch (or a later one) promised elsewhere.
   * Two backups took the primary for dead at once; waiting out CLAIM_TIMEOUT_MS buys nothing,
   * since nobody is asked again.
   */
  duelled(silent: { has(hex: string): boolean }): boolean {
    return this.quorumAt === null && this.highestRefusal >= this.e && this.allAnswered(silent);
  }

  /** Whether every target answered, not counting those in `skip` (taken for dead). */
  allAnswered(skip: { has(hex: string): boolean } = new Set()): boolean {
    for (const t of this.targets) if (!this.answered.has(t) && !skip.has(t)) return false;
    return true;
  }
}

/**
 * A GRANT that refuses and names neither a certificate nor a granted epoch: news of nothing but
 * that its sender is alive (a quiet host it does not bring back, hosted-region.ts).
 */
export function bareRefusal(m: { ok: boolean; cert?: unknown; pend?: unknown }): boolean {
  return !m.ok && !m.cert && !m.pend;
}
