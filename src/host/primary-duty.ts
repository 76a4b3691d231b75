// The primary's work for one region and epoch: the authoritative tick (validate, order,
// replicate, broadcast committed deltas, confirm once also on disk), heartbeats,
// subscribers, players' positions, re-checking the host set (handoff to a closer node,
// re-replication to a new backup) and publishing the region to the DHT.
//
// Two watermarks. An edit is *committed* once it is in two memories (ours and a backup's
// ack; with no backup, ours and our store): it enters `region.state` and goes to the
// subscribers, so a snapshot or delta never shows an edit that a takeover could lose. It is
// *confirmed* to its editor once it is also in our own store (one disk and two memories:
// it outlives every host tab closing). Only the confirmation waits for the disk, so a slow
// IndexedDB write under load delays the editor's CONFIRM, not what the other players see.
import { every } from '../core/clock';
import { idEquals, idToHex, sortByDistance, type NodeId } from '../core/node-id';
import { EditValidator, settableBlock } from './edit-validator';
import { quorum } from '../region/epoch-cert';
import { MotionTracker, type Point } from './motion-tracker';
import { RegionPresence } from './region-presence';
import { requestTag } from './request-log';
import { MAX_STATE_REQS, MAX_SUBS_LISTED } from './replication-messages';
import type { PlayerFrame, SubscriptionMessageOf } from '../region/subscription-messages';
import type { RegionContext } from './region-context';
import type { RequestLog } from './request-log';
import type { EpochCert } from '../region/epoch-cert';
import type { RegionCoord } from '../region/region-key';
import type { RegionState } from '../region/region-state';
import { putEdits, putLocation } from '../region/region-records';
import { compareStamp, encodeEntries, entryKey, pieces, type Entry, type Stamp } from '../region/region-state';
import { columnIndex, regionOf } from '../region/region-key';
import { chunkOf, localOf } from '../world/coords';

interface Batch {
  from: number;
  to: number;
  entries: Entry[];
  waiters: { id: NodeId; r: number; s: number }[];
  at: number;
  /** Enough backups hold it (its ack latency is recorded once). */
  acked?: boolean;
}

/** A batch's edit requests as REPLICATE carries them: (editor, request id, seq). */
const requestsOf = (waiters: Batch['waiters']) => waiters.map((w): [NodeId, number, number] => [w.id, w.r, w.s]);

interface Subscriber {
  id: NodeId;
  at: number;
}

/**
 * What the duty reads of its region and may ask of it (hosted-region.ts implements it):
 * the region's election side owns epoch, certificate and host set; the duty only reads them,
 * and asks for a handoff or a new epoch over other hosts.
 */
export interface DutyRegion {
  readonly ctx: RegionContext;
  readonly coord: RegionCoord;
  readonly key: NodeId;
  readonly name: string;
  readonly state: RegionState;
  readonly requests: RequestLog;
  readonly cert: EpochCert | undefined;
  readonly epoch: number;
  readonly hosts: NodeId[];
  /** The subscribers a backup learned from our predecessor: told of our takeover, then cleared. */
  knownSubs: NodeId[];
  /** When our claim went out: a grant of it holds our lease like an ack of a frame sent then. */
  readonly claimSentAt: number;
  persist(): Promise<void>;
  handOff(to: NodeId): void;
  reconfigure(hosts: NodeId[], why: string): void;
  suspects(): string[];
}

export class PrimaryDuty {
  /** Last seq handed out in this epoch. */
  seq = 0;
  /** Highest seq in two memories (in region.state; subscribers were sent it). */
  committed = 0;
  /** Accepted batches not yet committed. */
  private readonly batches: Batch[] = [];
  /** Committed batches whose editors wait for our store write. */
  private readonly unconfirmed: Batch[] = [];
  private readonly acked = new Map<string, number>();
  private readonly lastSync = new Map<string, number>();
  readonly subscribers = new Map<string, Subscriber>();
  private readonly presence: RegionPresence;
  private queue: { from: NodeId; fromHex: string; m: SubscriptionMessageOf<'EDIT'> }[] = [];
  private readonly validator: EditValidator;
  /** Where each player is believed to stand (reach is checked from there, not from its claim). */
  private readonly motion: MotionTracker | undefined;
  /** Send time of each recent heartbeat, by beat number (the lease counts from it). */
  private readonly beatSent = new Map<number, number>();
  /** Per backup (hex): the send time of the newest frame it acked (heartbeat or batch). */
  private readonly heardAt = new Map<string, number>();
  /** Offered entries (OFFER) to adopt on the next tick, and the original stamps of adopted ones. */
  private offered: Entry[] = [];
  private readonly origins = new Map<number, Stamp>();
  private stops: (() => void)[] = [];
  private publishTimer: unknown;
  private locationRevision = 0;
  private rechecking = false;
  private beats = 0;
  private stopped = false;

