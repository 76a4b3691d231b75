// The one verifier of epoch certificates: every frame and record that carries one (CLAIM,
// GRANT, HANDOFF, SYNC, OFFER, SNAPSHOT, location records, edit logs, item records) is
// checked here before anything is adopted from it: shape, signatures (verdicts remembered:
// a primary re-sends its own often), then the anchor rule (cert-anchor.ts).
import { ID_WORK_BITS } from '../core/id-work';
import { derivationMark, refusedSince } from '../core/key-ids';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { Verifier } from '../core/signer';
import { KEY_ALGS } from '../core/key-alg-code';
import type { NearView } from '../dht/near-view';
import { ANCHOR_RANK, anchorHold, anchoringSets, FRESH_RANK, forkOf, grantedNear, mergeable, REBASE_RANK, chainedFrom, chainLinks, farSet, sameCert, workedId, yieldsTo, type AnchorFault, type FreshRule, type Hold } from './cert-anchor';
import { certShapeFault, encodeCert, grantBytes, type CertFault, type ClaimTerms, type EpochCert, type GrantSig } from './epoch-cert';

/** What a check knows of the reader: its certificate of the region, how it holds it, the sender's chain, whose view of the key. */
export interface CheckOptions {
  known?: EpochCert | undefined;
  /** `known` is held only as learnt (cert-anchor.ts `Hold`): it anchors nothing. */
  learnt?: boolean;
  chain?: readonly EpochCert[] | undefined;
  view?: NearView;
  fresh?: FreshRule;
  /**
   * The reader hears the primary of `known` in its epoch (a subscriber within its SILENCE_MS):
   * a later certificate then counts only as a link of the chain from `known` (rule 1), never
   * by nearness (see `judge`).
   */
  live?: boolean;
  /** The node (hex) that sent the certificate, whose derivation budget a granter's key not met before spends (core/derivation-budget.ts). */
  via?: string | undefined;
}

/** How a checker judges nearness, and what it remembers. */
export interface CertCheckerOptions {
  /**
   * Zero bits of id work (core/id-work.ts) a named host or granter must show to count as near
   * a key (cert-anchor.ts `workedId`): the bits the reader's DHT asks of a peer's id (its
   * `idWorkBits`; ID_WORK_BITS unless told, 0 in simulations of drawn ids).
   */
  idWorkBits?: number;
  /** Signature verdicts remembered. */
  cacheSize?: number;
  /** How many of the nodes nearest a key count as near (ANCHOR_RANK). */
  rank?: number;
}

/** Checks certificates: signatures (verdicts remembered: a primary re-sends its own often), then the anchor rule. */
export class CertChecker {
  private readonly seen = new Map<string, CertFault | null>();
  /** Certificates checked by signature (not from the cache). */
  verified = 0;
  /** Certificates with valid signatures that the anchor rule refused. */
  unanchored = 0;
  /** Certificates reached through the sender's chain of earlier ones (epochs we missed). */
  chained = 0;

  private readonly cacheSize: number;
  private readonly rank: number;
  /** Id work a node must show to count as near a key (CertCheckerOptions.idWorkBits). */
  readonly idWorkBits: number;

  /** `view`: the reader's own view of who is near a key (a DHT node's `nearView`). */
  constructor(private readonly verify: Verifier, private readonly view: NearView, o: CertCheckerOptions = {}) {
    this.idWorkBits = o.idWorkBits ?? ID_WORK_BITS;
    this.cacheSize = o.cacheSize ?? 256;
    this.rank = o.rank ?? ANCHOR_RANK;
  }

  /** Whether `g` is a valid grant of `terms` by the node it names (`via`: the sender, hex, whose derivation budget its key spends if new). */
  grantValid(key: NodeId, terms: ClaimTerms, g: GrantSig, via?: string): Promise<boolean> {
    return this.verify('node', g.id, KEY_ALGS[g.a], g.k, grantBytes(key, terms), g.s, via);
  }

