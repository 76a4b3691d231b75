// The primary's commit pipeline for one region and epoch: edits are validated, stamped
// (ordered) and replicated as batches, only under the lease; a batch is *committed* once it
// is in two memories (ours and enough backups' acks; with no backup, ours and our store) and
// goes to the subscribers as a DELTA; it is *confirmed* to its editors once it is also in our
// own store (primary-duty.ts has why). The lease: a majority of the certificate's hosts acked
// a frame we sent less than leaseMs ago.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { EditValidator, settableBlock } from './edit-validator';
import type { RegionPresence } from './region-presence';
import { quorum } from '../region/epoch-cert';
import { MotionTracker, type Point } from './motion-tracker';
import { requestTag } from './request-log';
import type { SubscriptionMessageOf } from '../region/subscription-messages';
import { compareStamp, encodeEntries, entryKey, type Entry, type Stamp } from '../region/region-state';
import { columnIndex } from '../region/region-key';
import { chunkOf, localOf } from '../world/coords';
import type { DutyShared } from './duty-region';
import type { RegionPublisher } from './region-publisher';

export interface Batch {
  from: number;
  to: number;
  entries: Entry[];
  waiters: { id: NodeId; r: number; s: number }[];
  at: number;
  /** Enough backups hold it (its ack latency is recorded once). */
  acked?: boolean;
}

/** A batch's edit requests as REPLICATE carries them: (editor, request id, seq). */
export const requestsOf = (waiters: Batch['waiters']) => waiters.map((w): [NodeId, number, number] => [w.id, w.r, w.s]);

export class CommitPipeline {
  /** Last seq handed out in this epoch. */
  seq = 0;
  /** Highest seq in two memories (in region.state; subscribers were sent it). */
  committed = 0;
  /** Accepted batches not yet committed. */
  readonly batches: Batch[] = [];
  /** Committed batches whose editors wait for our store write. */
  private readonly unconfirmed: Batch[] = [];
  readonly acked = new Map<string, number>();
  private queue: { from: NodeId; fromHex: string; m: SubscriptionMessageOf<'EDIT'> }[] = [];
  private readonly validator: EditValidator;
  /** Where each player is believed to stand (reach is checked from there, not from its claim). */
  private readonly motion: MotionTracker | undefined;
  /** Send time of each recent heartbeat, by beat number (the lease counts from it). */
  readonly beatSent = new Map<number, number>();
  /** Per backup (hex): the send time of the newest frame it acked (heartbeat or batch). */
  readonly heardAt = new Map<string, number>();
  /** Offered entries (OFFER) to adopt on the next tick, and the original stamps of adopted ones. */
  private offered: Entry[] = [];
  private readonly origins = new Map<number, Stamp>();

  constructor(
    private readonly duty: DutyShared,
    private readonly publisher: RegionPublisher,
    /** Who stands in the region: a block placed inside another player is refused. */
    private readonly presence: RegionPresence,
  ) {
    this.validator = new EditValidator(duty.region.coord, duty.ctx.opts.rules);
    this.motion = duty.ctx.opts.motion ? new MotionTracker(duty.ctx.opts.motion) : undefined;
  }

  /** Edits waiting for the next batch. */
  get queued(): number {
    return this.queue.length;
  }

  /** We stopped ordering for a successor: uncommitted edits stay in the state we hand over (they were accepted, just not confirmed). */
  stepDown(): void {
    for (const b of this.batches) if (b.to > this.committed) this.duty.region.state.merge(b.entries);
  }

  /** We stopped ordering with no successor yet: accepted edits stay in the state and their editors hear 'busy'. */
  release(): void {
    for (const b of [...this.batches, ...this.unconfirmed]) {
      if (b.to > this.committed) this.duty.region.state.merge(b.entries);
      for (const w of b.waiters) this.duty.ctx.wires.players.send(w.id, { t: 'REJECT', ...this.duty.r, r: w.r, reason: 'busy' });
    }
    this.batches.length = 0;
    this.unconfirmed.length = 0;
  }

  /** Committed state plus accepted-but-unconfirmed edits. */
  allEntries(): Entry[] {
    const map = new Map<number, Entry>();
    for (const e of this.duty.region.state.all()) map.set(e.key, e);
    for (const b of this.batches) for (const e of b.entries) if (b.to > this.committed) map.set(e.key, e);
    return [...map.values()];
  }