  constructor(private readonly region: DutyRegion) {
    this.validator = new EditValidator(region.coord, region.ctx.opts.rules);
    this.motion = region.ctx.opts.motion ? new MotionTracker(region.ctx.opts.motion) : undefined;
    this.presence = new RegionPresence(region.ctx.opts.playerTtlMs);
  }

  private get ctx() {
    return this.region.ctx;
  }

  private get r() {
    return { rx: this.region.coord.rx, rz: this.region.coord.rz };
  }

  private get e(): number {
    return this.region.epoch;
  }

  backups(): NodeId[] {
    return this.region.hosts.filter((h) => !idEquals(h, this.ctx.selfId));
  }

  start(): void {
    const o = this.ctx.opts;
    this.lastActive = this.ctx.clock.now();
    this.startedAt = this.lastActive;
    this.stops.push(this.ctx.ticker.start(o.tickHz, () => this.tick()));
    this.stops.push(every(this.ctx.clock, o.heartbeatMs, () => this.heartbeat()));
    this.stops.push(every(this.ctx.clock, o.recheckMs, () => void this.recheck()));
    // A short set is topped up as a new epoch: after this start has finished.
    this.shortTimer = this.ctx.clock.setTimeout(() => {
      this.fillFromLinks();
      this.recheckIfShort(250);
    }, 0);
    // A granter promised us the epoch and follows us from its grant on (it refuses other
    // claimants for failoverMs / 2 after it), as after an ack of a frame sent with our
    // claim: so the lease holds from the certificate on, not from the first beat's acks.
    const granted = new Set(this.region.cert!.grants.map((g) => idToHex(g.id)));
    for (const b of this.backups()) if (granted.has(idToHex(b))) this.heardAt.set(idToHex(b), this.region.claimSentAt);
    for (const b of this.backups()) {
      this.syncBackup(b, idToHex(b));
      this.ctx.dht.connect(b).catch(() => {});
    }
    // Hosts of the previous set that this one leaves out hear so (with the certificate), so
    // they stop watching for our silence and never claim over the old set.
    const cert = this.region.cert!;
    for (const h of cert.prev?.hosts ?? []) {
      if (cert.hosts.some((x) => idEquals(x, h))) continue;
      this.ctx.wires.replicas.send(h, { t: 'SYNC', ...this.r, e: this.e, s: 0, hosts: cert.hosts, entries: new Uint8Array(0), cert });
    }
    // Dueling Teapots' TAKE_OVER: the old primary's subscribers hear of us at once.
    for (const id of this.region.knownSubs) this.ctx.wires.players.send(id, { t: 'NOT_PRIMARY', ...this.r, e: this.e, primary: this.ctx.selfId });
    this.region.knownSubs = [];
    this.publishLocation();
    this.schedulePublish();
  }

  stop(): void {
    this.stopped = true;
    this.ctx.clock.clearTimeout(this.shortTimer);
    for (const s of this.stops) s();
    this.stops = [];
    this.ctx.clock.clearTimeout(this.publishTimer);
  }

  /** We are no longer primary: tell subscribers where to go; unconfirmed editors time out. */
  stepDown(next: NodeId | undefined, e: number): void {
    this.stop();
    for (const s of this.subscribers.values()) this.ctx.wires.players.send(s.id, { t: 'NOT_PRIMARY', ...this.r, e, ...(next ? { primary: next } : {}) });
    // Uncommitted edits stay in the state we hand over (they were accepted, just not confirmed).
    for (const b of this.batches) if (b.to > this.committed) this.region.state.merge(b.entries);
  }

