// The backup side of a region at one host: we follow a primary. Only a SYNC carrying a
// valid certificate that succeeds the one we hold makes us follow it; REPLICATE and
// HEARTBEAT never change whom we follow (docs/HOSTING.md, "Authority"). We take over when
// the primary goes quiet (watch). It reads and changes the region's role through
// `RegionRole` (region-role.ts), never the class that owns it.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { succeeds, type EpochCert } from '../region/epoch-cert';
import type { ReplicationMessageOf } from './replication-messages';
import { requestTag } from './request-log';
import { decodeEntries, type Entry } from '../region/region-state';
import { has, RegionSide } from './region-role';

export class RegionBackup extends RegionSide {
  /** Our primary's last beat said the region is idle (it beats slowly: see watch). */
  private primaryIdle = false;
  private lastSyncReq = -Infinity;
  /** Entries of the SYNC arriving in pieces (compared with ours at its last piece). */
  private syncIn: Map<number, Entry> | undefined;

  private isCurrentPrimary(fromHex: string, e: number): boolean {
    return !this.region.duty && this.el.cert?.e === e && this.region.epoch === e && fromHex === this.region.primaryHex;
  }

  /** Follows the certified primary of `cert` (a SYNC's sender). False when the certificate does not succeed ours. */
  private follow(from: NodeId, fromHex: string, cert: EpochCert): boolean {
    if (cert.e < this.el.promised || !succeeds(cert, this.el.cert)) {
      this.region.trace(`not following ${fromHex.slice(0, 6)} e${cert.e}: promised ${this.el.promised}, hold e${this.el.cert?.e ?? 0}`);
      this.refuseEpoch(from);
      return false;
    }
    if (this.region.duty) {
      if (cert.e <= this.region.epoch) return false;
      this.region.stepDown(from, cert.e);
    }
    if (this.region.role === 'claiming') {
      this.region.trace(`abandon claim: ${fromHex.slice(0, 6)} won e${cert.e}`);
      this.region.wakeClaim();
    }
    const changed = this.region.epoch !== cert.e || this.region.primaryHex !== fromHex;
    this.el.adoptCert(cert);
    if (cert.e > this.el.promised || this.el.promisedTo !== fromHex) {
      this.el.promised = cert.e;
      this.el.promisedTo = fromHex;
    }
    this.region.epoch = cert.e;
    this.region.primary = from;
    this.region.primaryHex = fromHex;
    this.region.hosts = cert.hosts;
    this.region.role = 'backup';
    this.region.handoffTo = '';
    if (changed) this.region.applied = undefined;
    this.region.lastHeard = this.ctx.clock.now();
    this.primaryIdle = false;
    return true;
  }

  /** The full state with the epoch's certificate: the only frame that makes us follow a primary. */
  async onSync(from: NodeId, fromHex: string, m: ReplicationMessageOf<'SYNC'>): Promise<void> {
    if (m.e < this.el.promised) {
      this.ctx.stats.staleFrames++;
      return this.refuseEpoch(from);
    }
    const cert = m.cert;
    if (cert.e !== m.e || !idEquals(cert.primary, from)) return void this.ctx.stats.badCerts++;
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    if (!this.isCurrentPrimary(fromHex, m.e)) {
      if (!(await this.region.acceptable(cert)) || this.region.stopped) return;
      if (!has(cert.hosts, this.ctx.selfId)) {
        // A certified primary whose set left us out: we host this region no more (and must
        // not claim it over an old set).
        if (succeeds(cert, this.el.cert) && cert.e >= this.el.promised && !this.region.duty && this.region.role !== 'claiming') {
          this.el.adoptCert(cert);
          this.region.standAside(cert);
        }
        return void this.ctx.stats.staleFrames++;
      }
      if (!this.follow(from, fromHex, cert)) return;
    }
    if (m.reqs) this.region.requests.import(m.reqs, this.ctx.clock.now());
    // Never discard what we hold (a restarted host's store): merge, and at the last piece
    // offer the primary what its SYNC lacked.
    const got = (this.syncIn ??= new Map());
    for (const x of entries) if (got.size < 1 << 22) got.set(x.key, x);
    this.region.state.merge(entries);
    this.region.lastHeard = this.ctx.clock.now();
    if (m.more) return; // a piece of a large state: the last one is acked
    this.syncIn = undefined;
    this.region.offerTo(from, [...got.values()]);
    this.region.applied = Math.max(this.region.applied ?? 0, m.s);
    this.region.lastHeard = this.ctx.clock.now();
    this.region.toHost(from, { t: 'ACK', ...this.r, e: m.e, to: this.region.applied });
    this.region.persist().catch(() => {});
  }

