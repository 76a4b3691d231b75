// Stored entries between the hosts of a region: a restarted (or re-read) host OFFERs the
// primary what it holds that the primary lacks, and the primary adopts them as new edits
// (primary-duty.ts offer), but only from a node some certificate names as a host.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { EpochCert } from '../region/epoch-cert';
import { compareStamp, decodeEntries, encodeEntries, type Entry } from '../region/region-state';
import type { ReplicationMessageOf } from './replication-messages';
import { has, RegionSide } from './region-role';

export class RegionOffers extends RegionSide {
  /**
   * Stored entries from another host: the primary adopts what it lacks (or holds older). Only
   * from a node some certificate names as a host of this region (ours, its predecessor's, or
   * one the offerer holds: its stored promise), so an outsider cannot write blocks this way.
   */
  async onOffer(from: NodeId, m: ReplicationMessageOf<'OFFER'>): Promise<void> {
    if (!this.region.duty) return void this.ctx.stats.staleFrames++;
    const named = (c: EpochCert | undefined) => !!c && (has(c.hosts, from) || (!!c.prev && has(c.prev.hosts, from)));
    let host = named(this.el.cert);
    if (!host && m.cert && named(m.cert)) host = await this.region.acceptable(m.cert, 'near');
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