  /**
   * We stop ordering for a new epoch of our own (host-set change) or a handoff: accepted
   * edits stay in the state, their editors hear 'busy' and re-send (the request log
   * recognises them), and our subscribers are returned to be told of the next primary.
   */
  release(): NodeId[] {
    this.stop();
    for (const b of [...this.batches, ...this.unconfirmed]) {
      if (b.to > this.committed) this.region.state.merge(b.entries);
      for (const w of b.waiters) this.ctx.wires.players.send(w.id, { t: 'REJECT', ...this.r, r: w.r, reason: 'busy' });
    }
    this.batches.length = 0;
    this.unconfirmed.length = 0;
    return [...this.subscribers.values()].map((s) => s.id);
  }

  /** Committed state plus accepted-but-unconfirmed edits. */
  allEntries(): Entry[] {
    const map = new Map<number, Entry>();
    for (const e of this.region.state.all()) map.set(e.key, e);
    for (const b of this.batches) for (const e of b.entries) if (b.to > this.committed) map.set(e.key, e);
    return [...map.values()];
  }

  // ---- subscribers -------------------------------------------------------------------

  subscribe(id: NodeId, hex: string, since: Stamp | undefined): void {
    this.wake();
    this.subscribers.set(hex, { id, at: this.ctx.clock.now() });
    // A subscriber from another epoch gets everything: our claim merged states whose stamps
    // may sit below its `since` (a restarted world reuses low epochs).
    const full = !since || since.e !== this.e;
    const entries = this.region.state.since(full ? undefined : since);
    const parts = pieces(entries);
    parts.forEach((part, i) => this.ctx.wires.players.send(id, {
      t: 'SNAPSHOT', ...this.r, e: this.e, v: { e: this.e, s: this.committed }, full, hosts: this.region.hosts, entries: encodeEntries(part), cert: this.region.cert!,
      ...(i < parts.length - 1 ? { more: true } : {}),
    }));
    this.presence.resend();
  }

  /** Activity: if the region was idle, the backups hear a normal-rate beat at once. */
  private wake(): void {
    const wasIdle = this.idle;
    this.lastActive = this.ctx.clock.now();
    if (wasIdle) {
      this.lastBeat = -Infinity;
      this.heartbeat();
    }
  }

  unsubscribe(hex: string): void {
    this.subscribers.delete(hex);
  }

  private touch(hex: string): void {
    const s = this.subscribers.get(hex);
    if (s) s.at = this.ctx.clock.now();
  }

  // ---- edits ---------------------------------------------------------------------------

  queueEdit(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'EDIT'>): void {
    this.touch(fromHex);
    this.wake();
    if (this.queue.length >= 1024) {
      this.ctx.wires.players.send(from, { t: 'REJECT', ...this.r, r: m.r, reason: 'busy' });
      return;
    }
    this.queue.push({ from, fromHex, m });
    if (!this.stopped) this.order(this.ctx.clock.now());
  }

  /**
   * A host's stored entries (a restarted host, or a backup whose store held more than our
   * SYNC): adopted, per block by stamp, as new edits of our epoch (stamped, replicated,
   * confirmed and broadcast like any edit), so they are not shadowed by stamps of old epochs
   * and do not shadow our later edits. From outside the host set only blocks we lack.
   */
  offer(entries: Entry[]): void {
    for (const e of entries) {
      // Stored state predates our epoch: an entry stamped in it or later is forged.
      if (!settableBlock(e.id) || e.e >= this.e || this.offered.length >= this.ctx.opts.maxOffered) {
        this.ctx.stats.offersRefused++;
        continue;
      }
      this.offered.push(e);
    }
  }

  /** The newest entry we hold for key (committed or pending), as its original stamp. */
  private current(key: number): Stamp | undefined {
    let best: Stamp | undefined = this.region.state.get(key);
    for (const b of this.batches) for (const e of b.entries) if (e.key === key && (!best || compareStamp(e, best) > 0)) best = e;
    const origin = this.origins.get(key);
    if (origin && (!best || compareStamp(origin, best) > 0)) best = origin;
    return best;
  }

  /** A player's reported position, as far as it could have moved since its last report. */
  private believe(hex: string, claimed: Point, now: number): Point {
    if (!this.motion) return claimed;
    const before = this.motion.clamped;
    const p = this.motion.report(hex, claimed, now);
    if (this.motion.clamped !== before) this.ctx.stats.movesClamped++;
    return p;
  }

