// The primary publishes its region to the DHT: the location record (its certificate, so a
// first claimant builds on the chain) at the start of its epoch, and the edit log a while
// after each commit (a primary with no host-set state reads it back: region-claimant.ts).
import { putEdits, putLocation } from '../region/region-records';
import { compareStamp, type Stamp } from '../region/region-state';
import type { DutyShared } from './duty-region';

/** The region's edit log is published to the DHT at most this often. */
export const PUBLISH_MS = 2000;

export class RegionPublisher {
  private publishTimer: unknown;
  private locationRevision = 0;

  constructor(private readonly duty: DutyShared) {}

  stop(): void {
    this.duty.ctx.clock.clearTimeout(this.publishTimer);
  }

  publishLocation(): void {
    putLocation(this.duty.ctx.dht, this.duty.region.key, { signer: this.duty.ctx.signer, cert: this.duty.region.cert! }, this.locationRevision++).catch(() => {});
  }

  private publishedAt: Stamp = { e: 0, s: 0 };

  schedule(): void {
    if (this.publishTimer !== undefined || this.duty.stopped) return;
    this.publishTimer = this.duty.ctx.clock.setTimeout(() => {
      this.publishTimer = undefined;
      const v = this.duty.region.state.version;
      if (compareStamp(v, this.publishedAt) <= 0 || this.duty.region.state.size === 0) return;
      this.publishedAt = v;
      this.duty.ctx.stats.publishes++;
      putEdits(this.duty.ctx.dht, this.duty.region.key, { signer: this.duty.ctx.signer, cert: this.duty.region.cert! }, v, this.duty.region.state.all(), this.duty.ctx.keyHash).catch(() => {});
    }, PUBLISH_MS);
  }
}
