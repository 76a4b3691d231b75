// Which epoch certificates a reader believes: the anchor rule (docs/TRUST.md).
//
// A certificate's signatures prove only that the keys it names signed it. Anyone holding
// two keypairs can name both as a region's host set (and as its "previous" set) and sign,
// so signatures alone certify nothing. A certificate counts for a reader only as a link of
// a chain that starts at something the reader checked for itself:
// - a reader holding a certificate of the region (`known`) takes a later one when a
//   majority of the hosts *it* knows granted it (they promise one claim per epoch and grant
//   only claims that build on what they hold, so the chain runs through them), or else when
//   it is anchored near the key as below;
// - a reader with none that shows the region to a player (a subscriber), or one whose chain
//   the certificate is no link of, needs a majority of the certificate's hosts (or of the
//   previous set that handed it on) to have granted it *and* to be among the `FRESH_RANK`
//   nodes nearest the region key that answered its own lookup of the key by disjoint paths
//   (dht/near-view.ts `live`), one of its 2 nearest among the granters (cert-checker.ts); a
//   host, among the `ANCHOR_RANK` nodes it finds closest (its table, its lookups' answers).
//   Ids cost work (core/id-work.ts), so an attacker needs live ids near the key, and their
//   price is measured (docs/BENCHMARKS.md). Blocks a host is
//   handed (an OFFER, the DHT edit log) are never taken on nearness: only under its own
//   chain (`inChain`);
// - a host with none (a claimant new to the region, a DHT holder holding nothing) *learns*
//   a validly signed certificate below `LEARN_EPOCH_CAP`: the hosting protocol's safety
//   needs a claimant to build on the newest certificate there is, and a newcomer after a
//   failover finds the granters of the last one dead, so nearness cannot vouch for them
//   (measured: refusing such certificates broke the safety property on 6 of 25 seeds). What
//   it learns it only builds on; it shows nothing of it to a player. A learnt certificate
//   stays learnt (`Hold`), and so does what the reader takes after it: it anchors nothing
//   (the cap applies to all of it), and a certificate anchored near the key replaces it.
// The same epoch twice must be the same certificate: same primary, same hosts.
// A chain whose hosts are far from the key may be re-anchored by a rebase that a node outside
// it claims (a "stranger rebase"): see `farSet`.
import { idWorkOk } from '../core/id-work';
import { compareDistance, idEquals, type NodeId } from '../core/node-id';
import { MAX_CERT_JUMP, MAX_EPOCH, MIN_CERT_HOSTS, quorum, sameSet, type EpochCert } from './epoch-cert';

/**
 * How many of the nodes a reader finds closest to a key count as near: r = 3 hosts, and
 * room for nodes that joined nearer since the set was chosen (the primary hands over within
 * its re-check), for hosts chosen while a lookup was slow (the live part of the old set and a
 * linked node), and for dead nodes still in the reader's table.
 */
export const ANCHOR_RANK = 8;

/**
 * How many of the nodes a reader finds closest to a key a set must hold the majority of for
 * a node outside it to be kept from rebasing over it (a stranger rebase, once the set stayed
 * silent for rebaseMs): r = 3, a region's host set. Hosts are chosen as the nodes closest to
 * the key, so an honest set, dead or cut off by a partition, lies there by its ids. A set of
 * ids merely among the 8 nearest (ANCHOR_RANK: two attacker ids just past the hosts, which
 * rule 2 lets sign a never-visited region's first chain) is not the region's host set, and
 * its silence must not hold the region without a primary: the nearest nodes, an honest
 * majority of them, rebase over it.
 */
export const REBASE_RANK = 3;

/**
 * How many of the nodes nearest a key count as near for a reader with no certificate of the
 * region that shows it to a player (a fresh subscriber): r + 1, of the nodes that answered
 * its own lookup of the key by disjoint paths (dht/near-view.ts `live`), not ANCHOR_RANK of
 * its table. An honest set is the r nodes nearest the key that live, so a majority of it
 * lies among them with one node joined nearer since; two attacker ids among the 8 nearest
 * (about half of all keys at 20% hostile nodes) then anchor nothing for it, and two among the
 * 4 nearest need one of the 2 nearest among them too (cert-checker.ts `nearestNamed`;
 * docs/TRUST.md "A reader with no chain of its own"). Hosts keep
 * ANCHOR_RANK: they follow the chain across churn, and the smaller rank refused them
 * certificates the chain's own hosts had granted.
 */
export const FRESH_RANK = 4;

/**
 * Highest epoch a host learns from a certificate it cannot anchor: a forged certificate at
 * the top of the range would leave no epoch above it (the region frozen for good); below the
 * cap a million epochs stay for the honest chain.
 */
