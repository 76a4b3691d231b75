// Stored entries between the hosts of a region: a restarted (or re-read) host OFFERs the
// primary what it holds that the primary lacks, and the primary adopts them as new edits
// (primary-duty.ts offer), but only entries a majority of one set of its own history offered:
// its certificate's hosts, or the previous set that handed the region on to them
// (offer-tally.ts; docs/TRUST.md rule 8).
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { compareStamp, decodeEntries, encodeEntries, obeysWorldRules, type Entry } from '../region/region-state';
import type { ReplicationMessageOf } from './replication-messages';
import { OfferTally, type OfferSet } from './offer-tally';
import { RegionSide } from './region-role';

/**
 * An offered entry is adopted only once a majority of one host set offered it (offer-tally.ts):
 * most entries one host's offers may hold waiting for that, and for how long.
 */
export const OFFER_TALLY_PER_HOST = 4096;
export const OFFER_TALLY_MS = 60_000;

export class RegionOffers extends RegionSide {
  private tally: OfferTally | undefined;
  /** The certificate epoch the tally's sets are of. */
  private tallyEpoch = 0;

  /**
   * Stored entries from another host: the primary adopts what it lacks (or holds older) once
   * a majority of our certificate's hosts, or of its previous set (whose majority granted
   * it, unless far from the key), offered the identical entry. Never from a host only the offer's certificate names:
   * such a certificate is anchored by who is near the key at most (rule 2). Never from one
   * host alone: one node placed in the set (a backup near the key) would write any blocks it
   * likes. An honest host loses no confirmed edit by it: each claim needs a majority of the
   * previous set, whose grants carry their entries, so what an epoch confirmed reaches every
   * later one through the sets our certificate names; OFFER carries what a minority held
   * (an edit never confirmed, a store older than the chain).
   */
  onOffer(from: NodeId, m: ReplicationMessageOf<'OFFER'>): void {
    const cert = this.el.cert;
    if (!this.region.duty || !cert) {
      this.tally?.clear();
      return void this.ctx.stats.staleFrames++;
    }
    const hex = idToHex(from);
    const sets: OfferSet[] = [{ name: 'hosts', hosts: cert.hosts.map(idToHex) }];
    // Not a previous set far from the key as we see it (cert-anchor.ts farSet): keys an
    // attacker drew to sign a chain before anyone held the region, which we built on or
    // rebased over. Two live far nodes of that set would otherwise write their blocks here.
    if (cert.prev && !this.ctx.certs.farSet(this.region.key, cert.prev.hosts)) sets.push({ name: 'prev', hosts: cert.prev.hosts.map(idToHex) });
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.offersRefused++;
    }
    if (!sets.some((x) => x.hosts.includes(hex))) return void this.ctx.stats.offersRefused++;
    // The world's rules, and stored state predates our epoch: the rest is refused before it
    // takes room in the tally (commit-machine.ts checks the same again). What we hold as
    // new already is left out: a rejoining host offers its whole store.
    const fit = entries.filter((e) => obeysWorldRules(e) && e.e < cert.e);
    if (fit.length < entries.length) this.ctx.stats.offersRefused++;
    const wanted = fit.filter((e) => {
      const had = this.region.state.get(e.key);
      return !had || compareStamp(e, had) > 0;
    });
    if (cert.e !== this.tallyEpoch) {
      this.tally?.clear();
      this.tallyEpoch = cert.e;
    }
    this.tally ??= new OfferTally({ perHost: OFFER_TALLY_PER_HOST, ttlMs: OFFER_TALLY_MS }, this.ctx.stats);
    const agreed = this.tally.add(hex, sets, wanted, this.ctx.clock.now());
    if (agreed.length > 0) this.region.duty.offer(agreed);
  }

  /** Sends the primary every entry we hold that `theirs` lacks or holds older (all when theirs is undefined). */
  offerTo(primary: NodeId, theirs?: Entry[]): void {
    if (this.region.duty || idEquals(primary, this.ctx.selfId)) return;
    const known = new Map<number, Entry>();
    for (const e of theirs ?? []) known.set(e.key, e);
    const mine = this.region.state.all().filter((e) => {
      const t = known.get(e.key);
      return !t || compareStamp(e, t) > 0;
    });
    if (mine.length === 0) return;
    this.ctx.stats.offers++;
    this.region.trace(`offer ${mine.length} entries to ${idToHex(primary).slice(0, 6)}`);
    this.region.toHost(primary, { t: 'OFFER', ...this.regionFields, entries: encodeEntries(mine), ...(this.el.cert ? { cert: this.el.cert } : {}) });
  }
}
