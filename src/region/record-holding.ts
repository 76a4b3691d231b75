// How a DHT holder judges a region record (location record, edit-log part) against the one it
// holds (docs/TRUST.md rule 4). A record's version is its certificate's epoch, which is only
// what its signers claim: keys that are no region's hosts can sign a chain at any epoch, and
// a holder that took such a record first (it held nothing, so it learnt it, or the attacker's
// ids lie among its 8 nearest) kept it against every honest record of a lower version. So two
// records of different chains are ranked by the holder's own view before their versions:
// - one of the held chain (`ofChain`: the same certificate, a later one a majority of its
//   hosts granted, the one before it, or a rebase by one of its hosts) goes by version, as
//   before;
// - otherwise the one whose grants anchor nearer the key (cert-anchor.ts `anchorRank`) wins:
//   a record granted from among the REBASE_RANK (r = 3) nodes the holder finds nearest
//   replaces a held one that is not, at any version; and a held one granted from among them
//   is replaced only by one granted from among the FRESH_RANK (r + 1) nearest, the rank a
//   fresh subscriber counts (a set with one node joined nearer since).
// An honest set is the r nodes nearest the key, so its records rank r or better; the
// attacker's ids beyond them (docs/TRUST.md (a): two among the 8 nearest) and keys that are
// no nodes rank worse or never. Where its ids are 2 of the 3 nearest it is the region, the
// model's limit.
import { idEquals, type NodeId } from '../core/node-id';
import type { NearView } from '../dht/near-view';
import { ANCHOR_RANK, anchorRank, chainedFrom, FRESH_RANK, REBASE_RANK, sameCert } from './cert-anchor';
import type { CertChecker } from './cert-checker';
import type { EpochCert } from './epoch-cert';

export type HolderVerdict = { ok: false; reason: string } | { ok: true; replaces: boolean };

/**
 * Whether a holder whose own view of the nodes near `region` is `view` takes a record under
 * certificate `c` in place of the one it holds under `held` (none: it holds nothing), and
 * whether it takes it at any version (`replaces`). `via`: the peer that sent it, whose
 * derivation budget keys not met before spend.
 */
export async function judgeAtHolder(certs: CertChecker, region: NodeId, c: EpochCert, held: EpochCert | undefined, view: NearView, via?: string): Promise<HolderVerdict> {
  const ranks = () => {
    const near = view.near(region, ANCHOR_RANK);
    return { c: anchorRank(c, near, certs.idWorkBits), held: held ? anchorRank(held, near, certs.idWorkBits) : Infinity };
  };
  let r = ranks();
  const other = !!held && !ofChain(c, held);
  if (other && r.c <= REBASE_RANK && r.held > REBASE_RANK) {
    // The held chain is not the region's nearest nodes' and this one is: judged as by a holder
    // that holds nothing (a fork of the held epoch included), it must anchor near the key.
    const hold = await certs.hold(region, c, { view, fresh: 'learn', via });
    return hold === 'anchored' ? { ok: true, replaces: true } : { ok: false, reason: hold === 'unanchored' ? 'unanchored' : 'badCert' };
  }
  // A held certificate that anchors nowhere in our view was learnt (rule 3): it anchors nothing.
  const fault = await certs.check(region, c, { view, known: held, learnt: !!held && r.held > ANCHOR_RANK, fresh: 'learn', via });
  if (fault) return { ok: false, reason: fault === 'unanchored' ? 'unanchored' : 'badCert' };
  if (!other) return { ok: true, replaces: false };
  r = ranks();
  if (r.held <= REBASE_RANK && r.c > FRESH_RANK) {
    // One fresh look before a record is refused for its rank: our view may still list the dead.
    if (await view.refresh(region)) r = ranks();
    if (r.held <= REBASE_RANK && r.c > FRESH_RANK) return { ok: false, reason: 'outranked' };
  }
  return { ok: true, replaces: r.c <= REBASE_RANK && r.held > REBASE_RANK };
}

/**
 * Whether `c` is of the chain of `held` as far as a holder can tell: the same certificate, a
 * later one a majority of its hosts granted, the one before it whose hosts' majority granted it
 * (a late republish), or a later rebase whose primary, who signs the record, is one of its
 * hosts (rule 6's rebase from inside: the set's own member carries the chain on; the dead
 * hosts it rebased over may still rank in our view).
 */
function ofChain(c: EpochCert, held: EpochCert): boolean {
  if (sameCert(c, held) || chainedFrom(c, held) || chainedFrom(held, c)) return true;
  return !!c.rebase && c.e > held.e && held.hosts.some((h) => idEquals(h, c.primary));
}