  /** Queues an edit for the next batch (ordered at once if we hold the lease). */
  queueEdit(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'EDIT'>): void {
    if (this.queue.length >= 1024) {
      this.duty.ctx.wires.players.send(from, { t: 'REJECT', ...this.duty.r, r: m.r, reason: 'busy' });
      return;
    }
    this.queue.push({ from, fromHex, m });
    if (!this.duty.stopped) this.order(this.duty.ctx.clock.now());
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
      if (!settableBlock(e.id) || e.e >= this.duty.e || this.offered.length >= this.duty.ctx.opts.maxOffered) {
        this.duty.ctx.stats.offersRefused++;
        continue;
      }
      this.offered.push(e);
    }
  }

  /** The newest entry we hold for key (committed or pending), as its original stamp. */
  private current(key: number): Stamp | undefined {
    let best: Stamp | undefined = this.duty.region.state.get(key);
    for (const b of this.batches) for (const e of b.entries) if (e.key === key && (!best || compareStamp(e, best) > 0)) best = e;
    const origin = this.origins.get(key);
    if (origin && (!best || compareStamp(origin, best) > 0)) best = origin;
    return best;
  }

  /** A player's reported position, as far as it could have moved since its last report. */
  believe(hex: string, claimed: Point, now: number): Point {
    if (!this.motion) return claimed;
    const before = this.motion.clamped;
    const p = this.motion.report(hex, claimed, now);
    if (this.motion.clamped !== before) this.duty.ctx.stats.movesClamped++;
    return p;
  }

  /**
   * Validates, stamps and replicates the queued edits (and adopted offers) as one batch.
   * Runs on the tick, and also as soon as an edit arrives: the order is the order of
   * arrival either way, and not waiting for the tick saves up to 50 ms per edit.
   */
  order(now: number): void {
    // Only under our lease: an edit ordered without it could get a stamp below those of a
    // successor that already confirmed edits, and a re-send of it to that successor would
    // then be confirmed with that stamp, behind edits confirmed before it was even made.
    if (!this.leaseHeld(now)) {
      if (this.queue.length > 0 || this.offered.length > 0) this.duty.ctx.stats.leaseWaits++;
      return;
    }
    const queue = this.queue;
    this.queue = [];
    const entries: Entry[] = [];
    /** Where each block's entry sits in `entries`: a batch holds a block once (decodeEntries refuses a repeat). */
    const slot = new Map<number, number>();
    const waiters: Batch['waiters'] = [];
    const from = this.seq + 1;
    for (const { from: who, fromHex, m } of queue) {
      const key = entryKey(columnIndex(chunkOf(m.x), chunkOf(m.z)), localOf(m.x), m.y, localOf(m.z));
      const tag = requestTag(fromHex, m.r, key, m.id);
      const dup = this.duty.region.requests.find(tag);
      if (dup && this.isDuplicate(who, m.r, key, dup, waiters, slot)) continue;
      const at = this.believe(fromHex, { x: m.px, y: m.py, z: m.pz }, now);
      const reason = this.validator.check(fromHex, { x: m.x, y: m.y, z: m.z, id: m.id, px: at.x, py: at.y, pz: at.z }, now, this.presence.bodiesExcept(fromHex, now));
      if (reason) {
        this.duty.ctx.stats.editsRejected++;
        this.duty.ctx.wires.players.send(who, { t: 'REJECT', ...this.duty.r, r: m.r, reason });
        continue;
      }
      const s = ++this.seq;
      // Two edits of one block in one batch (edits queued while the lease was away): the later
      // replaces the earlier, which is confirmed with its own stamp, superseded at once. Both
      // in the batch made it undecodable at every backup (a key repeats), never acked: the
      // region stuck with its lease held (safety seed 121).
      const had = slot.get(key);
      if (had === undefined) slot.set(key, entries.push({ key, id: m.id, e: this.duty.e, s }) - 1);
      else entries[had] = { key, id: m.id, e: this.duty.e, s };
      waiters.push({ id: who, r: m.r, s });
      this.duty.region.requests.remember(tag, { e: this.duty.e, s }, now);
      this.duty.ctx.stats.editsAccepted++;
      this.duty.ctx.onAccept?.(this.duty.region.name, this.duty.e, this.duty.ctx.selfHex);
    }
    if (this.offered.length > 0) {
      // At most offerPerTick a tick: a batch stays small whatever a host offers.
      const offered = new Map<number, Entry>();
      for (const e of this.offered.splice(0, this.duty.ctx.opts.offerPerTick)) {
        const had = offered.get(e.key);
        if (!had || compareStamp(e, had) > 0) offered.set(e.key, e);
      }
      for (const e of offered.values()) {
        const cur = this.current(e.key);
        if (slot.has(e.key) || (cur && compareStamp(cur, e) >= 0)) continue;
        this.origins.set(e.key, { e: e.e, s: e.s });
        entries.push({ key: e.key, id: e.id, e: this.duty.e, s: ++this.seq });
        this.duty.ctx.stats.adopted++;
      }
    }
    if (entries.length > 0) {
      const batch: Batch = { from, to: this.seq, entries, waiters, at: now };
      this.batches.push(batch);
      const msg = { t: 'REPLICATE' as const, ...this.duty.r, e: this.duty.e, from, to: this.seq, entries: encodeEntries(entries), hosts: this.duty.region.hosts, reqs: requestsOf(waiters) };
      for (const b of this.duty.backups()) this.duty.ctx.wires.replicas.send(b, msg);
      this.duty.ctx.trace?.(this.duty.region.name, `${this.duty.ctx.selfHex.slice(0, 6)} e${this.duty.e} order s${from}-${this.seq} to ${this.duty.backups().map((h) => idToHex(h).slice(0, 6)).join(',')}`);
      // Our own store write runs alongside the round trip to the backups (they ack from
      // memory): a batch commits (subscribers see it) once a backup's memory holds it, and
      // is confirmed once our store holds it too, so every confirmed edit is on one disk and
      // in two memories. A failed write (no storage here) leaves memory only, as with no store.
      const stored = () => {
        this.duty.ctx.latency.store.add(this.duty.ctx.clock.now() - batch.at);
        this.duty.ctx.trace?.(this.duty.region.name, `${this.duty.ctx.selfHex.slice(0, 6)} e${this.duty.e} stored s${batch.from}-${batch.to} after ${Math.round(this.duty.ctx.clock.now() - batch.at)} ms`);
        this.persistedTo = Math.max(this.persistedTo, batch.to);
        if (this.duty.backups().length === 0) this.advance(batch.to);
        this.confirm();
      };
      this.duty.region.persist().then(stored, stored);
    }
  }

  /**
   * A re-sent edit already ordered as `dup`. Of our epoch: confirmed with its stamp (now if
   * committed, else with its batch). Of an earlier epoch (ordered by a predecessor): if a
   * later edit of the block superseded it, confirmed with its old stamp and not applied
   * again (that would undo the later edit); if it is still the block's newest, ordered
   * again (false: same block, same id, a stamp of our epoch that our backups will hold).
   */
  private isDuplicate(who: NodeId, r: number, key: number, dup: Stamp, current: Batch['waiters'], batch: ReadonlyMap<number, number>): boolean {
    if (dup.e === this.duty.e) {
      this.duplicate(who, r, dup.s, current);
      return true;
    }
    // An edit of the block ordered earlier in the batch being built superseded it too (it
    // came after the first ordering): ordered again, the re-send would land on top of it
    // (safety seed 121: e10s6 re-ordered as e11s4 over e11s1, confirmed before it).
    const cur = this.current(key);
    if (!batch.has(key) && (!cur || compareStamp(cur, dup) <= 0)) return false;
    this.duty.ctx.stats.duplicateEdits++;
    this.duty.ctx.wires.players.send(who, { t: 'CONFIRM', ...this.duty.r, r, e: dup.e, s: dup.s });
    return true;
  }

  /** A re-sent edit we already ordered as `s`: confirm it (now if confirmed, else with its batch). */
  private duplicate(who: NodeId, r: number, s: number, current: Batch['waiters']): void {
    this.duty.ctx.stats.duplicateEdits++;
    if (s <= this.confirmed) {
      this.duty.ctx.wires.players.send(who, { t: 'CONFIRM', ...this.duty.r, r, e: this.duty.e, s });
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
    const usable = this.duty.backups().filter((b) => !this.refusing.has(idToHex(b))).length;
    return usable < Math.min(this.duty.ctx.opts.confirmAcks, this.duty.backups().length) || (this.duty.backups().length > 0 && usable === 0);
  }

  onAck(fromHex: string, to: number, beat?: number): void {
    this.refusing.delete(fromHex);
    if (!this.duty.backups().some((b) => idToHex(b) === fromHex)) return;
    const sent = beat !== undefined ? this.beatSent.get(beat) : this.sentAt(to);
    if (sent !== undefined && sent > (this.heardAt.get(fromHex) ?? -Infinity)) this.heardAt.set(fromHex, sent);
    this.acked.set(fromHex, Math.max(this.acked.get(fromHex) ?? 0, Math.min(to, this.seq)));
    const need = Math.min(this.duty.ctx.opts.confirmAcks, this.duty.backups().length);
    if (need === 0) return;
    const acks = this.duty.backups().map((b) => this.acked.get(idToHex(b)) ?? 0).sort((a, b) => b - a);
    this.ackedTo = Math.max(this.ackedTo, acks[need - 1] ?? 0);
    const now = this.duty.ctx.clock.now();
    for (const b of this.batches) {
      if (b.to > this.ackedTo) break;
      if (!b.acked) this.duty.ctx.latency.ack.add(now - b.at);
      b.acked = true;
    }
    this.advance(this.ackedTo);
  }

  /**
   * A backup that answered none of our beats for backupQuietMs is taken for dead: a killed tab's
   * link stays open at our end for seconds, and a second death in that time would leave the
   * region without a majority of its certified set.
   */
  quiet(hex: string): boolean {
    const now = this.duty.ctx.clock.now();
    return now - this.startedAt > this.duty.ctx.opts.backupQuietMs && now - (this.heardAt.get(hex) ?? this.startedAt) > this.duty.ctx.opts.backupQuietMs;
  }

  startedAt = 0;

  /**
   * Whether no majority of the certificate's hosts (we count) answered a beat we sent over
   * backupQuietMs ago: our lease is long gone and cannot come back by replacing the silent
   * (a new set needs the old majority's grants), and our backups, not hearing us either,
   * have had time to claim. We may be deposed and never hear it (cut off from every node:
   * our frames reach nobody), so we stop being primary (hosted-region.ts `release`) rather
   * than stay one for good. Counted from our beats, not the clock: an idle region beats
   * every idleHeartbeatMs, and an answer to the last beat is all a backup owes.
   */
  unanswered(now = this.duty.ctx.clock.now()): boolean {
    let n = 1;
    for (const b of this.duty.backups()) {
      const heard = this.heardAt.get(idToHex(b)) ?? -Infinity;
      let due = Infinity; // the oldest beat sent after the newest frame it answered
      for (const at of this.beatSent.values()) if (at > heard && at < due) due = at;
      if (now - due <= this.duty.ctx.opts.backupQuietMs) n++;
    }
    return n < quorum(this.duty.region.hosts.length);
  }

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
  leaseHeld(now = this.duty.ctx.clock.now()): boolean {
    let n = 1;
    for (const b of this.duty.backups()) if (now - (this.heardAt.get(idToHex(b)) ?? -Infinity) < this.duty.ctx.opts.leaseMs) n++;
    return n >= quorum(this.duty.region.hosts.length);
  }

  /**
   * Commits as soon as enough backups hold a batch, not on the next tick: the tick orders
   * edits, but waiting for it again to commit would add up to 50 ms to every edit.
   */
  private advance(to: number): void {
    if (to > this.committed && !this.duty.stopped) {
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
  commit(): void {
    if (!this.leaseHeld()) {
      if (this.pendingCommit > this.committed || this.unconfirmed.length > 0) this.duty.ctx.stats.leaseWaits++;
      return;
    }
    const upTo = this.pendingCommit;
    if (upTo > this.committed) {
      const done: Entry[] = [];
      const from = this.committed + 1;
      while (this.batches.length > 0 && this.batches[0]!.to <= upTo) {
        const b = this.batches.shift()!;
        this.duty.ctx.trace?.(this.duty.region.name, `${this.duty.ctx.selfHex.slice(0, 6)} e${this.duty.e} commit s${b.from}-${b.to} acks ${[...this.acked].map(([h, t]) => `${h.slice(0, 6)}:${t}`).join(',')}`);
        this.duty.ctx.latency.commit.add(this.duty.ctx.clock.now() - b.at);
        this.duty.region.state.merge(b.entries);
        done.push(...b.entries);
        this.unconfirmed.push(b);
      }
      this.committed = upTo;
      const delta = { t: 'DELTA' as const, ...this.duty.r, e: this.duty.e, from, to: upTo, entries: encodeEntries(done) };
      this.duty.ctx.stats.deltas++;
      for (const s of this.duty.subscribers.values()) this.duty.ctx.wires.players.send(s.id, delta);
      this.publisher.schedule();
    }
    this.confirm();
  }

  /** Confirms to their editors the committed batches our own store holds. */
  private confirm(): void {
    const upTo = this.confirmed;
    if (this.unconfirmed.length > 0 && this.unconfirmed[0]!.to <= upTo) {
      if (!this.leaseHeld()) return void this.duty.ctx.stats.leaseWaits++;
      this.duty.ctx.onConfirm?.(this.duty.region.name, this.duty.e, this.duty.ctx.selfHex, this.duty.ctx.clock.now());
    }
    while (this.unconfirmed.length > 0 && this.unconfirmed[0]!.to <= upTo) {
      const b = this.unconfirmed.shift()!;
      this.duty.ctx.latency.confirm.add(this.duty.ctx.clock.now() - b.at);
      for (const w of b.waiters) {
        this.duty.ctx.stats.confirms++;
        this.duty.ctx.wires.players.send(w.id, { t: 'CONFIRM', ...this.duty.r, r: w.r, e: this.duty.e, s: w.s });
      }
    }
  }

  /** Highest seq confirmed to its editors: committed and in our own store (both only grow). */
  get confirmed(): number {
    return Math.min(this.committed, this.persistedTo);
  }
}