  move(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'MOVE'>): void {
    this.touch(fromHex);
    this.wake();
    const now = this.ctx.clock.now();
    const p = this.believe(fromHex, m, now);
    if (regionOf(chunkOf(p.x)) !== this.r.rx || regionOf(chunkOf(p.z)) !== this.r.rz) return; // not standing here
    this.presence.report(fromHex, { id: from, name: m.name, x: p.x, y: p.y, z: p.z, yaw: m.yaw, pitch: m.pitch }, now);
  }

  tick(): void {
    this.ctx.stats.ticks++;
    if (this.stopped) return;
    const now = this.ctx.clock.now();
    this.order(now);
    this.commit();
    const players = this.presence.take(now);
    if (players) this.sendPlayers(players);
  }

  /**
   * Validates, stamps and replicates the queued edits (and adopted offers) as one batch.
   * Runs on the tick, and also as soon as an edit arrives: the order is the order of
   * arrival either way, and not waiting for the tick saves up to 50 ms per edit.
   */
  private order(now: number): void {
    // Only under our lease: an edit ordered without it could get a stamp below those of a
    // successor that already confirmed edits, and a re-send of it to that successor would
    // then be confirmed with that stamp, behind edits confirmed before it was even made.
    if (!this.leaseHeld(now)) {
      if (this.queue.length > 0 || this.offered.length > 0) this.ctx.stats.leaseWaits++;
      return;
    }
    const queue = this.queue;
    this.queue = [];
    const entries: Entry[] = [];
    const waiters: Batch['waiters'] = [];
    const from = this.seq + 1;
    for (const { from: who, fromHex, m } of queue) {
      const key = entryKey(columnIndex(chunkOf(m.x), chunkOf(m.z)), localOf(m.x), m.y, localOf(m.z));
      const tag = requestTag(fromHex, m.r, key, m.id);
      const dup = this.region.requests.find(tag);
      if (dup && this.isDuplicate(who, m.r, key, dup, waiters)) continue;
      const at = this.believe(fromHex, { x: m.px, y: m.py, z: m.pz }, now);
      const reason = this.validator.check(fromHex, { x: m.x, y: m.y, z: m.z, id: m.id, px: at.x, py: at.y, pz: at.z }, now);
      if (reason) {
        this.ctx.stats.editsRejected++;
        this.ctx.wires.players.send(who, { t: 'REJECT', ...this.r, r: m.r, reason });
        continue;
      }
      const s = ++this.seq;
      entries.push({ key, id: m.id, e: this.e, s });
      waiters.push({ id: who, r: m.r, s });
      this.region.requests.remember(tag, { e: this.e, s }, now);
      this.ctx.stats.editsAccepted++;
      this.ctx.onAccept?.(this.region.name, this.e, this.ctx.selfHex);
    }
    if (this.offered.length > 0) {
      // At most offerPerTick a tick: a batch stays small whatever a host offers.
      const offered = new Map<number, Entry>();
      for (const e of this.offered.splice(0, this.ctx.opts.offerPerTick)) {
        const had = offered.get(e.key);
        if (!had || compareStamp(e, had) > 0) offered.set(e.key, e);
      }
      const pendingKeys = new Set(entries.map((e) => e.key));
      for (const e of offered.values()) {
        const cur = this.current(e.key);
        if (pendingKeys.has(e.key) || (cur && compareStamp(cur, e) >= 0)) continue;
        this.origins.set(e.key, { e: e.e, s: e.s });
        entries.push({ key: e.key, id: e.id, e: this.e, s: ++this.seq });
        this.ctx.stats.adopted++;
      }
    }
    if (entries.length > 0) {
      const batch: Batch = { from, to: this.seq, entries, waiters, at: now };
      this.batches.push(batch);
      const msg = { t: 'REPLICATE' as const, ...this.r, e: this.e, from, to: this.seq, entries: encodeEntries(entries), hosts: this.region.hosts, reqs: requestsOf(waiters) };
      for (const b of this.backups()) this.ctx.wires.replicas.send(b, msg);
      this.ctx.trace?.(this.region.name, `${this.ctx.selfHex.slice(0, 6)} e${this.e} order s${from}-${this.seq} to ${this.backups().map((h) => idToHex(h).slice(0, 6)).join(',')}`);
      // Our own store write runs alongside the round trip to the backups (they ack from
      // memory): a batch commits (subscribers see it) once a backup's memory holds it, and
      // is confirmed once our store holds it too, so every confirmed edit is on one disk and
      // in two memories. A failed write (no storage here) leaves memory only, as with no store.
      const stored = () => {
        this.ctx.latency.store.add(this.ctx.clock.now() - batch.at);
        this.persistedTo = Math.max(this.persistedTo, batch.to);
        if (this.backups().length === 0) this.advance(batch.to);
        this.confirm();
      };
      this.region.persist().then(stored, stored);
    }
  }

