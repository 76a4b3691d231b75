// The claimant side of a region at one host: we want to be primary. A claim asks the host
// set for grants of the next epoch (claim-round.ts counts them) and makes us primary once
// they form a certificate (docs/HOSTING.md, "Authority"); it reads and changes the region's
// role through `RegionRole` (region-role.ts), never the class that owns it.
import { hexToId, idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { within } from '../core/clock';
import { CLAIM_TIMEOUT_MS, claimTargets, ClaimRound } from './claim-round';
import { certShapeFault, chainRoot, MAX_CERT_HOSTS, MIN_CERT_HOSTS, quorum, sameSet, signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import type { ReplicationMessageOf } from './replication-messages';
import { getEdits, getLocation, type LocationRecord } from '../region/region-records';
import { forkOf, inChain, LEARN_EPOCH_CAP } from '../region/cert-anchor';
import { decodeEntries, type Entry } from '../region/region-state';
import { has, RegionSide } from './region-role';
import { GrantedStates, type GrantedOutcome } from './granted-states';
import { proofBytes, type StateProof } from '../region/entry-proofs';
import { NodeNotes } from './node-notes';
import { UnclaimingHosts } from './unclaiming-hosts';

/** Entries (proofs' included) one granter's answers may hold in a round; the rest is dropped (granted-states.ts). */
const GRANTED_PER_HOST = 1 << 22;

/** A primary we replaced for its silence is not taken back as a host for this long. */
const SUSPECT_MS = 30_000;
/** Silent (and replaced) primaries remembered per region, the oldest dropped first. */
const SUSPECTS_KEPT = 64;

/** A minute without a failed claim starts the claims' backoff again from its first wait (retryDelay). */
const FAILURES_FORGOTTEN_MS = 60_000;
/** Epochs of our failed claims remembered, to say ABANDON again to a grant of one that comes late. */
const ABANDONED_KEPT = 8;
/** Hosts remembered whose refusals named no news (`noNews`): a claim asks a few dozen at most. */
const NO_NEWS_KEPT = 16;

/**
 * A host that refuses our first claims naming nothing, with a promise below their epoch, for
 * this long is left out of the next (`firstRefusals`). An honest host says so while its view of
 * the region's nearest nodes leaves us out (it joined, or we did, a moment ago), and views meet
 * within a few lookups; a near id that refuses every first claim would keep a region that has
 * no chain yet without a primary, since a first claim needs every host (epoch-cert.ts `chainRoot`).
 */
export const FIRST_REFUSALS_MS = 5000;

/** A host that could not certify an epoch (too few hosts reachable) answers edits 'uncertified' this long. */
export const UNCERTIFIED_MS = 5000;
/**
 * The next attempt after claims that failed in a row waits min(CLAIM_BACKOFF_MAX_MS,
 * CLAIM_BACKOFF_MS x 2^(failures-1)), times 0.5-1.5 at random (so 4-12 s at the cap: waits
 * that all hit one cap would fall in step again); a win, or a minute without failing,
 * starts again from the first. Two hosts on a loaded machine, each claiming every 200-600
 * ms while a claim round took seconds, refused each other's claims for minutes (each
 * promise going to its own claim): the randomised backoff of duelling proposers.
 */
export const CLAIM_BACKOFF_MS = 400;
export const CLAIM_BACKOFF_MAX_MS = 8000;
/**
 * After the quorum, wait at most this long for the rest of each granter's answer (its
 * state and the batch proofs that vouch for entries only it holds: claim-round.ts
 * `settled`). Its frames leave in one burst behind its grant, so this is the bound for a
 * frame lost or a granter dying mid-answer, not a wait of every failover.
 */
export const CLAIM_FRAMES_MS = 300;
/**
 * A claim says its CLAIM again to the hosts that have not answered after this long, and
 * twice that (a frame routed through a node that died silently is lost; a host that
 * granted already answers a repeated CLAIM with its grant again).
 */
export const CLAIM_RESEND_MS = 300;
/**
 * A claimant whose view of the current hosts lost a node to a closed link waits this long
 * for its lookup, then claims over that view minus the closed nodes (a lookup can wait on
 * the dead node for the DHT's rpcTimeoutMs, 4 s in a tab).
 */
export const CLAIM_LOOKUP_MS = 300;
/**
 * A claimant pings the hosts it is about to name and keeps those that answer within this
 * (liveHosts); the primary's host-set re-check waits RECHECK_PING_MS (host-set-check.ts).
 */
export const CLAIM_PING_MS = 200;
/** A new primary writes its certificate to the store this long after winning it, unless an edit's write took it first. */
export const CERT_WRITE_AFTER_MS = 1000;
/** A primary with no state waits this long for the DHT's edit log. */
export const EDITS_FALLBACK_MS = 2000;

export class RegionClaimant extends RegionSide {
  private round: ClaimRound | undefined;
  /** What the granters of the round under way sent (adopted at its end). */
  private granted: { round: ClaimRound; states: GrantedStates } | undefined;
  /** Nodes whose silence made us claim: not brought back as hosts for SUSPECT_MS unless they answer a claim. */
  private readonly silent = new NodeNotes(SUSPECT_MS, SUSPECTS_KEPT);
  /**
   * Of those, primaries that had handed the region to nobody: silent for their
   * own slowness or death, not for a handoff under way. Not handed the region for SUSPECT_MS
   * however they answer meanwhile (`replacedLately`): a starved tab answers a ping between its
   * long tasks and stays slow.
   */
  private readonly replaced = new NodeNotes(SUSPECT_MS, SUSPECTS_KEPT);
  /**
   * Hosts of a claim of ours that failed which sent it nothing in the whole round
   * (CLAIM_TIMEOUT_MS, resent twice) though they answer pings, and nodes handed the region
   * that never claimed it (unclaiming-hosts.ts): left out of our next claims' sets
   * (liveHosts) until they answer a claim of ours or their strike's time passed. Before, a
   * released primary whose lookup named two such nodes among the key's three nearest claimed
   * over them every few seconds, each claim failing 'no-majority', for as long as the run
   * lasted (sybil_1k seed 3, region 8,1: 170 s).
   */
  private readonly unclaiming = new UnclaimingHosts();
  /** When hosts (hex) began to refuse our first claims naming nothing (`firstRefusals`), at most SUSPECTS_KEPT. */
  private readonly refusingSince = new Map<string, number>();
  private retry: unknown;
  /** The store write of a certificate we won (becomePrimary), due CERT_WRITE_AFTER_MS later. */
  private certWrite: unknown;
  /** The hosts of a duel we are the closer claimant of: we claim again over them at once (rematchAt: when we last did). */
  private rematch: NodeId[] | undefined;
  private rematchAt = -Infinity;
  /**
   * Claims started here. A claim that waits (a
   * host-set lookup can take seconds) may see us grant another claimant (role 'backup') and
   * then start a claim of our own again (role 'claiming' once more): the first must not take
   * that role for its own when it wakes. Two claims under way at once each end the other's
   * round (promise raised, `round` cleared), and every claim after them overlaps the last,
   * epochs running up (seen in the safety simulation: e12 .. e69).
   */
  private runs = 0;
  /** Our claims that failed in a row, and when the last did (retryDelay). */
  private failedInRow = 0;
  private failedAt = -Infinity;
  /** When our last claim went out: each grant of it holds our lease as an ack of a frame sent then would. */
  private sentAt = -Infinity;
  /** Until then, edits are answered 'uncertified' (our last claim found too few hosts). */
  private aloneUntil = -Infinity;
  /** The primary our claim under way replaces for its silence (hex), and when it answered the claim, if it did (`heardReplaced`). */
  private replacing: { hex: string; answeredAt: number } | undefined;
  /** Our claims' epochs that ended without a certificate (the newest ABANDONED_KEPT): a grant of one that comes late is answered ABANDON again. */
  private readonly abandoned: number[] = [];
  /**
   * Hosts (hex) asked by a ping of `pingAhead`: when it went out, and whether they answered
   * within CLAIM_PING_MS. For failoverMs from then liveHosts takes them as alive or silent.
   */
  private readonly pingedAhead = new Map<string, { at: number; answered: boolean }>();
  /** The ping of `pingAhead` still out: when it left, whom it asked (hex), and its answer to come. */
  private aheadOut: { at: number; asked: Set<string>; got: Promise<Set<string>> } | undefined;

  get claimSentAt(): number {
    return this.sentAt;
  }

  /** The hosts (hex) our last claim asked that sent it nothing, not even a refusal. */
  get silentInLast(): readonly string[] {
    return this.unanswered;
  }

  private unanswered: string[] = [];

  get uncertifiedUntil(): number {
    return this.aloneUntil;
  }

  /**
   * Nodes recently taken for dead because they went silent (their links may still look open),
   * and those that sent a failed claim of ours nothing (`unclaiming`): the set's fill and
   * re-check name none of them (host-set-check.ts).
   */
  suspects(): string[] {
    const now = this.ctx.clock.now();
    return [...this.silent.all(now), ...this.unclaiming.all(now)];
  }

  /** `hex` acked our epoch or asked for its SYNC: it hosts, whatever it sent our claims. */
  hosting(hex: string): void {
    this.unclaiming.answered(hex);
  }

  /**
   * Whether `id` left the region unanswered (a claim of ours, a handoff) and has not answered
   * us since, within the strikes' memory (unclaiming-hosts.ts): not handed the region, and a
   * re-check names one such node at a time (host-set-check.ts).
   */
  struck(id: NodeId): boolean {
    return this.unclaiming.struck(id, this.ctx.clock.now());
  }

  /**
   * `hex` was dropped from our set as quiet: a strike if it never answered us as a host (no
   * grant of our claim, no ack of our epoch: the claim certified without it), or if it had
   * left the region unanswered before (its time doubles: named again after its last strike,
   * it still said nothing). A backup that hosted with us and then went quiet is not struck.
   */
  droppedQuiet(hex: string, neverAnswered: boolean): void {
    const now = this.ctx.clock.now();
    if (neverAnswered || this.unclaiming.struckHex(hex, now)) this.unclaiming.strike(hex, now);
  }

  /** The nodes struck here (newest first, at most MAX_CERT_HOSTS): our SYNC tells our backups, who would name them after us. */
  struckHosts(): NodeId[] {
    return this.unclaiming.recent(this.ctx.clock.now(), MAX_CERT_HOSTS).map(hexToId);
  }

  /** Whether our claim replaced `hex`, a primary that had handed the region to nobody, for its silence in the last SUSPECT_MS. */
  replacedLately(hex: string): boolean {
    return this.replaced.notedHex(hex, this.ctx.clock.now());
  }

  /** Ends the wait of the claim under way, if any. */
  wake(): void {
    this.round?.wake();
  }

  /**
   * A closer host of our set claims while we claim (our promise went to our own claim).
   * Both claims would fail, each needing the other's grant, and each wait out
   * CLAIM_TIMEOUT_MS: ours ends now. And when `mayGrant` says the closer claim would be
   * granted with our promise back where it was before our claim, it goes back there (true:
   * the caller grants that claim now). Safe: our own grant of our epoch never left this node
   * (it travels only inside our certificate, and none formed: our round had no quorum), only
   * we could assemble a certificate of our epoch, our round is over and we never claim that
   * epoch again (`ownClaimed`); runClaim's end finds the promise moved and abandons it.
   * Else (false) we refuse it, and the closer one claims again at once when its round sees
   * every host answer (`duelled`): on starved tabs that took seconds, each claim round timing
   * out and the backoff growing (8.5 s without a primary in the starved-host scenario).
   */
  giveWay(mayGrant?: (promised: number) => boolean): boolean {
    const round = this.round, own = this.ownPromise;
    const ours = !!own && this.region.role === 'claiming' && this.el.promised === own.e && this.el.promisedTo === this.ctx.selfHex;
    const open = !round || (round.e === own?.e && round.quorumAt === null && !round.cert());
    const back = !!mayGrant && ours && open && mayGrant(own!.before.promised);
    const yielding = !!round && !round.yielded;
    if (!yielding && !back) return false;
    if (yielding || !round) this.ctx.stats.claimDuels++;
    if (round) round.yielded = true;
    if (back) {
      this.el.promised = own!.before.promised;
      this.el.promisedTo = own!.before.promisedTo;
    }
    round?.wake();
    return back;
  }

  /** Grants whose signature is being checked (`onGrant`). */
  private checking = 0;

  /**
   * Hosts (hex) whose refusal named a certificate that was no news (`onGrant`), with the
   * epoch our claim then built on: their next such refusal counts as news only once its
   * check says so. A refusal's certificate is checked while the round goes on, and a round
   * that ends first (every live host answered) counts it as news: a hostile backup naming one
   * with every refusal, each looked up afresh, kept the survivor from ever rebasing.
   */
  private readonly noNews = new Map<string, number>();

  /** The epoch our claim under way promised itself, and the promise before it, until its round ends (`giveWay`). */
  private ownPromise: { e: number; before: { promised: number; promisedTo: string } } | undefined;

  stop(): void {
    this.ctx.clock.clearTimeout(this.retry);
    this.ctx.clock.clearTimeout(this.certWrite);
  }

  /**
   * GENERATE: become primary of the next epoch if the host set certifies it.
   * `primarySilent`: we take over because the primary we follow went quiet (it counts as
   * gone, like a closed link, when choosing the host set to claim over). `hosts`: claim
   * over this set (a reconfiguration) instead of looking it up.
   */
  async claim(minEpoch = 0, primarySilent = false, hosts?: NodeId[], handedOver = false): Promise<boolean> {
    if (this.region.stopped || this.region.role === 'claiming' || this.region.role === 'primary') return false;
    // (A claim the primary asked for is not held back by the grants we just gave that primary.)
    if (this.region.deferred && !handedOver) {
      this.region.trace(`claim deferred`);
      this.scheduleRetry();
      return false;
    }
    // A handoff stands and we claim ourselves: the node it named did not take the region.
    const handed = this.region.handoffTo;
    const before = this.region.roles.startClaim();
    if (before === undefined) return false;
    // Struck too: a claim of ours that names it waits on a node that has shown it does not
    // take the region (with a second such node near the key, 1.5 s for nothing: sybil_1k
    // seed 1, region 1,1).
    if (handed && handed !== this.ctx.selfHex && !handedOver) {
      this.region.declined.note(handed, this.ctx.clock.now());
      this.unclaiming.strike(handed, this.ctx.clock.now());
    }
    if (primarySilent && !handed && this.region.primaryHex) {
      this.replaced.note(this.region.primaryHex, this.ctx.clock.now());
    }
    this.ctx.stats.claims++;
    const run = ++this.runs;
    // A handoff stands: the primary we followed released the region to that node, and its
    // silence is the handoff's, not its death. It stays in our claim's set and its routes
    // are not avoided: a claim that left it out for the nearest linked node, one that hosted
    // nothing, failed round after round while the released primary granted each (sybil_1k
    // seed 3: two regions never got a primary).
    const silentPrimary = primarySilent && !(handed && handed !== this.ctx.selfHex);
    const ok = await this.runClaim(run, minEpoch, silentPrimary, hosts).catch(() => false);
    if (ok) this.failedInRow = 0;
    if (ok && primarySilent) this.ctx.stats.takeovers++;
    if (!ok) {
      this.ctx.stats.claimsFailed++;
      this.failedInRow = this.recentFailures() + 1;
      this.failedAt = this.ctx.clock.now();
      if (run !== this.runs) return false; // a later claim of ours is under way
      this.region.roles.claimFailed(before);
      this.heardReplaced();
      const again = this.rematch;
      this.rematch = undefined;
      // Once per CLAIM_TIMEOUT_MS: a farther claimant that does not give way (it never saw our
      // claim) must not be met by a storm of ours.
      const now = this.ctx.clock.now();
      if (again && now - this.rematchAt >= CLAIM_TIMEOUT_MS && (this.region.role === 'backup' || this.region.role === 'idle')) {
        this.rematchAt = now;
        this.region.trace(`duel: claiming again at once`);
        return this.claim(0, false, again);
      }
      this.scheduleRetry();
    }
    return ok;
  }

  /**
   * Our failed claim took the primary we follow for dead, and it answered the claim (a
   * refusal: a live primary refuses): it is alive, and its silence counts from that answer.
   * Else we claimed again at once ('silent Infinity'), its frames having been refused while
   * our promise stood above its epoch, and a primary slow towards us alone was claimed over
   * until a claim went through.
   */
  private heardReplaced(): void {
    const r = this.replacing;
    this.replacing = undefined;
    if (!r || r.answeredAt === -Infinity || this.region.role !== 'backup' || this.region.primaryHex !== r.hex) return;
    this.region.trace(`primary ${r.hex.slice(0, 6)} answered our claim: alive`);
    this.region.roles.heard(Math.max(r.answeredAt, this.region.lastHeard));
  }

  private async runClaim(run: number, minEpoch: number, primarySilent: boolean, given: NodeId[] | undefined): Promise<boolean> {
    const o = this.ctx.opts;
    // The epoch whose primary's state we hold, if we do: its SYNC, then its batches in order
    // (`applied` is unset until that SYNC). See `needsDhtLog`.
    const heldEpoch = this.region.applied !== undefined ? this.region.epoch : undefined;
    this.unanswered = [];
    const startPromised = this.el.promised;
    this.replacing = primarySilent && this.region.primaryHex ? { hex: this.region.primaryHex, answeredAt: -Infinity } : undefined;
    if (primarySilent && this.region.primaryHex) {
      this.silent.note(this.region.primaryHex, this.ctx.clock.now());
      // We take it for dead: what we last heard of it must not keep another claimant off
      // ("primary alive") once our claim is over (a duel's closer claimant claims again at once).
      this.region.roles.forgetPrimaryVoice();
      // Our frames to the other hosts must not go through it while it is taken for dead.
      if (this.region.primary) this.ctx.dht.suspect(this.region.primary);
    }
    // Holding no certificate as this claim starts, and following a first claim we granted
    // (it named no certificate either), ours is a first claim too and names our lookup's set
    // (candidateHosts), whatever certificate comes to us meanwhile: the hosts we hold are
    // those of a claim that never certified, and a chain the location record carries (read
    // below, after the host set) names hosts of its own. Not when the claim we follow built
    // on a chain we do not hold (we are new to the region): its hosts are that chain's next
    // set, and a lookup then waits on the dead primary and the hosts that died with it.
    const first = !given && !this.el.cert && this.el.followsRoot(this.region.epoch, this.region.primaryHex);
    let hosts = given ?? (await this.claimHosts(primarySilent ? this.region.primaryHex : '', first));
    if (this.region.stopped || !this.current(run)) return false;
    // The region's closest nodes leave us out, but our certificate's majority is gone and
    // the others refuse every claim from outside its set until one of its hosts rebases
    // ('rebase pending'): we claim over us and the closest, and the primary's re-check hands
    // the region to them later. Going idle left the region without a primary for good.
    if (!has(hosts, this.ctx.selfId) && this.el.rebaser()) hosts = sortByDistance([this.ctx.selfId, ...hosts.slice(0, this.ctx.opts.replicas - 1)], (x) => x, this.region.key);
    if (!has(hosts, this.ctx.selfId)) {
      // Not ours to host: point the waiting subscribers at who should.
      this.region.roles.notOurs();
      for (const w of this.region.waiting.values()) this.region.toPlayer(w.id, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.region.epoch, ...(hosts[0] ? { primary: hosts[0] } : {}) });
      this.region.waiting.clear();
      return false;
    }
    if (hosts.length < MIN_CERT_HOSTS) {
      // Alone (or cut off): no epoch can be certified, so nothing can be confirmed here.
      this.ctx.stats.uncertifiable++;
      this.aloneUntil = this.ctx.clock.now() + UNCERTIFIED_MS;
      this.region.trace(`cannot certify: ${hosts.length} host(s)`);
      for (const w of this.region.waiting.values()) this.region.toPlayer(w.id, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.region.epoch, alone: true });
      this.region.waiting.clear();
      return false;
    }
    // A first claim (we hold no certificate) must not start a second chain beside a region
    // that already has one: the DHT's location record carries its newest certificate.
    if (!this.el.cert) await this.learnChain();
    if (this.region.stopped || !this.current(run)) return false;
    // Above every epoch we know of, our state's included: new edits must not be shadowed.
    const known = this.el.cert;
    // Learnt on signatures alone, its hosts far from the key: keys an attacker drew (rule 6
    // lets us rebase over them). Such a chain vouches for no entry (adoptGranted, fallbackToDht).
    const knownFar = this.region.learntFar();
    // Our certificates before it: a granter that missed those epochs checks the links (docs/TRUST.md rule 1).
    const chain = known && this.el.chainAbove(0);
    // A chain whose hosts are not the region's nearest nodes (keys an attacker drew, or ids it
    // placed just past the hosts, signing before anyone held the region) may be rebased from
    // outside it once its hosts stay silent (cert-checker.ts `rebasable`).
    const farKnown = !!known && !has(known.hosts, this.ctx.selfId) && this.ctx.certs.rebasable(this.region.key, known.hosts);
    const terms = this.el.claimTerms(hosts, this.region.epoch, this.region.state.version.e, minEpoch, this.ctx.clock.now(), o, farKnown);
    const { e, rebase } = terms;
    // What vouches for no entry in this claim: a far learnt chain's sets (`knownFar`), and in
    // a stranger rebase every set that is not the region's nearest nodes: the chain it goes
    // over may be an attacker's, signed with its log before anyone held the region.
    const vouchless = (set: readonly NodeId[]) =>
      (knownFar && this.ctx.certs.farSet(this.region.key, set)) || (!!rebase && farKnown && this.ctx.certs.rebasable(this.region.key, set));
    const pend = terms.pend ?? [];
    if (certShapeFault(terms)) {
      this.region.trace(`claim e${e}: ${certShapeFault(terms)}`);
      return false;
    }
    // We granted another claimant while we looked for hosts (its CLAIM came first): that claim
    // goes on and ours ends here. Promising ourselves over it voided our grant unsaid (its
    // signature waits on the promise), and the two claims refused each other.
    if (this.el.promised > startPromised && this.el.promisedTo !== this.ctx.selfHex) {
      this.region.trace(`claim e${e} overtaken: we granted ${this.el.promisedTo.slice(0, 6)} e${this.el.promised}`);
      return false;
    }
    const before = { promised: this.el.promised, promisedTo: this.el.promisedTo };
    this.el.promised = e;
    this.el.promisedTo = this.ctx.selfHex;
    this.ownPromise = { e, before };
    this.el.ownClaimed = Math.max(this.el.ownClaimed, e);
    // Our promise must be stored before our own grant leaves this node, and it leaves only
    // inside the certificate: the store write runs while the CLAIM is out, not before it (a
    // busy tab's IndexedDB write took up to 1.1 s, long enough for the next backup's claim
    // to come first: a duel; failover_crash under load).
    const stored = this.region.persist().catch(() => {});
    const own = await signGrant(this.ctx.signer, this.region.key, terms);
    if (this.el.promised !== e || !this.current(run)) {
      this.region.trace(`claim e${e} overtaken: promised ${this.el.promised}, ${this.region.role}`);
      return false;
    }
    // The previous hosts are asked too: their grants count for the previous set's majority,
    // and every answer's state is merged.
    const targets = claimTargets(terms, this.region.hosts, this.ctx.selfId);
    const round = new ClaimRound(terms, own, new Set(targets.keys()));
    this.round = round;
    this.granted = { round, states: new GrantedStates(GRANTED_PER_HOST) };
    this.region.trace(`claim e${e} hosts ${hosts.map((h) => idToHex(h).slice(0, 6)).join(',')}${pend.length ? ` pend ${pend.map((q) => `e${q.e}`).join(',')}` : ''}`);
    this.sentAt = this.ctx.clock.now();
    for (const t of targets.values()) this.region.toHost(t, { t: 'CLAIM', ...this.regionFields, e, hosts, ...(known ? { known } : {}), ...(chain ? { chain } : {}), ...(rebase ? { rebase } : {}), ...(pend.length ? { pend } : {}) });
    const deadline = this.ctx.clock.now() + CLAIM_TIMEOUT_MS;
    for (;;) {
      const now = this.ctx.clock.now();
      round.check(now);
      const resends = round.resendDue(now, this.sentAt, CLAIM_RESEND_MS);
      if (resends > 0) {
        for (const [hex, t] of targets) {
          if (round.answered.has(hex)) continue;
          // Its answer may be lost on a route through a node as dead as the primary: the DHT
          // probes our first hop (and drops it if silent), the relay dials it for a direct
          // link, and we ask once more.
          if (resends === 1) {
            this.ctx.dht.suspectRoute(t);
            this.ctx.reach(t);
          }
          this.region.toHost(t, { t: 'CLAIM', ...this.regionFields, e, hosts, ...(known ? { known } : {}), ...(chain ? { chain } : {}), ...(rebase ? { rebase } : {}), ...(pend.length ? { pend } : {}) });
        }
      }
      const silent = { has: (hex: string) => this.silent.notedHex(hex, now) };
      if (round.settled(now, silent, o.claimGraceMs, CLAIM_FRAMES_MS) || round.yielded) break;
      // (Not while a grant is being checked: the farther claimant's grant of our epoch,
      // counted as an answer before its signature is, would make every refusal look like a duel.)
      if (this.checking === 0 && round.duelled(silent)) {
        // The other claimant of our epoch is a backup of the set we know (only they claim
        // when the primary goes silent): the closer of us claims again at once, and the
        // farther gives way when our claim reaches it (giveWay). (Not the closest of the new
        // set: a spare taken in may be closer to the key, and it does not claim.)
        if (this.closestLive(known?.hosts ?? hosts)) {
          this.ctx.stats.claimDuels++;
          this.rematch = hosts;
        }
        break;
      }
      if (now >= deadline || this.region.stopped || this.el.promised !== e || this.el.promisedTo !== this.ctx.selfHex) break;
      await new Promise<void>((resolve) => {
        const t = this.ctx.clock.setTimeout(resolve, Math.min(50, Math.max(1, deadline - now)));
        round.wake = () => {
          this.ctx.clock.clearTimeout(t);
          resolve();
        };
      });
    }
    if (this.round === round) this.round = undefined;
    this.unanswered = [...targets.keys()].filter((hex) => !round.answered.has(hex));
    // Its certificate, if any, is ours from here: our promise stays where it is (`giveWay`).
    if (this.ownPromise?.e === e) this.ownPromise = undefined;
    // At once when no proof needs checking (no turn of the event loop: the usual case).
    const adopting = this.adoptGranted(round, known, vouchless);
    if (adopting) await adopting;
    const cert = round.cert();
    const silentHosts = cert ? [] : this.noteUnclaiming(hosts, this.unanswered);
    if (!cert) this.firstRefusals(round);
    // A merge that did not certify is given up (the claim after it goes without it): a
    // primary's merge that kept failing would keep its own region without a primary. The
    // other chain's next refusal or handoff teaches it again.
    if (!cert && this.el.forks.length) this.el.forks = this.el.forks.filter((f) => !pend.some((q) => q.e === f.e && sameSet(q.hosts, f.hosts)));
    // Refusals raise our next epoch and name granted epochs to cover; a silent majority of
    // the previous set is evidence for a rebase, or holds our claims back (election.ts).
    this.el.afterClaim({ known, certified: !!cert, answered: round.alive(known, this.ctx.certs.rebaseNear(this.region.key)), fault: round.fault() ?? undefined, learned: round.learned, unheard: round.unheard(), highestRefusal: round.highestRefusal, knownFar }, this.ctx.clock.now(), o.rebaseMs);
    this.region.trace(`claim e${e} ${cert ? `certified${rebase ? ' (rebase)' : ''}${known ? ` over e${known.e}` : ''}` : `failed (${round.fault() ?? 'no answer'})`} granted ${round.granted().map((g) => g.slice(0, 6)).join(',')} promised ${this.el.promised}`);
    // Hosts that said nothing may be alive on another island of a healed partition (no
    // overlay path leads there): the relay can still dial them, and one link joins the halves.
    if (!cert) for (const [hex, id] of targets) if (!round.answered.has(hex) && !this.silent.notedHex(hex, this.ctx.clock.now())) this.ctx.reach(id);
    if (!cert || this.el.promised !== e || this.el.promisedTo !== this.ctx.selfHex || this.region.stopped || !this.current(run)) {
      // No certificate, and none ever: the grants die with this round. Our granters may
      // forget this epoch (else every later claim would have to cover it).
      // (Also to those that have not answered: a grant may be on its way, and a granter that
      // keeps it follows a claimant that will never be primary.)
      // Told when the primary we took for dead answered: a granter goes back to following it
      // (hosted-region.ts). Not after a claim over a silent set (a restart, a rebase on its way).
      const granted = new Set(round.granted());
      const alive = this.replacing && this.replacing.answeredAt !== -Infinity ? { alive: true } : {};
      // Our granters learn which hosts of the claim said nothing: the next of them to claim, or
      // primary after a failover, would name them again (sybil_1k seed 1, region 1,1: 2.4 s).
      const silent = silentHosts.length ? { silent: hosts.filter((h) => silentHosts.includes(idToHex(h))) } : {};
      for (const [hex, to] of targets) if (granted.has(hex) || !round.answered.has(hex)) this.region.toHost(to, { t: 'ABANDON', ...this.regionFields, e, ...alive, ...(granted.has(hex) ? silent : {}) });
      this.abandoned.push(e);
      if (this.abandoned.length > ABANDONED_KEPT) this.abandoned.shift();
      // Our own grant for e never left this node and our claim is over: nobody can win e
      // through it, so we may follow the current primary again or grant e to another.
      if (this.el.promised === e && this.el.promisedTo === this.ctx.selfHex) {
        this.el.promised = before.promised;
        this.el.promisedTo = before.promisedTo;
      }
      // The refusals named a certificate of a later epoch whose hosts leave us out (we
      // followed a claim that lost, or the set moved on): not ours to claim; subscribers
      // that ask us are sent to its primary.
      const newer = this.el.cert;
      if (newer && newer.e >= this.region.epoch && newer !== known && !has(newer.hosts, this.ctx.selfId) && this.current(run)) {
        this.region.trace(`not a host of e${newer.e}: idle`);
        this.region.standAside(newer, this.el.learnt ? 'learnt' : 'anchored');
      }
      return false;
    }
    if (this.region.state.size === 0 && this.needsDhtLog(heldEpoch, known, !!rebase)) await this.fallbackToDht(cert, known, vouchless);
    await stored;
    if (this.el.promised !== e || this.region.stopped || !this.current(run)) return false;
    this.becomePrimary(cert);
    return true;
  }

  /**
   * Our claim over `hosts` failed: those of them that sent it nothing (`unanswered`) though
   * the round ran its whole time are noted (`unclaiming`). Not after a round cut short (a
   * duel, a promise we gave another claimant meanwhile): they may not have had the time.
   */
  private noteUnclaiming(hosts: readonly NodeId[], unanswered: readonly string[]): string[] {
    const now = this.ctx.clock.now();
    if (now - this.sentAt < CLAIM_TIMEOUT_MS) return [];
    const named = new Set(hosts.map(idToHex));
    const out = unanswered.filter((hex) => named.has(hex));
    for (const hex of out) this.unclaiming.strike(hex, now);
    if (out.length) this.region.trace(`claim: ${out.map((h) => h.slice(0, 6)).join(',')} sent it nothing: left out of our claims`);
    return out;
  }

  /**
   * A first claim of ours failed: its hosts that refused it naming nothing, with a promise below
   * its epoch (no rival's epoch holds them; 'outsider': their view leaves us out), and have done
   * so to our first claims for FIRST_REFUSALS_MS, are struck (`unclaiming`), so the next claim
   * names a linked node in their place. Safe only because it waits: a host that granted a
   * rival's first claim refuses with that promise (or names the epoch to cover) and is never
   * left out this way, and an honest host's view takes us in within seconds.
   */
  private firstRefusals(round: ClaimRound): void {
    if (!chainRoot(round.terms)) return;
    const now = this.ctx.clock.now();
    for (const hex of round.granted()) this.refusingSince.delete(hex);
    for (const hex of round.refusedBelow) {
      const since = this.refusingSince.get(hex);
      if (since === undefined || now - since > FAILURES_FORGOTTEN_MS) {
        this.refusingSince.delete(hex);
        this.refusingSince.set(hex, now);
      } else if (now - since >= FIRST_REFUSALS_MS) {
        this.refusingSince.delete(hex);
        this.unclaiming.strike(hex, now);
        this.region.trace(`first claims: ${hex.slice(0, 6)} refused them for ${now - since} ms: left out`);
      }
    }
    while (this.refusingSince.size > SUSPECTS_KEPT) this.refusingSince.delete(this.refusingSince.keys().next().value!);
  }

  /**
   * A claimant we granted abandoned its claim, naming hosts of it that sent it nothing in
   * its whole round (`silent`, only those its claim named, never us), or our primary's SYNC
   * names the nodes it struck (`named`: any): a first strike here unless struck already. Its
   * word is trusted as far as our grant or our following trusted it; a hostile claimant or
   * primary that names honest hosts keeps them out of our sets for one strike's time, until
   * they answer a claim of ours.
   */
  toldSilent(silent: readonly NodeId[], named?: readonly NodeId[]): void {
    const now = this.ctx.clock.now();
    const out = silent.filter((h) => (!named || has(named, h)) && !idEquals(h, this.ctx.selfId) && !this.unclaiming.struck(h, now)).map(idToHex);
    for (const hex of out) this.unclaiming.told(hex, now);
    if (out.length) this.region.trace(`told ${out.map((h) => h.slice(0, 6)).join(',')} sent a claim nothing: left out of our claims`);
  }

  /** Whether claim `run` is still the one under way (the newest, and we still claim). */
  private current(run: number): boolean {
    return run === this.runs && this.region.role === 'claiming';
  }

  /** Whether we are the closest to the key of `hosts` but those taken for dead (and not in `hosts`: then never). */
  private closestLive(hosts: readonly NodeId[]): boolean {
    if (!has(hosts, this.ctx.selfId)) return false;
    const live = hosts.filter((h) => !this.silent.noted(h, this.ctx.clock.now()));
    const first = sortByDistance(live, (x) => x, this.region.key)[0];
    return !!first && idEquals(first, this.ctx.selfId);
  }

  /**
   * The primary we follow is silent and we may claim soon (backup-machine.ts `pingDue`): the
   * hosts we would claim over with it taken for dead (candidateHosts without a lookup: the
   * current ones, topped up with linked nodes) are pinged now, so that the claim, if it
   * comes, need not wait for their answers (liveHosts). Measured on virtual clocks (20 ms
   * links) that round trip was 40 of a failover's 800 ms; on a loaded machine, 20 to 80.
   */
  pingAhead(): void {
    const o = this.ctx.opts;
    const silent = this.region.primaryHex;
    const known = this.knownHosts(silent);
    const extra = this.nearBeside(known, Math.max(0, o.replicas - known.length), silent);
    const at = this.ctx.clock.now();
    const asked = [...known, ...extra].filter((h) => !idEquals(h, this.ctx.selfId));
    const out = { at, asked: new Set(asked.map(idToHex)), got: this.ctx.answering(asked, CLAIM_PING_MS) };
    this.aheadOut = out;
    void out.got.then((got) => {
      if (this.aheadOut === out) this.aheadOut = undefined;
      for (const [hex, p] of this.pingedAhead) if (at - p.at > o.failoverMs) this.pingedAhead.delete(hex);
      for (const hex of asked.map(idToHex)) this.pingedAhead.set(hex, { at, answered: got.has(hex) });
    });
  }

  /**
   * Of `ask`, the hex ids of those that answer a ping now, within CLAIM_PING_MS; but when
   * the ping of pingAhead, still out (sent within failoverMs of `now`), asked them all and
   * settles first with a clear answer, all of them alive or none, that answer. On a loaded
   * machine the ping ahead, sent failoverMs / 2 before the claim, was still out when the
   * claim came (its answers and its CLAIM_PING_MS timer late like every other), and the claim
   * waited a whole fresh ping for the same verdict: none answered, the claim goes over them
   * all (456 ms between the silence and the CLAIM in a failover_crash round at load 40). A
   * split answer drops a host from the set, and the fresh ping decides it as before: a
   * starved backup dropped on the earlier ping claimed too, and the two claims failed each
   * other for seconds.
   */
  private async pingedNow(ask: readonly NodeId[], now: number): Promise<Set<string>> {
    const fresh = this.ctx.answering(ask, CLAIM_PING_MS);
    const out = this.aheadOut;
    if (!out || ask.length === 0 || now - out.at > this.ctx.opts.failoverMs || !ask.every((h) => out.asked.has(idToHex(h)))) return fresh;
    const first = await Promise.race([out.got, fresh.then(() => undefined)]);
    const alive = first ? ask.filter((h) => first.has(idToHex(h))).length : -1;
    if (first && (alive === 0 || alive === ask.length)) return new Set(ask.filter((h) => first.has(idToHex(h))).map(idToHex));
    const got = await fresh;
    for (const hex of first ?? []) got.add(hex);
    return got;
  }

  /** Whether a ping of pingAhead within failoverMs of `now` asked `h` (`answered` undefined), or had its answer (true) or none (false). */
  private aheadSaid(h: NodeId, now: number, answered?: boolean): boolean {
    const p = this.pingedAhead.get(idToHex(h));
    return !!p && now - p.at <= this.ctx.opts.failoverMs && (answered === undefined || p.answered === answered);
  }

  /** The host set to claim over: the candidates (below), of them those alive (liveHosts). */
  private async claimHosts(silent: string, first: boolean): Promise<NodeId[]> {
    return this.liveHosts(await this.candidateHosts(silent, first), silent);
  }

  /**
   * Of a candidate set, the nodes that answer a ping within CLAIM_PING_MS (we always do),
   * topped up to r with linked nodes that answer. A dead tab's links stay open at our end
   * and the DHT keeps it for up to 15 s, so lookups and links alone name the dead: a set
   * that takes one in needs every other host alive at the next failover, or it waits
   * rebaseMs (measured: the 15-20 s failovers of sim_failover). Costs one round trip when
   * all candidates are alive, CLAIM_PING_MS when one is not.
   */
  private async liveHosts(set: NodeId[], silent: string): Promise<NodeId[]> {
    const o = this.ctx.opts;
    const self = this.ctx.selfId;
    const others = set.filter((h) => !idEquals(h, self));
    const now = this.ctx.clock.now();
    // Those that answered our ping ahead of the claim lately (pingAhead) are not asked again;
    // nor those that did not answer it: a dead host left in the set (the DHT and our link
    // keep it for seconds) cost every later takeover CLAIM_PING_MS more, waiting on it twice.
    const asked = (h: NodeId) => this.aheadSaid(h, now);
    // Nor a node that sent a failed claim of ours nothing lately, or was handed the region and
    // never claimed it (`unclaiming`): it answers pings and will not answer this claim either.
    // It is neither a spare nor kept below. Nor, past a minority of the set, the nearest
    // first, nodes whose strike's time is over but that have not answered us since: named
    // together they can hold the claim's majority (host-set-check.ts names them one at a time too).
    let room = set.length - quorum(set.length);
    const beyond = new Set(sortByDistance(others.filter((h) => this.unclaiming.struck(h, now) && !this.unclaiming.noted(h, now)), (x) => x, this.region.key).filter(() => room-- <= 0).map(idToHex));
    const unclaiming = (h: NodeId) => this.unclaiming.noted(h, now) || beyond.has(idToHex(h));
    const spares = this.ctx.linkedNear(this.region.key, o.replicas, new Set([...set.map(idToHex), ...this.suspects(), silent, this.ctx.selfHex]));
    const sparesAnswer = this.ctx.answering(spares.filter((h) => !asked(h)), CLAIM_PING_MS);
    const fresh = others.filter((h) => this.aheadSaid(h, now, true));
    const live = await this.pingedNow(others.filter((h) => !asked(h)), now);
    for (const h of fresh) live.add(idToHex(h));
    if (live.size === others.length && !others.some(unclaiming)) return set;
    // Too few answered to tell the dead from the slow (a loaded machine: every tab late):
    // the claim itself will tell. Dropping them would leave a set that cannot certify.
    if (live.size + 1 < quorum(set.length)) {
      this.region.trace(`claim hosts: only ${live.size} of ${others.length} answered a ping: claiming over them all`);
      return set;
    }
    // A backup of the certificate we build on that did not answer stays when the claim cannot
    // win without it anyway: no majority of that set answered but with it (the primary
    // refuses while it lives), so the claim certifies only with its grant. Dead, the claim
    // fails whatever set it names; slow (a starved tab answers a ping late), a far linked node
    // in its place leaves a set holding fewer of the key's nearest nodes, which a reader with
    // no certificate of the region refuses (cert-checker.ts `nearestNamed`) until a re-check
    // moves the region back (8 tabs on 2 cores: 21-81 such refusals a run, edits late).
    const c = this.el.cert;
    const prevAnswered = c ? c.hosts.filter((h) => idEquals(h, self) || live.has(idToHex(h))).length : 0;
    const needed = (h: NodeId) => !!c && prevAnswered < quorum(c.hosts.length) && has(c.hosts, h) && !idEquals(h, c.primary) && idToHex(h) !== silent;
    const kept = set.filter((h) => idEquals(h, self) || (live.has(idToHex(h)) && !unclaiming(h)) || needed(h));
    const need = Math.max(0, o.replicas - kept.length);
    const ready = spares.filter((h) => this.aheadSaid(h, now, true));
    const spareLive = ready.length >= need ? new Set<string>() : await sparesAnswer;
    const fill = spares.filter((h) => this.aheadSaid(h, now, true) || spareLive.has(idToHex(h))).slice(0, need);
    // With no spare to take its place, a node left out would only shrink the set (a set of
    // one certifies nothing): it stays, as before.
    const short = Math.max(0, Math.min(set.length, o.replicas) - kept.length - fill.length);
    const back = set.filter((h) => !kept.includes(h) && live.has(idToHex(h))).slice(0, short);
    const unanswered = others.filter((h) => !live.has(idToHex(h)));
    const out = others.filter((h) => live.has(idToHex(h)) && unclaiming(h) && !kept.includes(h) && !back.includes(h));
    const stay = unanswered.filter(needed);
    this.region.trace(`claim hosts: ${unanswered.map((h) => idToHex(h).slice(0, 6)).join(',')} did not answer${stay.length ? ` (${stay.map((h) => idToHex(h).slice(0, 6)).join(',')} kept: e${c?.e}'s majority needs it)` : ''}${out.length ? `; ${out.map((h) => idToHex(h).slice(0, 6)).join(',')} sent our last claim nothing` : ''}${fill.length ? `, ${fill.length} linked instead` : ''}`);
    return sortByDistance([...kept, ...back, ...fill], (x) => x, this.region.key);
  }

  /**
   * The candidate host set: a fresh lookup; but when a node of the current epoch's
   * hosts is gone (its link closed, or it is the primary we replace because it went
   * silent), the lookup may wait on that dead node for seconds, so after CLAIM_LOOKUP_MS
   * we claim over the current hosts minus the gone ones. Not for a first claim (`first`: we
   * held no certificate as the claim began and follow a first claim we granted), whatever
   * came to us since: the hosts we hold are then those of a claim that never certified, its
   * claimant the "primary" gone silent, and our claim names what our lookup found ("First
   * certificates").
   * Two such followers of two failed first claims each claimed over that claim's hosts
   * topped up with linked nodes, neither the region's nearest, and both certified: two
   * chains over disjoint sets (the 8-bot world at load 36, region 0,0: e2 over {ff11, 4436,
   * 1bf7} and over {93e5, 9b74, b101}, the nearest three being {ff11, 8d1e, 93e5}), each
   * chain's readers never showing the other's confirmed edits (hosting-first-claims.test.ts).
   */
  private async candidateHosts(silent: string, first: boolean): Promise<NodeId[]> {
    const lookup = this.ctx.hostSet(this.region.key, true);
    const known = this.knownHosts(silent);
    const majority = Math.floor(this.region.hosts.length / 2) + 1;
    if (first || known.length === this.region.hosts.length || known.length < majority || !has(known, this.ctx.selfId)) return lookup;
    lookup.catch(() => {});
    // The primary we replace went silent: it is the node closest to the key, so the lookup
    // almost always waits on it. Its link, merely closed, is another matter (no wait there).
    if (!silent || this.ctx.linkClosed(silent)) {
      const quick = new Promise<undefined>((resolve) => this.ctx.clock.setTimeout(() => resolve(undefined), CLAIM_LOOKUP_MS));
      const got = await Promise.race([lookup, quick]);
      if (got) return got;
    }
    // Topped up to r with linked nodes (a link is proof of life): a set of two would be
    // stuck at the next death, since a new epoch needs a majority of the previous set.
    const extra = this.nearBeside(known, this.ctx.opts.replicas - known.length, silent);
    this.region.trace(`claim over known hosts (lookup slow)${extra.length ? ` + ${extra.length} linked` : ''}`);
    return sortByDistance([...known, ...extra], (x) => x, this.region.key);
  }

  /** The current hosts but `silent` and those whose link closed (ourselves among them): those a claim without a lookup goes over (candidateHosts) and pingAhead asks. */
  private knownHosts(silent: string): NodeId[] {
    return this.region.hosts.filter((h) => {
      const hex = idToHex(h);
      return hex !== silent && !this.ctx.linkClosed(hex);
    });
  }

  /**
   * Up to `n` nodes nearest the key beside `known`, none of them suspect or `silent`: what tops
   * such a set up to r. First those our table shows among the 2r nearest, linked or not (the
   * view a granter takes an added host from at once, region-granter.ts `inHostSet`; tables of
   * one region's hosts list the same nodes), then linked ones. Linked ones alone took a node
   * far from the key where we held no link to the nearer ones, which a backup of the set, its
   * grant needed, refused after its lookup, claim after claim (hosting-claim-topup.test.ts).
   * The claim's pings drop the dead among them (liveHosts).
   */
  private nearBeside(known: readonly NodeId[], n: number, silent: string): NodeId[] {
    const skip = new Set([...known.map(idToHex), ...this.suspects(), silent, this.ctx.selfHex]);
    const near = this.ctx.tableNear(this.region.key, 2 * this.ctx.opts.replicas).filter((h) => !skip.has(idToHex(h)));
    const linked = this.ctx.linkedNear(this.region.key, n, skip).filter((h) => !has(near, h));
    return [...near, ...linked].slice(0, n);
  }

  /**
   * Takes the certificate of the region's location record, if there is a valid one (bounded
   * wait), on the budget of the peer that sent the record. Not one whose hosts are far from the
   * key in our view (cert-checker.ts `farSet`: a majority beyond the 8 nearest, or without id
   * work): a region's hosts are its nearest nodes by their ids, dead or alive, so such a chain
   * was signed by keys an attacker drew before anyone held the region (docs/TRUST.md (b)).
   * Built on, it held our first claim off for `rebaseMs` and a rebase, and its epoch, up to
   * LEARN_EPOCH_CAP, became the floor of the region's honest chain. Nor one above that cap,
   * anchored or not: no honest chain climbs there, and one that two ids among our 8 nearest
   * signed at MAX_EPOCH would leave no epoch to claim. Our first claim starts a chain of its own
   * instead, whose record the holders take in its place (record-holding.ts); a live chain's
   * hosts still teach us theirs, refusing that claim with their certificate.
   */
  private async learnChain(): Promise<void> {
    const worth = (rec: LocationRecord) => rec.cert.e <= LEARN_EPOCH_CAP && !this.ctx.certs.farSet(this.region.key, rec.cert.hosts);
    const rec = await within(this.ctx.clock, getLocation(this.ctx.dht, this.region.key, this.ctx.records, 'learn', worth).catch(() => undefined), EDITS_FALLBACK_MS);
    const hold = rec && !this.el.cert ? await this.region.acceptable(rec.cert, undefined, rec.via) : false;
    if (!rec || !hold || this.el.cert) return; // (one came while we checked this one)
    this.region.trace(`learned e${rec.cert.e} from the location record`);
    this.el.adoptCert(rec.cert, undefined, hold);
  }

  /**
   * Whether our certificate, won with an empty state, must read the DHT's edit log
   * (fallbackToDht). Not when we held the state of the primary of `known`, the epoch we
   * built on, and the claim is no rebase: that primary began with the region's history (its
   * granters' states, or this same read), sent it to us in its SYNC, and every edit it
   * committed after is in a backup's memory that our certificate's majority of its set
   * merged; so our empty state says the region has no edit, and the log could only be
   * older. The read waited up to EDITS_FALLBACK_MS for a region with nothing, its lookup past
   * the dead primary (the node nearest the key), before the new primary told anyone.
   */
  private needsDhtLog(heldEpoch: number | undefined, known: EpochCert | undefined, rebase: boolean): boolean {
    return rebase || !known || heldEpoch !== known.e;
  }

  /**
   * A primary with no host-set state reads the region's edit log from the DHT, but only
   * parts signed under a certificate of its own chain (cert-anchor.ts `inChain`): the one it
   * won (`cert`), the one it built on (`known`), or the epoch before either. A log under any
   * other certificate, even one anchored near the key (two attacker ids among the nearest 8
   * and an honest location record), is not this region's history. Its entries obey the
   * world's rules as an OFFER's do (getEdits keeps only those, region-state.ts
   * obeysWorldRules): a log signed under a chain a host merely learnt (rule 3) must not
   * write AIR at the floor. No log under a `vouchless` set is read (`known` learnt and its
   * hosts far from the key, or a stranger rebase over a set that is not the region's nearest
   * nodes: an attacker's chain signed before anyone held the region, which the rebase went
   * over): it would become the region's first state.
   */
  private async fallbackToDht(cert: EpochCert, known: EpochCert | undefined, vouchless: (set: readonly NodeId[]) => boolean): Promise<void> {
    const chain = (c: EpochCert) => (inChain(c, cert) || (!!known && inChain(c, known))) && !vouchless(c.hosts);
    const got = await within(this.ctx.clock, getEdits(this.ctx.dht, this.region.key, this.ctx.records, undefined, chain).catch(() => undefined), EDITS_FALLBACK_MS);
    if (!got) return;
    this.region.state.merge(got);
  }

  /**
   * The granters' states of `round`, as far as they are vouched for: an entry a majority of
   * one set of the claim sent (its new hosts, the previous set, a pending set), or one inside
   * a proof signed by the primary of an epoch of our own chain (`chainCert`). Merged into
   * ours, within the world's rules (region-state.ts obeysWorldRules: a store holding AIR at the floor is
   * corrupt, or its host lies), whether the claim won or not. A `vouchless` set (we built on a
   * learnt certificate whose hosts are far from the key: keys an attacker drew, live or not; or
   * a stranger rebase goes over it) vouches for nothing, as a majority or through its primary's proofs: two live far
   * nodes that signed a region's chain before anyone held it would grant our claim over it
   * with their blocks. (Not every far set: an honest one topped up with linked far nodes under
   * churn holds confirmed edits, and we hold it anchored.)
   */
  private adoptGranted(round: ClaimRound, known: EpochCert | undefined, vouchless: (set: readonly NodeId[]) => boolean): Promise<void> | undefined {
    if (this.granted?.round !== round) return undefined;
    const granted = this.granted.states;
    this.granted = undefined;
    const t = round.terms;
    const near = (set: readonly NodeId[]) => !vouchless(set);
    const sets = [t.hosts, ...(t.prev ? [t.prev.hosts] : []), ...(t.pend ?? []).map((q) => q.hosts)].filter(near).map((s) => s.map(idToHex));
    // On the budget of the granter that sent the proof (keys of its certificate not met before).
    const proven = async (p: StateProof, c: EpochCert | undefined, from: string) =>
      !!c && c.e === p.e && this.chainCert(c, t, known) && near(c.hosts) && !(await this.ctx.certs.signed(this.region.key, c, from)) && this.ctx.certs.primarySigned(c, proofBytes(this.region.key, p), p.s, from);
    const take = (out: GrantedOutcome) => {
      const s = this.ctx.stats;
      s.grantsAgreed += out.agreed;
      s.grantsProven += out.proven;
      s.grantsUnproven += out.unproven + granted.dropped;
      if (out.unproven > 0) this.region.trace(`claim e${t.e}: ${out.unproven} granted entries neither agreed nor proven: dropped`);
      this.region.state.merge(out.adopt);
    };
    const out = granted.outcome((k) => this.region.state.get(k), sets, proven);
    if (out instanceof Promise) return out.then(take);
    take(out);
    return undefined;
  }

  /**
   * Whether `c` is a certificate of our chain, whose primary's signature vouches for entries:
   * the one we built the claim on (`known`) or hold now, the epoch before either, or a
   * pending epoch the claim covers (granted, so maybe certified without us).
   */
  private chainCert(c: EpochCert, t: ClaimTerms, known: EpochCert | undefined): boolean {
    const held = this.el.cert;
    if ((known && inChain(c, known)) || (held && inChain(c, held))) return true;
    return (t.pend ?? []).some((q) => q.e === c.e && sameSet(q.hosts, c.hosts) && (!q.p || idEquals(q.p, c.primary)));
  }

  async onGrant(from: NodeId, fromHex: string, m: ReplicationMessageOf<'GRANT'>): Promise<void> {
    const round = this.round;
    if (!round || m.e !== round.e || !round.asked(fromHex)) {
      // A grant of a claim of ours that ended without a certificate: our ABANDON was lost, or
      // overtook the CLAIM (the granter knew no grant to drop, then granted). Said again, or
      // the granter holds the epoch open until we claim again, and every later claim must
      // cover its set. Only we could assemble that certificate, and we never claim e again.
      if (m.ok && this.abandoned.includes(m.e) && round?.e !== m.e) {
        this.ctx.stats.abandonsResent++;
        this.region.toHost(from, { t: 'ABANDON', ...this.regionFields, e: m.e });
      }
      return void this.ctx.stats.staleFrames++;
    }
    let entries: Entry[] = [];
    try {
      if (m.entries) entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    // Counted once all its frames came: the round waits for a granter's whole state and evidence.
    if (this.granted?.round !== round || this.granted.states.frame(fromHex) >= (m.n ?? 1)) round.answered.add(fromHex);
    // An answer is proof of life: a primary we took for dead had only gone quiet (or released).
    this.silent.forget(fromHex);
    this.unclaiming.answered(fromHex);
    if (this.replacing?.hex === fromHex) this.replacing.answeredAt = this.ctx.clock.now();
    // Taken at the end of the round, entry by entry only if a majority of a set sent it or a
    // primary of our chain signed it (granted-states.ts, docs/TRUST.md rule 8).
    if (this.granted?.round === round) this.granted.states.add(fromHex, entries, m.proofs, m.pc);
    if (m.reqs) this.region.requests.import(m.reqs, this.ctx.clock.now());
    if (m.ok) {
      // (Counted around the await, not with the promise's finally(): that put microtask turns
      // into every grant's check, and the simulations' events came in another order.)
      let valid: boolean;
      this.checking++;
      try {
        valid = !!m.sig && idToHex(m.sig.id) === fromHex && (await this.ctx.certs.grantValid(this.region.key, round.terms, m.sig, fromHex));
      } finally {
        this.checking--;
      }
      if (valid) round.addGrant(fromHex, m.sig!);
      else this.ctx.stats.badCerts++;
    } else {
      round.refusedAt(m.promised);
      const builtOn = round.terms.prev?.e ?? 0, named = !!m.cert;
      const doubted = named && this.noNews.get(fromHex) === builtOn;
      // A granted epoch it names (`pend`) is news only where another answer backs it (ClaimRound `backed`).
      round.refusal(fromHex, named && !doubted, m.promised, m.pend);
      // A certificate is news of a live chain only if its grants verify over this region's
      // key: else it succeeds nothing here (forged, or another world's region of the same
      // coordinates, its hosts at one relay with ours), and a backup that named one with
      // every refusal kept the survivor from ever rebasing, as a bare refusal did before.
      // (Counted as news until checked: the round may end meanwhile, and then errs as before.)
      if (m.cert && (await this.ctx.certs.signed(this.region.key, m.cert, fromHex))) round.namedNothing(fromHex);
      // It holds another chain of the region (two first claims over sets that shared no node),
      // told from a later link of ours by our chain and the refuser's (cert-anchor.ts `forkOf`):
      // ours goes on if its primary lies nearer the key, and our next epoch merges it; else
      // that chain's primary merges ours. Never taken as our newer certificate: a primary that
      // took the other chain's head, higher by epoch, stood aside for it, and what its own chain
      // confirmed was in no state the other took (hosting-chains-apart.test.ts).
      const links = [...this.el.chain, ...(m.chain ?? [])];
      const fork = !!m.cert && !!this.el.cert && !this.el.learnt && forkOf(m.cert, this.el.cert, links);
      // Or the refuser knows a newer certificate: our next claim must build on it.
      const hold = m.cert && !fork && this.el.supersedes(m.cert, 'anchored', this.region.learntFar()) ? await this.region.acceptable(m.cert, m.chain, fromHex) : false;
      if (m.cert && hold && this.el.supersedes(m.cert, hold, this.region.learntFar())) this.el.learnCert(m.cert, m.chain, hold);
      else if (m.cert && fork && this.el.cert && (await this.ctx.certs.mergeable(this.region.key, m.cert, this.el.cert, this.ctx.opts.replicas, fromHex, links))) this.learnFork(m.cert);
      // Nor is one we cannot take, or one no newer than the certificate our claim built on (an
      // honest refuser names its own only when newer: grant-rules.ts `refusalNews`): a hostile
      // backup that named the claim's own certificate, or one its own two keys granted, with
      // every refusal kept the survivor from ever rebasing (hosting-rebase-hostile.test.ts).
      if (named && !(hold && m.cert!.e > builtOn)) {
        round.namedNothing(fromHex);
        this.noNews.set(fromHex, builtOn);
        if (this.noNews.size > NO_NEWS_KEPT) this.noNews.delete(this.noNews.keys().next().value!);
      } else if (named) {
        this.noNews.delete(fromHex);
        if (doubted) round.refusal(fromHex, true, m.promised);
      }
      // The refuser granted an epoch above our certificate (checked against the one we hold
      // now): our next claim must win its hosts too, unless a claim of ours that covered its
      // set, or one this refuser named, lately heard no majority of it (election.ts `unheardLately`).
      if (m.pend && !this.el.unheardLately(m.pend.hosts, fromHex, this.ctx.clock.now()) && round.learnPending(m.pend, this.el.cert?.e ?? 0)) this.el.namedPend(m.pend.hosts, fromHex);
    }
    round.wake();
  }

  /** Another chain of the region (`fork`, checked: cert-checker.ts `mergeable`) that our next epoch merges; claimed at once if we are primary. */
  learnFork(fork: EpochCert): void {
    if (this.el.forks.some((f) => f.e === fork.e && sameSet(f.hosts, fork.hosts))) return;
    this.el.learnFork(fork);
    this.region.trace(`another chain: e${fork.e} of ${idToHex(fork.primary).slice(0, 6)} over ${fork.hosts.map((h) => idToHex(h).slice(0, 6)).join(',')}, merged by our next epoch`);
    this.mergeSoon();
  }

  /** As primary with another chain to merge (`learnFork`): the next epoch over our set, naming it in `pend`. */
  private mergeSoon(): void {
    if (!this.el.forks.length) return;
    this.ctx.clock.setTimeout(() => {
      if (this.region.duty && !this.region.stopped && this.el.forks.length) this.region.reconfigure(this.region.hosts, `merge e${this.el.forks.map((f) => f.e).join(',')}`);
    }, 0);
  }

  private becomePrimary(cert: EpochCert): void {
    this.ctx.stats.claimsWon++;
    this.region.trace(`primary e${cert.e} with ${this.region.state.size} entries`);
    this.el.adoptCert(cert);
    this.aloneUntil = -Infinity;
    this.region.becomePrimary(cert);
    this.mergeSoon();
    // Our certificate goes to the store, but behind the first edits' write, not ahead of it:
    // a primary confirms a batch only once its own store holds it, and store writes run one
    // at a time (stored-copy.ts RegionWriter), so this write, begun at once, held the first
    // confirmation after a failover back by a whole write (failover_crash under load: writes
    // of 300-700 ms). Nothing waits for it: our promise was stored before the certificate
    // left this node (runClaim), the certificate is anyone's to learn again, and the first
    // batch's write carries it with everything the region holds.
    this.ctx.clock.clearTimeout(this.certWrite);
    this.certWrite = this.ctx.clock.setTimeout(() => {
      if (!this.region.stopped) void this.region.persist().catch(() => {});
    }, CERT_WRITE_AFTER_MS);
  }

  /**
   * How long to wait before claiming again: `first` (drawn by the caller) while no claim of
   * ours failed lately, then CLAIM_BACKOFF_MS doubling with each failure in a row, randomised
   * (CLAIM_BACKOFF_MS: duelling claimants drift apart instead of refusing each
   * other in step).
   */
  retryDelay(first: number): number {
    const o = this.ctx.opts;
    const failed = this.recentFailures();
    if (failed === 0) return first;
    return Math.min(CLAIM_BACKOFF_MAX_MS, CLAIM_BACKOFF_MS * 2 ** Math.min(failed - 1, 10)) * (0.5 + o.random());
  }

  /** Our claims that failed in a row, unless the last failed more than FAILURES_FORGOTTEN_MS ago. */
  private recentFailures(): number {
    return this.ctx.clock.now() - this.failedAt > FAILURES_FORGOTTEN_MS ? 0 : this.failedInRow;
  }

  private scheduleRetry(): void {
    if (this.region.stopped || this.region.waiting.size === 0) return;
    this.ctx.clock.clearTimeout(this.retry);
    const ms = this.retryDelay(200 + this.ctx.opts.random() * 400);
    this.retry = this.ctx.clock.setTimeout(() => {
      if (this.region.role === 'idle' || (this.region.role === 'backup' && !this.region.primaryAlive())) void this.claim(0, this.region.role === 'backup');
    }, ms);
  }
}