  /**
   * Whether the reader may believe `c` for the region `key`: well formed, validly signed, and
   * anchored (cert-anchor.ts) in `known` (the reader's certificate of the region, if any;
   * `learnt`: held only as learnt, so it anchors nothing), else near the key in `view`
   * (default: the reader's own), else learnt when `fresh` is 'learn' (a host with no anchored
   * certificate of the region). A certificate near nobody we know gets one fresh lookup
   * toward the key before it is refused.
   */
  check(key: NodeId, c: EpochCert, o: CheckOptions = {}): Promise<CertFault | AnchorFault | null> {
    return this.judge(key, c, o, false) as Promise<CertFault | AnchorFault | null>;
  }

  /** `check`, saying how the reader then holds `c` (cert-anchor.ts `Hold`) when it may believe it. */
  hold(key: NodeId, c: EpochCert, o: CheckOptions = {}): Promise<CertFault | AnchorFault | Hold> {
    return this.judge(key, c, o, true) as Promise<CertFault | AnchorFault | Hold>;
  }

  private async judge(key: NodeId, c: EpochCert, o: CheckOptions, hold: boolean): Promise<CertFault | AnchorFault | Hold | null> {
    const signed = await this.signed(key, c, o.via);
    if (signed) return signed;
    const view = o.view ?? this.view, fresh = o.fresh ?? 'near', learnt = !!o.known && !!o.learnt;
    const bits = this.idWorkBits;
    // A reader that hears its primary has missed no epoch: every later certificate needs a
    // majority of its hosts' grants, and they grant no claim while they hear that primary
    // either (rule 7), so a later one they did not grant is no successor, however near its
    // hosts are (two attacker ids among the nearest: docs/TRUST.md (a)).
    const lively = !!o.live && !!o.known && !learnt && c.e > o.known.e;
    // A reader that shows the region to a player (a subscriber, its location record, a far
    // region's edit log) counts grants by nearness only from the FRESH_RANK nodes nearest the
    // key that answered its own lookup by disjoint paths: its table may hold dead nodes and one
    // path's liars, and two attacker ids among its 8 nearest would be the region for it
    // (docs/TRUST.md "A reader with no chain of its own"). And the set so granted must name all
    // but one of the 3 nearest of them, and hold the grant of one of the 2 nearest
    // (`nearestNamed`). So too for a subscriber holding a
    // certificate whose chain the new one is no link of (silent past OWN_CHAIN_MS, its region
    // rebased): by its table's 8 nearest, a member of its set and a live id 8th nearest would
    // be the region for it.
    if (fresh === 'near' && !learnt) {
      let known = o.known;
      // Rule 1 first: its own chain, walked through the links the sender carries.
      let r: AnchorFault | Hold = known ? anchorHold(c, known, [], fresh, key, false, bits) : 'unanchored';
      if (r === 'unanchored' && known && o.chain?.length) {
        const walked = await this.walk(key, known, o.chain, c.e, o.via);
        if (walked !== known) r = anchorHold(c, (known = walked), [], fresh, key, false, bits);
      }
      if (r === 'unanchored' && !lively) {
        const judgeLive = async (again: boolean) => {
          const live = await view.live(key, this.rank, again);
          const n = anchorHold(c, known, live, fresh, key, false, bits, FRESH_RANK);
          return n === 'anchored' && !nearestNamed(c, live, bits) ? 'unanchored' : n;
        };
        r = await judgeLive(false);
        // Refused on a lookup up to LIVE_MS old (one that ran while routes still led through a
        // dead primary may miss live hosts): one fresh lookup, as a held reader's check gets,
        // in turn with the other lookups `live` runs.
        if (r === 'unanchored') r = await judgeLive(true);
      }
      if (r !== 'anchored') this.unanchored++;
      return hold || r !== 'anchored' ? r : null;
    }
    let r = lively && !chainedFrom(c, o.known!) ? 'unanchored' : anchorHold(c, o.known, view.near(key, this.rank), fresh, key, learnt, bits);
    // Epochs we missed: the sender's earlier certificates, each a link only when validly
    // signed and granted by a majority of the hosts of the link before it, starting from ours.
    if (r === 'unanchored' && o.known && !learnt && o.chain?.length) {
      const known = await this.walk(key, o.known, o.chain, c.e, o.via);
      if (known !== o.known) r = lively && !chainedFrom(c, known) ? 'unanchored' : anchorHold(c, known, view.near(key, this.rank), fresh, key, false, bits);
    }
    // Not anchored yet: one fresh look at who is near. (So is a certificate other than the
    // learnt one we hold: anchored near the key, it would replace ours.)
    const worthALook = (r === 'unanchored' && !lively) || (learnt && r === 'learnt' && !sameCert(c, o.known!));
    if (worthALook && (await view.refresh(key))) {
      const again = anchorHold(c, o.known, view.near(key, this.rank), fresh, key, learnt, bits);
      if (again === 'anchored' || r === 'unanchored') r = again;
    }
    if (r !== 'anchored' && r !== 'learnt') this.unanchored++;
    return hold || (r !== 'anchored' && r !== 'learnt') ? r : null;
  }