  /**
   * A re-sent edit already ordered as `dup`. Of our epoch: confirmed with its stamp (now if
   * committed, else with its batch). Of an earlier epoch (ordered by a predecessor): if a
   * later edit of the block superseded it, confirmed with its old stamp and not applied
   * again (that would undo the later edit); if it is still the block's newest, ordered
   * again (false: same block, same id, a stamp of our epoch that our backups will hold).
   */
  private isDuplicate(who: NodeId, r: number, key: number, dup: Stamp, current: Batch['waiters']): boolean {
    if (dup.e === this.e) {
      this.duplicate(who, r, dup.s, current);
      return true;
    }
    const cur = this.current(key);
    if (!cur || compareStamp(cur, dup) <= 0) return false;
    this.ctx.stats.duplicateEdits++;
    this.ctx.wires.players.send(who, { t: 'CONFIRM', ...this.r, r, e: dup.e, s: dup.s });
    return true;
  }

  /** A re-sent edit we already ordered as `s`: confirm it (now if confirmed, else with its batch). */
  private duplicate(who: NodeId, r: number, s: number, current: Batch['waiters']): void {
    this.ctx.stats.duplicateEdits++;
    if (s <= this.confirmed) {
      this.ctx.wires.players.send(who, { t: 'CONFIRM', ...this.r, r, e: this.e, s });
      return;
    }
    const batch = this.unconfirmed.find((b) => b.from <= s && s <= b.to) ?? this.batches.find((b) => b.from <= s && s <= b.to);
    const waiters = batch ? batch.waiters : current;
    if (!waiters.some((w) => w.r === r && idEquals(w.id, who))) waiters.push({ id: who, r, s });
  }

  private readonly refusing = new Set<string>();

  /** A backup promised a later epoch. True when too few backups remain to confirm edits. */
  refusedBy(hex: string): boolean {
    this.refusing.add(hex);
    const usable = this.backups().filter((b) => !this.refusing.has(idToHex(b))).length;
    return usable < Math.min(this.ctx.opts.confirmAcks, this.backups().length) || (this.backups().length > 0 && usable === 0);
  }

  onAck(fromHex: string, to: number, beat?: number): void {
    this.refusing.delete(fromHex);
    if (!this.backups().some((b) => idToHex(b) === fromHex)) return;
    const sent = beat !== undefined ? this.beatSent.get(beat) : this.sentAt(to);
    if (sent !== undefined && sent > (this.heardAt.get(fromHex) ?? -Infinity)) this.heardAt.set(fromHex, sent);
    this.acked.set(fromHex, Math.max(this.acked.get(fromHex) ?? 0, Math.min(to, this.seq)));
    const need = Math.min(this.ctx.opts.confirmAcks, this.backups().length);
    if (need === 0) return;
    const acks = this.backups().map((b) => this.acked.get(idToHex(b)) ?? 0).sort((a, b) => b - a);
    this.ackedTo = Math.max(this.ackedTo, acks[need - 1] ?? 0);
    const now = this.ctx.clock.now();
    for (const b of this.batches) {
      if (b.to > this.ackedTo) break;
      if (!b.acked) this.ctx.latency.ack.add(now - b.at);
      b.acked = true;
    }
    this.advance(this.ackedTo);
  }

  /**
   * A backup that answered none of our beats for backupQuietMs is taken for dead: a killed tab's
   * link stays open at our end for seconds, and a second death in that time would leave the
   * region without a majority of its certified set.
   */
  private quiet(hex: string): boolean {
    const now = this.ctx.clock.now();
    return now - this.startedAt > this.ctx.opts.backupQuietMs && now - (this.heardAt.get(hex) ?? this.startedAt) > this.ctx.opts.backupQuietMs;
  }

