// The granter side of a region at one host: someone else wants to be primary. A host
// grants at most one claimant per epoch, storing its promise before it signs, and a grant
// or a refusal carries its state (docs/HOSTING.md, "Authority"; the pure rules are in
// grant-rules.ts). It reads and changes the region's role through `RegionRole`
// (region-role.ts), never the class that owns it.
import { idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { claimTerms, defersToCloser, grantRefusal, grantsAgain, mergeClaim, refusalNews, type LastGrant } from './grant-rules';
import { forkOf } from '../region/cert-anchor';
import { signGrant, type EpochCert, type GrantSig } from '../region/epoch-cert';
import { MAX_STATE_REQS, type ReplicationMessageOf } from './replication-messages';
import { encodeEntries, pieces } from '../region/region-state';
import { proofBytes } from '../region/entry-proofs';
import { proofFrames } from './state-proofs';
import { has, RegionSide } from './region-role';
import { CLAIM_TIMEOUT_MS } from './claim-round';

export class RegionGranter extends RegionSide {
  /** Our last grant, said again to its claimant if its CLAIM comes again. */
  private lastGrant: LastGrant | undefined;

  /** The claimant abandoned the epoch we granted it: its CLAIM of that epoch again is not our grant said again (the round it belonged to is over). */
  forget(e: number, fromHex: string): void {
    if (this.lastGrant && this.lastGrant.e === e && this.lastGrant.to === fromHex) this.lastGrant = undefined;
  }

  /** Is `id` inside our view of the host set (or the current epoch's)? Fresh lookup if neither says so. */
  private async inHostSet(id: NodeId): Promise<boolean> {
    // The current epoch's hosts answer at once, where a lookup in a churning network may
    // wait on dead contacts for seconds; so do the closest nodes our own table knows (twice
    // r: it may still list dead ones closer).
    if (has(this.region.hosts, id)) return true;
    if (has(this.ctx.tableNear(this.region.key, 2 * this.ctx.opts.replicas), id)) return true;
    if (has(await this.ctx.hostSet(this.region.key, false), id)) return true;
    return has(await this.ctx.hostSet(this.region.key, true), id);
  }

  async onClaim(from: NodeId, fromHex: string, m: ReplicationMessageOf<'CLAIM'>): Promise<void> {
    const claim = { e: m.e, from, fromHex, hosts: m.hosts, known: m.known, rebase: m.rebase, pend: m.pend };
    // Our chain and the claimant's: whether its certificate is of another chain than ours
    // (cert-anchor.ts `forkOf`), judged by these links, never by its epoch (grant-rules.ts `fork`).
    const links = () => [...this.el.chain, ...(m.chain ?? [])];
    const fork = () => !!m.known && !!this.el.cert && !this.el.learnt && forkOf(m.known, this.el.cert, links());
    this.el.dropFailedGrants(from, m.e, m.known?.e ?? 0);
    const mustRebase = this.el.mustRebase(from);
    // A refusal carries our state too (not to outsiders): a claimant that wins without our
    // vote must still hold every edit we hold. And our certificate, when the claimant's is
    // older: its next claim must build on it.
    const refuse = (why: string) => {
      this.region.trace(`refuse ${fromHex.slice(0, 6)} e${m.e}: ${why}`);
      // As the live primary, a claim of a host of our set: our next claim (a new host set)
      // goes above it (election.ts `claimRefused`).
      if (this.region.duty && has(this.region.hosts, from)) this.el.claimRefused(m.e);
      // Duelling claimants starve each other (every claim leaves grants the next must cover):
      // we hold our own claims back for a closer host of the set we know, refused or not.
      // (Not for an outsider: its claims must change nothing here. Nor for a node we handed
      // the region to that did not claim it in time: its claim that comes once we took the
      // region back, or once our backups claim past it, would end each of those claims in turn
      // while its own need never finish: hosted-region.ts handOff.)
      if (defersToCloser(this.ctx.selfId, this.region.key, this.region.hosts, this.el.cert, from, mustRebase) && !this.region.declined.declined(from, this.ctx.clock.now())) {
        this.el.defer(this.ctx.clock.now() + CLAIM_TIMEOUT_MS);
        // Its claim of the epoch we claim ourselves: both would fail; ours ends, its next wins.
        if (this.region.role === 'claiming' && this.el.promisedTo === this.ctx.selfHex && m.e === this.el.promised) this.region.giveWay();
      }
      this.ctx.stats.refusals++;
      const news = refusalNews(this.el.cert, this.el.accepted, claim, !!m.known && !!this.el.cert && forkOf(m.known, this.el.cert, links()));
      // With our certificate, the ones before it: a claimant that missed those epochs checks the links (docs/TRUST.md rule 1).
      const chain = news.cert && this.el.chainAbove(m.known?.e ?? 0);
      // Our state and its evidence, in as many frames as it takes (sendState).
      const head = { t: 'GRANT' as const, ...this.regionFields, e: m.e, ok: false, promised: this.el.promised, ...news, ...(chain ? { chain } : {}) };
      if (!has(this.region.hosts, from) || this.region.state.size === 0) return void this.region.toHost(from, head);
      void this.sendState(from, head);
    };
    // (Nor is it granted: a grant would make us follow it, and its claims, one after
    // another, would keep us from ever claiming the rebase ourselves.)
    if (mustRebase) return refuse(`e${this.el.cert!.e}'s majority is gone: rebase pending`);
    // The claimant said its claim again: our grant may have been lost on the way. The same
    // promise, so the same grant (our state now, which only grew).
    const last = this.lastGrant;
    if (grantsAgain(last, this.el.promised, this.el.promisedTo, claim)) {
      this.region.trace(`grant ${fromHex.slice(0, 6)} e${m.e} again`);
      return this.sendGrant(from, m.e, last.sig);
    }
    // The claim said again while our grant of it is still being stored and signed: that grant
    // is on its way. A refusal ('promised e', our promise being to this very claimant) would
    // end the claimant's round as a duel (in Chromium a busy tab's IndexedDB write outlasted
    // CLAIM_RESEND_MS, and each round of a failover ended so: 19.7 s in failover_crash).
    if (this.el.promised === m.e && this.el.promisedTo === fromHex) {
      this.ctx.stats.staleFrames++;
      return;
    }
    // The claim is built on a newer certificate than ours: we take it first (it is checked,
    // like one in a SYNC or a refusal). Epochs we granted at or below it can no longer be
    // certified unseen (one certificate per epoch), so the claim need not cover them: a
    // granter that kept the grant of a claim that failed, whose ABANDON was lost and whose
    // claimant never claimed again, refused every later claim for ever.
    // (Or at any epoch, anchored in our own view, when ours is only learnt: election.ts `supersedes`.)
    // Not another chain's: higher by epoch, it is no later link of ours.
    if (m.known && this.el.cert && (m.known.e > this.el.cert.e || this.el.learnt) && !fork() && this.el.supersedes(m.known, 'anchored', this.region.learntFar())) {
      const hold = await this.region.acceptable(m.known, m.chain, fromHex);
      const take = hold && this.el.cert && (m.known.e > this.el.cert.e || hold === 'anchored') && this.el.supersedes(m.known, hold, this.region.learntFar());
      // It replaced a learnt chain we followed as a backup: its primary is nobody we follow.
      if (take && this.el.adoptCert(m.known, m.chain, hold) && this.region.role === 'backup' && !this.region.duty) this.region.standAside(m.known, hold);
    }
    // A claim that merges our chain into a nearer one (two first claims over sets that shared
    // no node): granted over our live primary (cert-anchor.ts `yieldsTo`).
    const own = this.el.cert;
    const merging = mergeClaim(claim, own) && !this.el.learnt && (await this.ctx.certs.yieldsTo(this.region.key, claim.known, own!, fromHex, links()));
    if (merging) this.region.trace(`claim of ${fromHex.slice(0, 6)} e${m.e} merges our e${own!.e} into its e${claim.known.e}`);
    const view = (promised: number) => ({
      selfId: this.ctx.selfId, promised, cert: this.el.cert, accepted: this.el.accepted, stateEpoch: this.region.state.version.e, primary: !!this.region.duty, handoffTo: this.region.handoffTo,
      following: this.region.role === 'backup' ? this.region.primaryHex : '', heardAgoMs: this.ctx.clock.now() - this.region.lastHeard, failoverMs: this.ctx.opts.failoverMs,
      merging: merging && this.el.cert === own,
      fork: fork(),
    });
    // A closer host of the set we know claims while we claim ourselves (two backups took the
    // primary for dead, or heard its release, at once): our claim ends, and our promise goes
    // back to what it was before it if the closer claim may then be granted, which we do
    // below, in this one round (region-claimant.ts `giveWay` says why that is safe). The
    // closer one refuses ours (its promise is to itself), so the tie breaks the same way at
    // both. Asked again after the checks below that wait: our own claim may promise itself
    // meanwhile (its ping answered), and the closer claim then met only that promise.
    const yieldToCloser = () => {
      // (A claim below our own epoch is not given way to: we, the farther, claim higher, and
      // the closer grants ours, as any host grants a higher epoch.)
      if (this.region.role !== 'claiming' || this.el.promisedTo !== this.ctx.selfHex || m.e < this.el.promised || !defersToCloser(this.ctx.selfId, this.region.key, this.region.hosts, this.el.cert, from, mustRebase)) return;
      if (this.region.giveWay((promised) => grantRefusal(view(promised), claim) === null)) this.region.trace(`give way to ${fromHex.slice(0, 6)} e${m.e}: our claim ends, theirs granted`);
    };
    yieldToCloser();
    const why = grantRefusal(view(this.el.promised), claim);
    if (why) return refuse(why);
    const terms = claimTerms(claim);
    // (A merge's certificate is of another chain: judged in our view above, not as a link of ours.)
    if (m.known && !merging && !(await this.region.acceptable(m.known, m.chain, fromHex))) return refuse('bad certificate');
    // A rebase from outside the set it rebases over: only over a set that is not the region's
    // nearest nodes as we see them (cert-checker.ts `rebasable`).
    if (m.rebase && m.known && !has(m.known.hosts, from) && !this.ctx.certs.rebasable(this.region.key, m.known.hosts)) return refuse('stranger rebase over a near set');
    if (!(await this.inHostSet(from))) {
      this.ctx.stats.outsiderClaims++;
      return refuse('outsider');
    }
    // So must every host the claim brings into the set: a certificate that chains from ours
    // is every reader's (rule 1), and one member of our set named itself and a key that is no
    // node as the next set, our grant and its own a majority of ours, and held the region for
    // good (hosting-member-capture.test.ts). Those our table shows near are taken at once.
    const near = this.ctx.tableNear(this.region.key, 2 * this.ctx.opts.replicas);
    for (const h of m.hosts) {
      if (idEquals(h, from) || idEquals(h, this.ctx.selfId) || has(this.region.hosts, h) || (m.known && has(m.known.hosts, h)) || has(near, h)) continue;
      if (!(await this.inHostSet(h))) {
        this.ctx.stats.outsiderClaims++;
        return refuse(`outsider host ${idToHex(h).slice(0, 6)}`);
      }
    }
    yieldToCloser();
    // (Refused here, a farther claimant's claim holds nothing back: our own claim, promised
    // meanwhile, is the one to win, and held back it claimed again only CLAIM_TIMEOUT_MS later.)
    if (m.e <= this.el.promised || this.region.stopped) return refuse(`promised ${this.el.promised} (late)`);
    // Only a claim from inside the host set holds our own claims back.
    if (!mustRebase) this.el.defer(this.ctx.clock.now() + CLAIM_TIMEOUT_MS);
    // We followed a primary that went silent (a claim is granted over a live one only when it
    // handed over): our answers must not be routed through it while it is taken for dead.
    const silentPrimary = this.region.role === 'backup' && this.region.primary && this.region.primaryHex !== fromHex && this.region.handoffTo !== fromHex ? this.region.primary : undefined;
    this.el.grant(m.e, m.hosts, from, fromHex, !m.known);
    this.region.roles.handoffOver();
    this.region.wakeClaim();
    try {
      await this.region.persist();
    } catch {
      return; // a promise we could not store is no promise: say nothing
    }
    if (this.el.promised !== m.e || this.el.promisedTo !== fromHex) return;
    const sig = await signGrant(this.ctx.signer, this.region.key, terms);
    if (this.el.promised !== m.e || this.el.promisedTo !== fromHex) return;
    // We stop ordering before our state is taken: every edit we accepted travels with the grant.
    if (this.region.duty) this.region.stepDown(from, m.e);
    // Granting ends any claim of our own (it would only duel with the one we back).
    this.region.roles.granted(m.e, from, m.hosts, has(m.hosts, this.ctx.selfId), this.ctx.clock.now());
    this.ctx.stats.grants++;
    this.region.trace(`grant ${fromHex.slice(0, 6)} e${m.e}`);
    this.lastGrant = { e: m.e, to: fromHex, hosts: m.hosts, sig };
    if (silentPrimary) this.ctx.dht.suspect(silentPrimary);
    this.sendGrant(from, m.e, sig);
    // Subscribers that waited for our own claim go to the winner.
    for (const w of this.region.waiting.values()) this.region.toPlayer(w.id, { t: 'NOT_PRIMARY', ...this.regionFields, e: m.e, primary: from });
    this.region.waiting.clear();
  }

  /** Our grant of `e` with our state: a large one in several grants, each with the signature (the claimant counts it once). */
  private sendGrant(to: NodeId, e: number, sig: GrantSig): void {
    void this.sendState(to, { t: 'GRANT', ...this.regionFields, e, ok: true, promised: e, sig, reqs: this.region.requests.export(MAX_STATE_REQS) });
  }

  /**
   * `head` (a grant or a refusal) with our state and its evidence (state-proofs.ts), in as
   * many frames as it takes, each saying how many (`n`: the claimant counts our answer once
   * all came, in whatever order). The evidence: the signed batches and SYNC pieces we kept; if we were the
   * primary of the certificate we hold, our state signed by us (a primary signs what it
   * hands on, and a restart leaves it nothing else to show).
   */
  private async sendState(to: NodeId, head: ReplicationMessageOf<'GRANT'>): Promise<void> {
    const cert = this.el.cert;
    const own = !!cert && idEquals(cert.primary, this.ctx.selfId);
    const frames: Partial<ReplicationMessageOf<'GRANT'>>[] = [];
    for (const part of pieces(this.region.allEntries())) {
      const entries = encodeEntries(part);
      if (!own) frames.push({ entries });
      else {
        const p = { e: cert.e, f: 0, t: 0, b: entries };
        const s = await this.ctx.signer.sign(proofBytes(this.region.key, p));
        this.ctx.stats.proofsSigned++;
        frames.push({ proofs: [{ ...p, s }], pc: [cert] });
      }
    }
    frames.push(...proofFrames(this.region.proofs.all()));
    const { reqs, ...rest } = head;
    frames.forEach((f, i) => this.region.toHost(to, { ...rest, ...(i === 0 && reqs ? { reqs } : {}), ...f, ...(frames.length > 1 ? { n: frames.length } : {}) }));
  }

  /**
   * To the target: the primary asks us, the closest node, to claim (it stopped ordering and
   * will grant us); we claim at least e, over its certificate. To a backup: the primary's
   * notice that `to` may claim although we heard the primary just now.
   */
  async onHandoff(from: NodeId, fromHex: string, m: ReplicationMessageOf<'HANDOFF'>): Promise<void> {
    if (m.to) {
      // Our primary stopped ordering for `to`: give its claim time before we claim ourselves.
      if (fromHex === this.region.primaryHex && !this.region.duty) {
        this.region.roles.handedOffTo(idToHex(m.to), this.ctx.clock.now());
      }
      return;
    }
    // As a live primary: a handoff from the primary of another chain of the region (two first
    // claims over sets that shared no node) whose primary lies farther from the key than ours:
    // our next epoch merges it (cert-anchor.ts `mergeable`).
    if (this.region.duty) {
      const own = this.el.cert;
      const links = [...this.el.chain, ...(m.chain ?? [])];
      if (m.cert && own && !this.el.learnt && idEquals(m.cert.primary, from) && forkOf(m.cert, own, links) && (await this.ctx.certs.mergeable(this.region.key, m.cert, own, this.ctx.opts.replicas, fromHex, links))) this.region.learnFork(m.cert);
      return;
    }
    // Our own claim is under way: it ends before another starts (a HANDOFF now is stale).
    if (this.region.role === 'claiming') return void this.ctx.stats.staleFrames++;
    const cert = m.cert;
    const own = !!cert && idEquals(cert.primary, from);
    // Certified by its sender but older than ours (or ours again from another primary): a
    // stale handoff, counted as a SYNC's is; we only look whether we are nearest (below).
    const stale = own && !this.el.supersedes(cert, 'anchored', this.region.learntFar());
    if (stale) this.ctx.stats.staleFrames++;
    const hold = cert && own && !stale ? await this.region.acceptable(cert, m.chain, fromHex) : false;
    const adopt = !!cert && !!hold && this.el.supersedes(cert, hold, this.region.learntFar());
    if (cert && adopt && hold === 'anchored') {
      // Certified by its own primary, anchored in our view: claim at once over its hosts with
      // us in, no lookup (a lookup under churn can take seconds, while the region has no primary).
      this.el.adoptCert(cert, m.chain, hold);
      this.ctx.stats.handoffs++;
      const hosts = sortByDistance([this.ctx.selfId, ...cert.hosts.filter((h) => !idEquals(h, this.ctx.selfId))], (x) => x, this.region.key).slice(0, this.ctx.opts.replicas);
      await this.region.claim(Math.min(m.e, cert.e + 1), false, hosts, true);
      return;
    }
    // Only learnt (rule 3: its hosts are not near the key as we see them): it may be an
    // attacker's, naming us beside keys of its own. Taken (and stored) as learnt, but its
    // hosts are neither our claim's set nor asked to grant anything: a claim over them, which
    // an attacker's live key granted, won us a certificate whose set, anchored as every won
    // claim is, made its keys a majority of our item voters (learnt-voters.test.ts). Whether a
    // majority of them is alive is asked by ping instead, while we look up whether we are
    // nearest the key (`learntAlive`).
    const probe = cert && adopt ? this.learntProbe(cert, m.chain) : undefined;
    const hosts = await this.ctx.hostSet(this.region.key, true);
    if (hosts[0] && idEquals(hosts[0], this.ctx.selfId)) {
      this.ctx.stats.handoffs++;
      await this.region.claim(0);
      return;
    }
    if (probe) await this.learntAlive(cert!, await probe);
  }

  /** Takes `cert` as learnt and stores it (a restart keeps it learnt); the hex ids of its other hosts that answer a ping within a claim round's time. */
  private learntProbe(cert: EpochCert, chain: readonly EpochCert[] | undefined): Promise<Set<string>> {
    this.el.adoptCert(cert, chain, 'learnt');
    this.region.persist().catch(() => {});
    return this.ctx.answering(cert.hosts.filter((h) => !idEquals(h, this.ctx.selfId)), CLAIM_TIMEOUT_MS);
  }

  /**
   * The probe of a learnt certificate's hosts (`answered`) teaches what a claim over them that
   * they did not answer would (election.ts `afterClaim`): with no majority of them alive, no
   * claim of ours built on it can win, so outside its set we hold our claims back for a
   * rebase, and the silence counts towards our own rebase over it. A host the idle rows of
   * the adversary kit reached, holding the kit's learnt chain over keys that are no nodes,
   * claimed otherwise as soon as a claim it had granted went quiet, and was idle (following
   * no one) once taken into the region's set (adversary.test.ts). Only while we still hold it
   * and claim nothing (a claim of ours learns its answers itself).
   */
  private async learntAlive(cert: EpochCert, answered: Set<string>): Promise<void> {
    if (this.el.cert !== cert || this.region.stopped || this.region.duty || this.region.role === 'claiming') return;
    this.region.trace(`learnt e${cert.e}: ${cert.hosts.filter((h) => idEquals(h, this.ctx.selfId) || answered.has(idToHex(h))).length} of its ${cert.hosts.length} hosts alive`);
    this.el.probedLearnt(cert, answered, this.ctx.clock.now(), this.ctx.opts.rebaseMs, this.region.learntFar());
  }
}
