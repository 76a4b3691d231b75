// Stored entries between the hosts of a region: a restarted (or re-read) host OFFERs the
// primary what it holds that the primary lacks, and the primary adopts them as new edits
// (primary-duty.ts offer), but only from a host of its own history: its certificate's hosts
// and the previous set that handed the region on to them (docs/TRUST.md rule 8).
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { compareStamp, decodeEntries, encodeEntries, type Entry } from '../region/region-state';
import type { ReplicationMessageOf } from './replication-messages';
import { has, RegionSide } from './region-role';

export class RegionOffers extends RegionSide {
  /**
   * Stored entries from another host: the primary adopts what it lacks (or holds older). Only
   * from a host our own certificate names, or its previous set (whose majority granted it),
   * never from one only the offer's certificate names: such a certificate is anchored by who
   * is near the key at most (rule 2), which two attacker ids among the nearest 8 satisfy for
   * a set they name. An honest host of an older epoch loses nothing by it: each claim needs
   * a majority of the previous set, whose grants carry their entries, so what an epoch
   * confirmed reaches every later one through the sets our certificate names.
   */
  onOffer(from: NodeId, m: ReplicationMessageOf<'OFFER'>): void {
    if (!this.region.duty) return void this.ctx.stats.staleFrames++;
    const cert = this.el.cert;
    let host = !!cert && (has(cert.hosts, from) || (!!cert.prev && has(cert.prev.hosts, from)));
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      entries = [];
      host = false;
    }
    if (!host || !this.region.duty) return void this.ctx.stats.offersRefused++;
    this.region.duty.offer(entries);
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