  private startedAt = 0;

  /** When the newest batch a backup's ack of `to` covers was sent. */
  private sentAt(to: number): number | undefined {
    let at: number | undefined;
    for (const b of [...this.unconfirmed, ...this.batches]) if (b.to <= to) at = b.at;
    return at;
  }

  /**
   * Whether a majority of the certificate's hosts (we count) acked a frame we sent less than
   * leaseMs ago. Each of them refuses other claimants for failoverMs / 2 after hearing us, so
   * while this holds no other primary can exist: we may commit and confirm.
   */
  leaseHeld(now = this.ctx.clock.now()): boolean {
    let n = 1;
    for (const b of this.backups()) if (now - (this.heardAt.get(idToHex(b)) ?? -Infinity) < this.ctx.opts.leaseMs) n++;
    return n >= quorum(this.region.hosts.length);
  }

  /**
   * Commits as soon as enough backups hold a batch, not on the next tick: the tick orders
   * edits, but waiting for it again to commit would add up to 50 ms to every edit.
   */
  private advance(to: number): void {
    if (to > this.committed && !this.stopped) {
      this.pendingCommit = Math.max(this.pendingCommit, to);
      this.commit();
    }
  }

  private pendingCommit = 0;
  /** Highest seq in our own store (or whose write failed: see order()). */
  private persistedTo = 0;
  /** Highest seq enough backups acked. */
  private ackedTo = 0;

  /**
   * Commits the batches enough backups hold (on their ack, and on the tick): into the
   * state, and to the subscribers as one DELTA. Their editors are confirmed by confirm().
   */
  private commit(): void {
    if (!this.leaseHeld()) {
      if (this.pendingCommit > this.committed || this.unconfirmed.length > 0) this.ctx.stats.leaseWaits++;
      return;
    }
    const upTo = this.pendingCommit;
    if (upTo > this.committed) {
      const done: Entry[] = [];
      const from = this.committed + 1;
      while (this.batches.length > 0 && this.batches[0]!.to <= upTo) {
        const b = this.batches.shift()!;
        this.ctx.trace?.(this.region.name, `${this.ctx.selfHex.slice(0, 6)} e${this.e} commit s${b.from}-${b.to} acks ${[...this.acked].map(([h, t]) => `${h.slice(0, 6)}:${t}`).join(',')}`);
        this.ctx.latency.commit.add(this.ctx.clock.now() - b.at);
        this.region.state.merge(b.entries);
        done.push(...b.entries);
        this.unconfirmed.push(b);
      }
      this.committed = upTo;
      const delta = { t: 'DELTA' as const, ...this.r, e: this.e, from, to: upTo, entries: encodeEntries(done) };
      this.ctx.stats.deltas++;
      for (const s of this.subscribers.values()) this.ctx.wires.players.send(s.id, delta);
      this.schedulePublish();
    }
    this.confirm();
  }

  /** Confirms to their editors the committed batches our own store holds. */
  private confirm(): void {
    const upTo = this.confirmed;
    if (this.unconfirmed.length > 0 && this.unconfirmed[0]!.to <= upTo) {
      if (!this.leaseHeld()) return void this.ctx.stats.leaseWaits++;
      this.ctx.onConfirm?.(this.region.name, this.e, this.ctx.selfHex, this.ctx.clock.now());
    }
    while (this.unconfirmed.length > 0 && this.unconfirmed[0]!.to <= upTo) {
      const b = this.unconfirmed.shift()!;
      this.ctx.latency.confirm.add(this.ctx.clock.now() - b.at);
      for (const w of b.waiters) {
        this.ctx.stats.confirms++;
        this.ctx.wires.players.send(w.id, { t: 'CONFIRM', ...this.r, r: w.r, e: this.e, s: w.s });
      }
    }
  }

  /** Highest seq confirmed to its editors: committed and in our own store (both only grow). */
  get confirmed(): number {
    return Math.min(this.committed, this.persistedTo);
  }

  private sendPlayers(players: PlayerFrame[]): void {
    const msg = { t: 'PLAYERS' as const, ...this.r, e: this.e, players };
    for (const s of this.subscribers.values()) this.ctx.wires.players.send(s.id, msg);
  }

  // ---- backups -------------------------------------------------------------------------