  /**
   * Whether a REPLICATE or HEARTBEAT comes from the primary we follow, in its epoch. Else:
   * below our promise it is refused; from a primary we do not follow yet (it names us a
   * host) we ask for its SYNC, which carries the certificate; anything else is stale.
   */
  private fromOurPrimary(from: NodeId, fromHex: string, m: { e: number; hosts: NodeId[] }): boolean {
    if (m.e < this.el.promised) {
      this.ctx.stats.staleFrames++;
      this.refuseEpoch(from);
      return false;
    }
    if (this.isCurrentPrimary(fromHex, m.e)) return true;
    if (has(m.hosts, this.ctx.selfId)) this.requestSync(from);
    else this.ctx.stats.staleFrames++;
    return false;
  }

  onReplicate(from: NodeId, fromHex: string, m: ReplicationMessageOf<'REPLICATE'>): void {
    if (!this.fromOurPrimary(from, fromHex, m)) return;
    this.region.lastHeard = this.ctx.clock.now();
    this.primaryIdle = false;
    let entries: Entry[];
    try {
      entries = decodeEntries(m.entries);
    } catch {
      return void this.ctx.stats.staleFrames++;
    }
    if (this.region.applied === undefined || m.from > this.region.applied + 1) return this.requestSync(from);
    if (m.to > this.region.applied) this.region.state.merge(entries);
    this.rememberRequests(m, entries);
    this.region.applied = Math.max(this.region.applied, m.to);
    // Ack from memory; the store write follows. The primary confirms a batch once it is in
    // its own store too (commit-pipeline.ts), so our write is not on the edit's critical path.
    this.region.toHost(from, { t: 'ACK', ...this.r, e: m.e, to: this.region.applied });
    this.region.persist().catch(() => {});
  }

  /** The batch's edit requests, so that as the next primary we know them (request-log.ts). */
  private rememberRequests(m: ReplicationMessageOf<'REPLICATE'>, entries: Entry[]): void {
    if (!m.reqs) return;
    const bySeq = new Map<number, Entry>();
    for (const e of entries) bySeq.set(e.s, e);
    const now = this.ctx.clock.now();
    for (const [editor, r, s] of m.reqs) {
      const e = bySeq.get(s);
      if (e) this.region.requests.remember(requestTag(idToHex(editor), r, e.key, e.id), e, now);
    }
    this.region.requests.prune(now);
  }

  private requestSync(primary: NodeId): void {
    const now = this.ctx.clock.now();
    if (now - this.lastSyncReq < this.ctx.opts.heartbeatMs) return;
    this.lastSyncReq = now;
    this.region.toHost(primary, { t: 'SYNC_REQ', ...this.r, e: this.region.epoch });
  }

  onHeartbeat(from: NodeId, fromHex: string, m: ReplicationMessageOf<'HEARTBEAT'>): void {
    if (!this.fromOurPrimary(from, fromHex, m)) return;
    this.region.lastHeard = this.ctx.clock.now();
    this.primaryIdle = m.idle === true;
    if (m.subs) this.region.knownSubs = m.subs;
    if (this.region.applied === undefined) this.requestSync(from);
    // The answer renews the primary's lease: from now on we refuse other claimants for failoverMs / 2.
    if (m.b !== undefined) this.region.toHost(from, { t: 'ACK', ...this.r, e: m.e, to: this.region.applied ?? 0, b: m.b });
  }

  /** Backups: called every heartbeat period; takes over when the primary went quiet. */
  watch(primaryLinkClosed = false): void {
    if (this.region.role !== 'backup' || this.region.stopped) return;
    if (primaryLinkClosed) {
      this.region.lastHeard = Math.min(this.region.lastHeard, this.ctx.clock.now() - this.ctx.opts.failoverMs);
      this.primaryIdle = false;
    }
    const others = this.region.hosts.filter((h) => !idEquals(h, this.region.primary ?? this.ctx.selfId));
    const rank = Math.max(0, others.findIndex((h) => idEquals(h, this.ctx.selfId)));
    const o = this.ctx.opts;
    const now = this.ctx.clock.now();
    if (this.el.deferred(now)) return;
    // An idle region's primary beats every idleHeartbeatMs: allow for two missed beats.
    const quiet = this.primaryIdle ? 2 * o.idleHeartbeatMs : 0;
    if (now - this.region.lastHeard > o.failoverMs + quiet + rank * o.claimStaggerMs) {
      // One attempt, then wait again (jittered, so duelling claimants drift apart).
      this.region.lastHeard = now + o.random() * o.failoverMs;
      void this.region.claim(0, true);
    }
  }

  /** Says we will not follow `to` as primary: our promise is `promised`, to whom we name if we follow them. */
  private refuseEpoch(to: NodeId): void {
    const primary = this.region.primary && this.el.promisedTo === this.region.primaryHex ? { primary: this.region.primary } : {};
    this.region.toHost(to, { t: 'REFUSE', ...this.r, e: this.el.promised, ...primary });
  }
}