export const LEARN_EPOCH_CAP = MAX_EPOCH - (1 << 20);

/** How a reader without a certificate of its own takes one: anchored near the key, or learnt (hosts). */
export type FreshRule = 'near' | 'learn';

export type AnchorFault = 'fork' | 'unanchored' | 'epoch-range';

const has = (list: readonly NodeId[], x: NodeId) => list.some((h) => idEquals(h, x));

/** The same certificate as a reader knows one by: epoch, primary and hosts (grants may differ). */
export const sameCert = (a: EpochCert, b: EpochCert): boolean => a.e === b.e && idEquals(a.primary, b.primary) && sameSet(a.hosts, b.hosts);

/** Whether a majority of the hosts of `known` granted `c` (a later epoch). */
export function chainedFrom(c: EpochCert, known: EpochCert): boolean {
  return c.grants.filter((g) => has(known.hosts, g.id)).length >= quorum(known.hosts.length);
}

/**
 * The links of `chain` (any order) that lead on from `from`, each granted by a majority of
 * the hosts of the one before, below epoch `below`, oldest first: the epochs a reader missed,
 * as a sender showed them (rule 1 step by step). Signatures are the caller's to check.
 */
export function chainLinks(from: EpochCert, chain: readonly EpochCert[] | undefined, below: number): EpochCert[] {
  const out: EpochCert[] = [];
  let at = from;
  for (const link of [...(chain ?? [])].sort((a, b) => a.e - b.e)) {
    if (link.e <= at.e || link.e >= below || !chainedFrom(link, at)) continue;
    out.push(link);
    at = link;
  }
  return out;
}

/**
 * Whether an id may count as near a key at all: it shows `workBits` of id work (core/id-work.ts).
 * An id without it is far wherever it lies: otherwise an attacker would draw keys until their
 * ids fell among the nearest, at the price of a key generation each, not of an id.
 */
export const workedId = (id: NodeId, workBits: number): boolean => idWorkOk(id, workBits);

/**
 * Whether a majority of `c`'s hosts, or of the previous set that handed it on, granted it from
 * among `near`, counting only ids that show `workBits` of work (`workedId`).
 */
export function anchoredNear(c: EpochCert, near: readonly NodeId[], workBits = 0): boolean {
  return anchoringSets(c).some((set) => grantedNear(c, set, near, workBits));
}

/**
 * How near the key `c` is anchored for a reader: the fewest of `near` (nearest first) among
 * which a majority of one of its anchoring sets granted it, counting only ids that show
 * `workBits` of work; Infinity when none of `near` will do. An honest set is the r nodes
 * nearest the key, so its certificates rank r or better (r + 1 with one node joined nearer
 * since); ids an attacker placed just past them rank worse, keys that are no node never rank.
 */
export function anchorRank(c: EpochCert, near: readonly NodeId[], workBits = 0): number {
  for (let n = 1; n <= near.length; n++) if (anchoredNear(c, near.slice(0, n), workBits)) return n;
  return Infinity;
}

/**
 * The sets whose majority may anchor `c` near the key: its hosts, and the previous set that
 * handed it on (not over a rebase). A previous set of fewer than MIN_CERT_HOSTS was never a
 * certificate's host set: named by the certificate itself, one near id would be its majority.
 */
export const anchoringSets = (c: EpochCert): (readonly NodeId[])[] =>
  [c.hosts, ...(c.prev && !c.rebase && c.prev.hosts.length >= MIN_CERT_HOSTS ? [c.prev.hosts] : [])];

/** Whether a majority of `set` granted `c` from among `near`, counting only ids that show `workBits` of work. */
export const grantedNear = (c: EpochCert, set: readonly NodeId[], near: readonly NodeId[], workBits = 0): boolean =>
  c.grants.filter((g) => has(set, g.id) && has(near, g.id) && workedId(g.id, workBits)).length >= quorum(set.length);

/**
 * Whether a majority of `set` lies farther from `key` than the last of `near` (the reader's
 * ANCHOR_RANK closest nodes, nearest first; fewer known: never far), an id without `workBits`
 * of work counting as far wherever it lies (`workedId`). Hosts are chosen as the
 * nodes closest to the key, so an honest set is near by its ids whether its nodes are alive
 * or cut off by a partition; a set of keys an attacker drew (no live nodes, or live far away)
 * is far unless it ground ids close to the key, each showing id work (core/id-work.ts): an
 * id is a hash of a key, so without the work a key generation per try would buy nearness.
 * Only over a far set, silent for rebaseMs, may a node outside it claim a rebase: a chain
 * forged before anyone held a region then cannot keep it without a primary for good, and a
 * partitioned honest set (near by its ids) cannot be rebased from outside.
 */