  /** Full state to a backup (new member, gap repair), then the unconfirmed batches. */
  syncBackup(id: NodeId, hex: string): void {
    if (!this.backups().some((b) => idEquals(b, id))) return;
    this.ctx.stats.syncs++;
    this.lastSync.set(hex, this.ctx.clock.now());
    const hosts = this.region.hosts;
    // A large state travels in pieces; the backup acks the last (no `more`).
    const parts = pieces(this.region.state.all());
    parts.forEach((part, i) => this.ctx.wires.replicas.send(id, {
      t: 'SYNC', ...this.r, e: this.e, s: this.committed, hosts, entries: encodeEntries(part), cert: this.region.cert!,
      ...(i === 0 ? { reqs: this.region.requests.export(MAX_STATE_REQS) } : {}), ...(i < parts.length - 1 ? { more: true } : {}),
    }));
    for (const b of this.batches) {
      if (b.to <= this.committed) continue;
      this.ctx.wires.replicas.send(id, { t: 'REPLICATE', ...this.r, e: this.e, from: b.from, to: b.to, entries: encodeEntries(b.entries), hosts, reqs: requestsOf(b.waiters) });
    }
  }

  /** Last subscriber, edit or move (start counts): an idle region beats slowly. */
  private lastActive = 0;
  private lastBeat = -Infinity;
  /** The last beat told the backups we are idle. */
  private beatIdle = false;

  /** No subscriber, nothing in flight, nothing done for `idleAfterMs`. */
  get idle(): boolean {
    const now = this.ctx.clock.now();
    if (this.subscribers.size > 0 || this.batches.length > 0 || this.queue.length > 0) this.lastActive = now;
    return now - this.lastActive >= this.ctx.opts.idleAfterMs;
  }

  private heartbeat(): void {
    if (this.stopped) return;
    const now = this.ctx.clock.now();
    const o = this.ctx.opts;
    // A region nobody watches or edits costs its hosts little: a beat every
    // idleHeartbeatMs instead of every heartbeatMs (the backups allow for it: `idle`).
    // The first idle beat goes out at once: until it arrives the backups expect the fast beat.
    const idle = this.idle;
    if (idle && this.beatIdle && now - this.lastBeat < o.idleHeartbeatMs) return;
    this.beatIdle = idle;
    this.lastBeat = now;
    const b = this.beats;
    this.beatSent.set(b, now);
    this.beatSent.delete(b - 32);
    const hb = { t: 'HEARTBEAT' as const, ...this.r, e: this.e, s: this.committed, hosts: this.region.hosts, b, ...(idle ? { idle } : {}) };
    // Backups learn our subscribers (every 4th beat), so a successor can tell them at once.
    const subs = this.beats++ % 4 === 0 ? [...this.subscribers.values()].slice(0, MAX_SUBS_LISTED).map((s) => s.id) : undefined;
    for (const b of this.backups()) {
      this.ctx.stats.heartbeats++;
      this.ctx.wires.replicas.send(b, subs ? { ...hb, subs } : hb);
      const hex = idToHex(b);
      const oldest = this.batches[0];
      const behind = oldest && (this.acked.get(hex) ?? 0) < oldest.to && now - oldest.at > o.resyncMs;
      if (behind && now - (this.lastSync.get(hex) ?? -Infinity) > o.resyncMs) this.syncBackup(b, hex);
    }
    // Subscribers get the beat without what only backups use (the lease's number, our subscribers).
    const beat = { t: 'HEARTBEAT' as const, ...this.r, e: this.e, s: this.committed, hosts: this.region.hosts, ...(idle ? { idle } : {}) };
    for (const [hex, s] of this.subscribers) {
      if (now - s.at > o.subscriberTtlMs) this.subscribers.delete(hex);
      else this.ctx.wires.players.send(s.id, beat);
    }
    this.presence.checkExpiry(now);
    if (!this.rechecking && this.backups().some((b) => this.quiet(idToHex(b)))) this.fillFromLinks();
    this.region.requests.prune(now);
  }