  /** The newest link of `chain` (below `below`) reached from `known` one majority-granted, validly signed step at a time; `known` when none. */
  private async walk(key: NodeId, known: EpochCert, chain: readonly EpochCert[], below: number, via?: string): Promise<EpochCert> {
    let at = known;
    for (const link of chainLinks(known, chain, below)) {
      if (await this.signed(key, link, via)) break;
      at = link;
    }
    if (at !== known) this.chained++;
    return at;
  }

  /**
   * Whether `s` is the signature over `data` of `c`'s primary, by the key its own grant in `c`
   * names (a claimant's grant is always in its certificate). Check `c` itself first (`signed`).
   * `via`: the node (hex) that sent it, whose derivation budget the key spends if new.
   */
  primarySigned(c: EpochCert, data: Uint8Array, s: Uint8Array, via?: string): Promise<boolean> {
    const g = c.grants.find((x) => idEquals(x.id, c.primary));
    return g ? this.verify('node', g.id, KEY_ALGS[g.a], g.k, data, s, via) : Promise.resolve(false);
  }

  /**
   * Whether a majority of `set` is far from `key` in our view (cert-anchor.ts `farSet`; an id
   * without `idWorkBits` of work is far wherever it lies): a node outside it may rebase over it.
   */
  farSet(key: NodeId, set: readonly NodeId[]): boolean {
    return farSet(set, key, this.view.near(key, this.rank), this.rank, this.idWorkBits);
  }

  /**
   * Whether a node outside `set` may rebase over it once it stayed silent (a stranger rebase):
   * a majority of it lies beyond the REBASE_RANK nodes we find nearest `key`, an id without
   * `idWorkBits` of work counting as beyond wherever it lies (cert-anchor.ts `farSet`).
   */
  rebasable(key: NodeId, set: readonly NodeId[]): boolean {
    return farSet(set, key, this.view.near(key, REBASE_RANK), REBASE_RANK, this.idWorkBits);
  }

  /**
   * The REBASE_RANK nodes we find nearest `key` that show `idWorkBits` of work (hex), the
   * rank `rebasable` judges by: two attacker ids among them are the region (the model's limit).
   */
  rebaseNear(key: NodeId): Set<string> {
    return new Set(this.view.near(key, REBASE_RANK).filter((id) => workedId(id, this.idWorkBits)).map(idToHex));
  }

  /**
   * Whether, as the primary of `own`, we may merge the validly signed fork `fork` into our
   * next epoch (cert-anchor.ts `mergeable`, judged in our own view: `r` of its hosts among the
   * 2r nearest we know). `via`: the sender (hex), whose derivation budget new keys spend;
   * `links`: our chain and the sender's, to tell a fork from a later link (`forkOf`).
   */
  async mergeable(key: NodeId, fork: EpochCert, own: EpochCert, r: number, via?: string, links: readonly EpochCert[] = []): Promise<boolean> {
    if (!forkOf(fork, own, links) || (await this.signed(key, fork, via))) return false;
    return mergeable(fork, own, key, this.view.near(key, 2 * r), r, this.idWorkBits);
  }