export function farSet(set: readonly NodeId[], key: NodeId, near: readonly NodeId[], rank = ANCHOR_RANK, workBits = 0): boolean {
  const edge = near.length >= rank ? near[rank - 1] : undefined;
  if (!edge) return false;
  return set.filter((h) => compareDistance(h, edge, key) <= 0 && workedId(h, workBits)).length < quorum(set.length);
}

/**
 * Whether `c` is a link of the chain a reader holds through `held`: `held` itself (same
 * primary and hosts), or the previous epoch it names (same set: a majority of that set
 * granted `held`, and a set grants one claim per epoch, so a validly granted certificate of
 * that epoch and set is the one `held` follows). Offered entries and a log read from the
 * DHT are taken only under such a certificate: nearness (rule 2) vouches for a later
 * certificate a reader missed, never for blocks it is handed (docs/TRUST.md rule 8).
 */
export function inChain(c: EpochCert, held: EpochCert): boolean {
  if (c.e === held.e) return sameCert(c, held);
  return !!held.prev && c.e === held.prev.e && sameSet(c.hosts, held.prev.hosts);
}

/** A rebase claimed by a node outside the set it rebases over (allowed over a far set only). */
export const strangerRebase = (c: EpochCert): boolean => !!c.rebase && !!c.prev && !has(c.prev.hosts, c.primary);

/**
 * How a reader holds a certificate it took: `anchored` in something it checked itself (rule 1
 * from an anchored one, rule 2 near the key, its own won claim), or `learnt` (rule 3: a host
 * with no anchor of its own took it on its signatures alone, below LEARN_EPOCH_CAP).
 */
export type Hold = 'anchored' | 'learnt';

/**
 * The anchor rule for a certificate whose signatures are valid: how the reader then holds `c`
 * (`Hold`) or why it may not. `near`: the reader's `ANCHOR_RANK` nodes closest to `key`,
 * nearest first. `knownLearnt`: the reader holds `known` only as learnt. `workBits`: the id
 * work an id must show to count as near (`workedId`; 0 in simulations of drawn ids). A learnt
 * certificate anchors nothing: a reader holding one judges a later (or different) one as a
 * reader holding none would, near the key or else learnt below the cap, so no chain that
 * starts at a certificate taken on signatures alone climbs past LEARN_EPOCH_CAP (before, rule
 * 1 took any later certificate a majority of a learnt one's hosts granted: two frames left a
 * host at MAX_EPOCH for good). A certificate anchored near the key may replace a learnt one
 * of any epoch (the host's side: host/election.ts `supersedes`). `grantRank`: how many of
 * `near` count for grants (FRESH_RANK for a subscriber with no certificate; a far set is
 * judged at REBASE_RANK all the same).
 */
export function anchorHold(c: EpochCert, known: EpochCert | undefined, near: readonly NodeId[], fresh: FreshRule, key?: NodeId, knownLearnt = false, workBits = 0, grantRank = ANCHOR_RANK): AnchorFault | Hold {
  // A stranger rebase only over a set that is not the region's nearest nodes as the reader sees it.
  if (strangerRebase(c) && (!key || !farSet(c.prev!.hosts, key, near, REBASE_RANK, workBits))) return 'unanchored';
  const same = !!known && sameCert(c, known);
  const anchor = known && !knownLearnt ? known : undefined;
  // Grants count from the nearest `grantRank` only (FRESH_RANK for a reader with none); farness as above.
  const granters = near.slice(0, grantRank);
  if (anchor && c.e === anchor.e) return same ? 'anchored' : 'fork';
  if (anchor && c.e > anchor.e) {
    if (chainedFrom(c, anchor)) return 'anchored';
    // Re-anchored by nearness only within a bounded step, so no key set can use up the epochs.
    if (c.e - anchor.e > MAX_CERT_JUMP) return 'epoch-range';
    return anchoredNear(c, granters, workBits) ? 'anchored' : 'unanchored';
  }
  if (anchoredNear(c, granters, workBits)) return 'anchored';
  if (fresh !== 'learn' || anchor) return 'unanchored';
  // Nothing held, or only a learnt certificate: learnt below the cap. Its own epoch again must be it.
  if (known && c.e === known.e && !same) return 'fork';
  return c.e <= LEARN_EPOCH_CAP ? 'learnt' : 'epoch-range';
}