  /** Host set re-check: hand over to a closer node; bring a new backup up to date. */
  /**
   * A host set smaller than r (a claim over the hosts still linked) holds fewer copies than
   * it should: look for the missing hosts soon, not at the next periodic re-check, since two
   * more losses in that window would lose confirmed edits.
   */
  private recheckIfShort(ms: number): void {
    if (this.stopped || this.region.hosts.length >= this.ctx.opts.replicas || ms > this.ctx.opts.recheckMs) return;
    // Backing off (x2) to the periodic re-check: a world with fewer than r nodes stays short.
    this.shortTimer = this.ctx.clock.setTimeout(() => void this.recheck().then(() => this.recheckIfShort(ms * 2)), ms);
  }

  private shortTimer: unknown;

  /**
   * A short host set (a claim over the hosts still linked, or a host whose link closed) is
   * topped up at once with the linked nodes closest to the key: a link is proof of life, so
   * this needs no lookup, and a lookup under churn waits on dead contacts for seconds, a
   * window in which two more losses lose confirmed edits (the churn test's seeds 28 and 35
   * did). The lookup-based re-check that follows puts the true closest nodes in their place.
   */
  private fillFromLinks(): void {
    if (this.stopped) return;
    const self = this.ctx.selfId;
    const live = this.region.hosts.filter((h) => idEquals(h, self) || (!this.ctx.linkClosed(idToHex(h)) && !this.quiet(idToHex(h))));
    if (!live.some((h) => idEquals(h, self))) live.unshift(self);
    const missing = this.ctx.opts.replicas - live.length;
    if (missing <= 0) return;
    // Not a node whose silence we just acted on: a killed tab's links stay open at our end for seconds.
    const extra = this.ctx.linkedNear(this.region.key, missing, new Set([...live.map(idToHex), ...this.region.suspects()]));
    if (extra.length === 0) return;
    const hosts = sortByDistance([...live, ...extra], (x) => x, this.region.key);
    // A linked node closer to the key than we are takes the region over at once.
    if (!idEquals(hosts[0]!, self)) return this.region.handOff(hosts[0]!);
    this.setHosts(hosts, live.length, 'filled from links');
  }

  /**
   * A new host set is a new epoch (hosted-region.ts reconfigure): only while a majority of
   * the current set is alive to sign it (`alive` of them), else the claim could not win
   * and we keep the epoch we hold (our lease decides whether we may still confirm).
   */
  private setHosts(hosts: NodeId[], alive: number, why: string): void {
    const old = new Set(this.region.hosts.map(idToHex));
    if (hosts.length === old.size && hosts.every((h) => old.has(idToHex(h)))) return;
    if (alive < quorum(this.region.hosts.length)) return;
    this.region.reconfigure(hosts, why);
  }

  async recheck(): Promise<void> {
    if (this.rechecking || this.stopped) return;
    this.fillFromLinks();
    if (this.stopped) return;
    this.rechecking = true;
    try {
      const hosts = await this.ctx.hostSet(this.region.key, true);
      if (this.stopped || hosts.length === 0) return;
      const first = hosts[0]!;
      // A closer node joined: it claims the next epoch; we and our backups grant it.
      if (!idEquals(first, this.ctx.selfId)) return this.region.handOff(first);
      const alive = this.region.hosts.filter((h) => idEquals(h, this.ctx.selfId) || hosts.some((x) => idEquals(x, h)) || !this.ctx.linkClosed(idToHex(h))).length;
      this.setHosts(hosts, alive, 'lookup');
    } catch {
      // the lookup failed; the next period tries again
    } finally {
      this.rechecking = false;
    }
  }

  // ---- DHT records -----------------------------------------------------------------------

  private publishLocation(): void {
    putLocation(this.ctx.dht, this.region.key, { signer: this.ctx.signer, cert: this.region.cert! }, this.locationRevision++).catch(() => {});
  }

  private publishedAt: Stamp = { e: 0, s: 0 };

  private schedulePublish(): void {
    if (this.publishTimer !== undefined || this.stopped) return;
    this.publishTimer = this.ctx.clock.setTimeout(() => {
      this.publishTimer = undefined;
      const v = this.region.state.version;
      if (compareStamp(v, this.publishedAt) <= 0 || this.region.state.size === 0) return;
      this.publishedAt = v;
      this.ctx.stats.publishes++;
      putEdits(this.ctx.dht, this.region.key, { signer: this.ctx.signer, cert: this.region.cert! }, v, this.region.state.all()).catch(() => {});
    }, this.ctx.opts.publishMs);
  }
}