  /**
   * Whether, holding `own`, we grant a claim that merges our chain into `into`, the claimant's
   * validly signed certificate (cert-anchor.ts `yieldsTo`, anchored in our own view of the
   * `ANCHOR_RANK` nearest; `links`: our chain and the claimant's, as for `mergeable`).
   */
  async yieldsTo(key: NodeId, into: EpochCert, own: EpochCert, via?: string, links: readonly EpochCert[] = []): Promise<boolean> {
    if (!forkOf(into, own, links) || (await this.signed(key, into, via))) return false;
    return yieldsTo(into, own, key, this.view.near(key, this.rank), this.idWorkBits, links);
  }

  /** Shape and signatures only: what a certificate proves about itself (a first look before the reader knows who is near). `via`: the sender (hex), whose derivation budget new keys spend. */
  async signed(key: NodeId, c: EpochCert, via?: string): Promise<CertFault | null> {
    const shape = certShapeFault(c);
    if (shape) return shape;
    const tag = `${idToHex(key)}:${idToHex(encodeCert(c))}`;
    const held = this.seen.get(tag);
    if (held !== undefined) return held;
    const data = grantBytes(key, c);
    const mark = derivationMark();
    const oks = await Promise.all(c.grants.map((g) => this.verify('node', g.id, KEY_ALGS[g.a], g.k, data, g.s, via)));
    this.verified++;
    const fault: CertFault | null = oks.every(Boolean) ? null : 'bad-signature';
    // A key judged unproven for want of derivation budget is not a bad signature (key-ids.ts
    // `refusedSince`): any refusal meanwhile, ours or another check's, keeps the verdict out.
    if (fault && refusedSince(mark)) return fault;
    this.seen.set(tag, fault);
    if (this.seen.size > this.cacheSize) this.seen.delete(this.seen.keys().next().value!);
    return fault;
  }
}

/**
 * For a reader that shows the region to a player, judging `c` by nearness: whether a set
 * whose majority granted `c` from among the FRESH_RANK nearest of `live` (its own lookup's
 * answers, nearest first) also names all but one of the REBASE_RANK (r = 3) nearest of them,
 * and holds the grant of one of the 2 nearest. An honest set is the r nodes nearest the key
 * that live, less one that joined nearer since, died or is hostile, so it names 2 of those 3,
 * and the nearer of the 2 is its claimant or granted its claim unless it promised the epoch
 * to a rival claimant. Two attacker ids 3rd and 4th nearest (the 4th and 5th of all nodes,
 * one of the 3 nearest dead in a failover) are a majority of a set among the 4: naming the 2
 * nearest live nodes beside them, they are no majority of it; naming one, that one did not
 * grant. Asking the grants of 2 of the 3 nearest instead refused an honest rebase, granted by
 * the 2nd and 4th nearest live nodes, at the 1st (a hostile member) and 3rd (promised to a
 * rival claim) (adversary.test.ts, seed 4).
 */
function nearestNamed(c: EpochCert, live: readonly NodeId[], bits: number): boolean {
  const nearest = live.filter((id) => workedId(id, bits)).slice(0, REBASE_RANK);
  const named = (set: readonly NodeId[], id: NodeId) => set.some((h) => idEquals(h, id));
  const outside = (set: readonly NodeId[]) => nearest.filter((id) => !named(set, id)).length;
  const grantedFirst = (set: readonly NodeId[]) => nearest.slice(0, 2).some((id) => named(set, id) && c.grants.some((g) => idEquals(g.id, id)));
  return anchoringSets(c).some((set) => grantedNear(c, set, live.slice(0, FRESH_RANK), bits) && outside(set) <= 1 && grantedFirst(set));
}