/**
 * Whether `c` is a certificate of another chain of the region than the one `held` belongs
 * to (a fork): another certificate of the same epoch, or a later one that builds on an epoch
 * at or below `held`'s without going through `held` (its previous epoch or a `pend` entry
 * naming `held`'s epoch and set; a chain's root always). Two first claims over sets that share
 * no node make two such chains (docs/HOSTING.md "First certificates"). A later certificate
 * built above `held`'s epoch is judged at the link of `links` (the reader's chain and the
 * sender's, any order) it builds on, step by step down to `held`'s epoch: two chains that grew
 * apart name previous epochs above each other's heads, and judged by epoch alone each side took
 * the other's head for a later link of its own (the merge claim refused, the handoff ignored,
 * a primary standing aside for the other chain: hosting-chains-apart.test.ts). A link missing
 * there is no fork by this test: the reader may have missed the links. The links' signatures
 * are not checked here: a false link can only hide a fork or show one, as withholding the
 * certificate or forging a fork at `held`'s epoch would.
 */
export function forkOf(c: EpochCert, held: EpochCert, links: readonly EpochCert[] = []): boolean {
  if (c.e < held.e) return forkOf(held, c, links);
  if (c.e === held.e) return !sameCert(c, held);
  return descent(c, held, links, links.length) === 'fork';
}

/**
 * How `c`, above `held`'s epoch, comes down to it: 'through' `held` (its previous epoch, a
 * `pend` entry, or `held`'s own set past an earlier epoch), 'fork' (built on an epoch at or
 * below `held`'s otherwise), or 'unknown' (an epoch above `held`'s that it names, its previous
 * one or a `pend` entry, is no link of `links`: it may come down through `held` there). Each
 * such epoch is followed through the link that is it, at most `depth` steps.
 */
function descent(c: EpochCert, held: EpochCert, links: readonly EpochCert[], depth: number): 'through' | 'fork' | 'unknown' {
  const through = (q: { e: number; hosts: readonly NodeId[] }) => q.e === held.e && sameSet(q.hosts, held.hosts);
  if (!c.prev) return 'fork';
  if (through(c.prev) || (c.pend ?? []).some(through)) return 'through';
  const up = (q: { e: number; hosts: readonly NodeId[] }) => {
    const link = depth > 0 ? links.find((l) => l.e === q.e && l.e < c.e && sameSet(l.hosts, q.hosts)) : undefined;
    return link ? descent(link, held, links, depth - 1) : 'unknown';
  };
  const above = [c.prev, ...(c.pend ?? [])].filter((q) => q.e > held.e).map(up);
  if (above.includes('through')) return 'through';
  if (above.includes('unknown')) return 'unknown';
  if (c.prev.e > held.e) return 'fork';
  return c.prev.e < held.e && sameSet(c.hosts, held.hosts) ? 'through' : 'fork';
}

/**
 * Whether the primary of a chain whose certificate is `own` may take another chain of the
 * region (`fork`) into its next epoch, the fork's entries with it (a merge: the claim names
 * `fork` in `pend`, so a majority of its hosts grants and sends its state; docs/HOSTING.md
 * "First certificates"): the fork's primary lies farther from `key` than `own`'s (the chain
 * whose primary is nearer the key goes on, the same at every node whatever its view), and at
 * least `r` of the fork's hosts are among the `2r` nodes nearest the key in the reader's view
 * (`near`, nearest first), each showing `workBits` of id work. What a merge adopts comes from
 * the fork's majority, so an attacker's chain would plant blocks in a live region: the bar
 * is r live worked ids among the 2r nearest, about what 2 of the r nearest (the model's
 * limit, docs/TRUST.md (a)) costs, where two first claims of honest nodes name r hosts each
 * among the 2r nearest (two lookups that missed each other's nodes).
 */
export function mergeable(fork: EpochCert, own: EpochCert, key: NodeId, near: readonly NodeId[], r: number, workBits = 0): boolean {
  if (compareDistance(own.primary, fork.primary, key) >= 0 || fork.hosts.length < r) return false;
  const window = near.slice(0, 2 * r);
  return fork.hosts.filter((h) => has(window, h) && workedId(h, workBits)).length >= r;
}

/**
 * Whether a host holding `own` grants a claim that merges its chain into another (`into`,
 * the claim's certificate, a fork of `own`: `forkOf`) although its own primary may be alive:
 * the claimant is `into`'s primary, nearer `key` than `own`'s (the same rule as `mergeable`),
 * and `into` is anchored near the key in the host's own view (rule 2: a majority of a set of
 * it granted from among `near`, ids with `workBits` of work). The merged certificate needs a
 * majority of `own`'s hosts, so it is a link of `own`'s chain for every reader (rule 1).
 */
export function yieldsTo(into: EpochCert, own: EpochCert, key: NodeId, near: readonly NodeId[], workBits = 0, links: readonly EpochCert[] = []): boolean {
  return compareDistance(into.primary, own.primary, key) < 0 && forkOf(into, own, links) && anchoredNear(into, near, workBits);
}
