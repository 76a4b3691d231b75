// The primary's commit pipeline for one region and epoch as a pure state machine: edits are
// judged, stamped (ordered) and replicated as batches, only under the lease; a batch is
// *committed* once it is in two memories (ours and enough backups' acks; with no backup,
// ours and our store) and goes to the subscribers as a DELTA; it is *confirmed* to its
// editors once it is also in our own store (primary-duty.ts has why).
//
// Pure: no clock, wire, store, DHT or crypto. Each input (an edit arrived, a tick, an ack,
// our store write finished, we stop) takes the time and returns what to do as plain data
// (`CommitEffect`s, in the order they must happen); the shell (commit-pipeline.ts) performs
// them. The machine's state has changed completely before the shell sends anything, so a
// send that fails or throws leaves it whole. It reads the region's state and request log
// (plain data) and, live, the epoch and host set (`CommitTerms`: a grant can change them
// while a store write is in flight). The lease is primary-lease.ts.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { RejectReason, SubscriptionMessageOf } from '../region/subscription-messages';
import { compareStamp, entryKey, obeysWorldRules, type Entry, type RegionState, type Stamp } from '../region/region-state';
import { columnIndex } from '../region/region-key';
import { chunkOf, localOf } from '../world/coords';
import type { CommitLatency, HostOptions, HostStats } from './host-options';
import { PrimaryLease, type LeaseOptions, type LeaseTerms } from './primary-lease';
import { requestTag, type RequestLog } from './request-log';
import type { Batch, CommitEffect } from './commit-effects';

/** What the machine reads of the duty that runs it, live. */
export interface CommitTerms extends LeaseTerms {
  /** Our epoch. */
  readonly e: number;
  /** The duty stopped (step down, release): nothing new is ordered or committed. */
  readonly stopped: boolean;
}

/** What the machine reads and changes of its region: plain data, no I/O. */
export interface CommitRegion {
  readonly state: RegionState;
  readonly requests: RequestLog;
}

export type CommitOptions = LeaseOptions & Pick<HostOptions, 'maxOffered' | 'offerPerTick' | 'showPending'>;

/** Why an edit may not be ordered now (edit-validator.ts, from where its editor is believed to stand), or undefined. */
/**
 * `arrivedAt`: when the edit arrived; the player's rate is charged then, not at `now`, when
 * it is ordered. Edits that queued while the lease was away are judged together once it is
 * back; charged at that one instant, a backlog that arrived at the player's allowed pace
 * spent the rate's burst at once and the rest was refused 'rate' (the failover_crash bench:
 * 5-51 refusals a run, all at one moment after a lease wait). The queue is in arrival
 * order, so the times the rate sees never go back.
 */
export type EditJudge = (fromHex: string, m: SubscriptionMessageOf<'EDIT'>, now: number, arrivedAt: number) => RejectReason | undefined;

/** Edits queued at most (more hear 'busy'). */
const MAX_QUEUED = 1024;

export class CommitMachine {
  /** Last seq handed out in this epoch. */
  seq = 0;
  /** Highest seq in two memories (in the region's state; subscribers were sent it). */
  committed = 0;
  /** Accepted batches not yet committed. */
  readonly batches: Batch[] = [];
  /** Committed batches whose editors wait for our store write. */
  private readonly unconfirmed: Batch[] = [];
  /** Per backup (hex): the highest seq it acked. */
  readonly acked = new Map<string, number>();
  readonly lease: PrimaryLease;
  private queue: { from: NodeId; fromHex: string; m: SubscriptionMessageOf<'EDIT'>; at: number }[] = [];
  /** Offered entries (OFFER) to adopt on the next tick, and the original stamps of adopted ones. */
  private offered: Entry[] = [];
  private readonly origins = new Map<number, Stamp>();
  /** Highest seq enough backups acked, and the highest waiting for the lease to commit. */
  private ackedTo = 0;
  private commitDue = 0;
  /** Highest seq in our own store (or whose write failed: see `stored`). */
  private persistedTo = 0;
  /** Effects of the input being handled. */
  private out: CommitEffect[] = [];

  constructor(
    private readonly terms: CommitTerms,
    private readonly region: CommitRegion,
    private readonly judge: EditJudge,
    private readonly o: CommitOptions,
    private readonly stats: Pick<HostStats, 'offersRefused' | 'leaseWaits' | 'duplicateEdits' | 'editsRejected' | 'editRefusals' | 'editsAccepted' | 'adopted' | 'confirms'>,
    private readonly latency: CommitLatency,
  ) {
    this.lease = new PrimaryLease(terms, o);
  }

  /** Edits waiting for the next batch. */
  get queued(): number {
    return this.queue.length;
  }

  /** Highest seq confirmed to its editors: committed and in our own store (both only grow). */
  get confirmed(): number {
    return Math.min(this.committed, this.persistedTo);
  }

  // ---- inputs --------------------------------------------------------------------------

  /** An edit arrived: queued for the next batch, ordered at once if we hold the lease. */
  edit(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'EDIT'>, now: number): CommitEffect[] {
    if (this.queue.length >= MAX_QUEUED) {
      this.stats.editRefusals.busy++;
      this.out.push({ t: 'reject', to: from, r: m.r, reason: 'busy' });
      return this.drain();
    }
    this.queue.push({ from, fromHex, m, at: now });
    if (!this.terms.stopped) this.orderQueued(now);
    return this.drain();
  }

  /**
   * A host's stored entries (a restarted host, or a backup whose store held more than our
   * SYNC): adopted, per block by stamp, as new edits of our epoch (stamped, replicated,
   * confirmed and broadcast like any edit) on the next tick, so they are not shadowed by
   * stamps of old epochs and do not shadow our later edits. From outside the host set only
   * blocks we lack.
   */
  offer(entries: Entry[]): void {
    for (const e of entries) {
      // Stored state predates our epoch: an entry stamped in it or later is forged.
      if (!obeysWorldRules(e) || e.e >= this.terms.e || this.offered.length >= this.o.maxOffered) {
        this.stats.offersRefused++;
        continue;
      }
      this.offered.push(e);
    }
  }

  /** The tick: orders what queued (edits and offers) as one batch. */
  order(now: number): CommitEffect[] {
    this.orderQueued(now);
    return this.drain();
  }

  /** The tick: commits what enough backups hold (it waited for the lease), confirms what our store holds. */
  commit(now: number): CommitEffect[] {
    this.commitAcked(now);
    return this.drain();
  }

  /** A backup acked our frames up to seq `to` (`beat`: the heartbeat it answered). */
  ack(fromHex: string, to: number, beat: number | undefined, now: number): CommitEffect[] {
    this.lease.answered(fromHex);
    const backups = this.terms.backups();
    if (!backups.some((b) => idToHex(b) === fromHex)) return this.drain();
    this.lease.heard(fromHex, (beat !== undefined ? this.lease.beatAt(beat) : this.sentAt(to)) ?? this.lease.sentBefore(fromHex), now);
    // Edits that waited for the lease are ordered as soon as it holds again, not at the next tick.
    if (this.queue.length > 0 && !this.terms.stopped) this.orderQueued(now);
    // Never beyond what we sent: a forged or confused ack must not commit batches to come.
    this.acked.set(fromHex, Math.max(this.acked.get(fromHex) ?? 0, Math.min(to, this.seq)));
    const need = Math.min(this.o.confirmAcks, backups.length);
    if (need === 0) return this.drain();
    const acks = backups.map((b) => this.acked.get(idToHex(b)) ?? 0).sort((a, b) => b - a);
    this.ackedTo = Math.max(this.ackedTo, acks[need - 1] ?? 0);
    for (const b of this.batches) {
      if (b.to > this.ackedTo) break;
      if (!b.acked) this.latency.ack.add(now - b.at);
      b.acked = true;
    }
    this.advance(this.ackedTo, now);
    // Batches committed and stored while the lease was away are confirmed as it comes back.
    if (this.unconfirmed.length > 0 && !this.terms.stopped && this.lease.held(now)) this.confirm(now);
    return this.drain();
  }

  /**
   * Our store write for `batch` finished (the shell calls this only then). A failed write (no
   * storage here) counts too: memory only, as with no store. With no backup, the store is
   * the second copy that commits it.
   */
  stored(batch: Batch, now: number): CommitEffect[] {
    this.latency.store.add(now - batch.at);
    this.persistedTo = Math.max(this.persistedTo, batch.to);
    if (this.terms.backups().length === 0) this.advance(batch.to, now);
    this.confirm(now);
    return this.drain();
  }

  /** We stopped ordering for a successor: uncommitted edits stay in the state we hand over (they were accepted, just not confirmed). */
  stepDown(): void {
    for (const b of this.batches) if (b.to > this.committed) this.region.state.merge(b.entries);
  }

  /** We stopped ordering with no successor yet: accepted edits stay in the state and their editors hear 'busy'. */
  release(): CommitEffect[] {
    for (const b of [...this.batches, ...this.unconfirmed]) {
      if (b.to > this.committed) this.region.state.merge(b.entries);
      for (const w of b.waiters) this.out.push({ t: 'reject', to: w.id, r: w.r, reason: 'busy' });
    }
    this.batches.length = 0;
    this.unconfirmed.length = 0;
    return this.drain();
  }

  // ---- what it holds ---------------------------------------------------------------------

  /** Committed state plus accepted-but-unconfirmed edits. */
  allEntries(): Entry[] {
    const map = new Map<number, Entry>();
    for (const e of this.region.state.all()) map.set(e.key, e);
    for (const b of this.batches) for (const e of b.entries) if (b.to > this.committed) map.set(e.key, e);
    return [...map.values()];
  }

  // ---- the rules ---------------------------------------------------------------------------

  private drain(): CommitEffect[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  /**
   * Judges, stamps and replicates the queued edits (and adopted offers) as one batch. Runs
   * on the tick, and also as soon as an edit arrives: the order is the order of arrival
   * either way, and not waiting for the tick saves up to 50 ms per edit.
   */
  private orderQueued(now: number): void {
    // Only under our lease: an edit ordered without it could get a stamp below those of a
    // successor that already confirmed edits, and a re-send of it to that successor would
    // then be confirmed with that stamp, behind edits confirmed before it was even made.
    if (!this.lease.held(now)) {
      if (this.queue.length > 0 || this.offered.length > 0) this.stats.leaseWaits++;
      return;
    }
    const e = this.terms.e;
    const queue = this.queue;
    this.queue = [];
    const entries: Entry[] = [];
    /** Where each block's entry sits in `entries`: a batch holds a block once (decodeEntries refuses a repeat). */
    const slot = new Map<number, number>();
    const waiters: Batch['waiters'] = [];
    const from = this.seq + 1;
    for (const { from: who, fromHex, m, at } of queue) {
      const key = entryKey(columnIndex(chunkOf(m.x), chunkOf(m.z)), localOf(m.x), m.y, localOf(m.z));
      const tag = requestTag(fromHex, m.r, key, m.id);
      const dup = this.region.requests.find(tag);
      if (dup && this.isDuplicate(who, m.r, key, m.id, dup, waiters, slot)) continue;
      // A re-send of an edit a previous primary ordered (its stamp came with the request log
      // of our state) is ordered again without a new verdict: it was judged then, and our
      // state may hold it already, so a refusal now would tell its player a block it sees
      // was refused ('unknown-player' from a primary the player's pass had not reached yet,
      // for an edit its predecessor ordered just before a handoff).
      const reason = dup ? null : this.judge(fromHex, m, now, at);
      if (reason) {
        this.stats.editsRejected++;
        this.stats.editRefusals[reason]++;
        this.out.push({ t: 'reject', to: who, r: m.r, reason });
        continue;
      }
      const s = ++this.seq;
      // Two edits of one block in one batch (edits queued while the lease was away): the later
      // replaces the earlier, which is confirmed with its own stamp, superseded at once. Both
      // in the batch made it undecodable at every backup (a key repeats), never acked: the
      // region stuck with its lease held.
      const had = slot.get(key);
      if (had === undefined) slot.set(key, entries.push({ key, id: m.id, e, s }) - 1);
      else entries[had] = { key, id: m.id, e, s };
      waiters.push({ id: who, r: m.r, s });
      this.region.requests.remember(tag, { e, s }, now);
      this.stats.editsAccepted++;
      this.out.push({ t: 'accepted', e });
    }
    this.adoptOffered(entries, slot, e);
    if (entries.length === 0) return;
    const batch: Batch = { from, to: this.seq, entries, waiters, at: now };
    this.batches.push(batch);
    // Our own store write runs alongside the round trip to the backups (they ack from
    // memory): a batch commits (subscribers see it) once a backup's memory holds it, and
    // is confirmed once our store holds it too, so every confirmed edit is on one disk and
    // in two memories.
    this.out.push({ t: 'replicate', batch }, { t: 'persist', batch });
    // The subscribers see it now, marked pending, while the round trip to the backups runs:
    // it enters the region state (and a snapshot) only at its commit, below.
    if (this.o.showPending) this.out.push({ t: 'pending', batch });
  }

  /** At most offerPerTick offered entries a tick, each block's newest, where we hold nothing as new: a batch stays small whatever a host offers. */
  private adoptOffered(entries: Entry[], slot: ReadonlyMap<number, number>, e: number): void {
    if (this.offered.length === 0) return;
    const offered = new Map<number, Entry>();
    for (const x of this.offered.splice(0, this.o.offerPerTick)) {
      const had = offered.get(x.key);
      if (!had || compareStamp(x, had) > 0) offered.set(x.key, x);
    }
    for (const x of offered.values()) {
      const cur = this.current(x.key);
      if (slot.has(x.key) || (cur && compareStamp(cur, x) >= 0)) continue;
      this.origins.set(x.key, { e: x.e, s: x.s });
      entries.push({ key: x.key, id: x.id, e, s: ++this.seq });
      this.stats.adopted++;
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

  /**
   * A re-sent edit already ordered as `dup`. Of our epoch: confirmed with its stamp (now if
   * committed, else with its batch). Of an earlier epoch (ordered by a predecessor): if our
   * state holds it with that stamp (our epoch began from a state that had it: every
   * subscriber was sent it as committed), or a later edit of the block superseded it,
   * confirmed with its old stamp and not ordered again; only when our state lacks it
   * (false) is it ordered again, as an edit of our epoch. Ordered again while our state held
   * it, an edit showed twice at every subscriber under two stamps (e12s16, then e13s2 after
   * the failover), and the same re-send behind a newer edit of the block would undo it.
   */
  private isDuplicate(who: NodeId, r: number, key: number, id: number, dup: Stamp, current: Batch['waiters'], batch: ReadonlyMap<number, number>): boolean {
    if (dup.e === this.terms.e) {
      this.duplicate(who, r, dup.s, current);
      return true;
    }
    const held = this.region.state.get(key);
    const stateHoldsIt = !!held && held.id === id && compareStamp(held, dup) === 0;
    // A later edit of the block, held or pending, superseded it; so did one ordered earlier in
    // the batch being built (it came after the first ordering): ordered again, the re-send
    // would land on top of it (e10s6 re-ordered as e11s4 over e11s1, confirmed before it).
    const cur = this.current(key);
    const superseded = batch.has(key) || (!!cur && compareStamp(cur, dup) > 0);
    if (!stateHoldsIt && !superseded) return false;
    this.stats.duplicateEdits++;
    this.out.push({ t: 'confirm', to: who, r, e: dup.e, s: dup.s });
    return true;
  }

  /** A re-sent edit we already ordered as `s`: confirm it (now if confirmed, else with its batch). */
  private duplicate(who: NodeId, r: number, s: number, current: Batch['waiters']): void {
    this.stats.duplicateEdits++;
    if (s <= this.confirmed) {
      this.out.push({ t: 'confirm', to: who, r, e: this.terms.e, s });
      return;
    }
    const batch = this.unconfirmed.find((b) => b.from <= s && s <= b.to) ?? this.batches.find((b) => b.from <= s && s <= b.to);
    const waiters = batch ? batch.waiters : current;
    if (!waiters.some((w) => w.r === r && idEquals(w.id, who))) waiters.push({ id: who, r, s });
  }

  /** When the newest batch a backup's ack of `to` covers was sent. */
  private sentAt(to: number): number | undefined {
    let at: number | undefined;
    for (const b of [...this.unconfirmed, ...this.batches]) if (b.to <= to) at = b.at;
    return at;
  }

  /**
   * Commits as soon as enough copies hold a batch, not on the next tick: the tick orders
   * edits, but waiting for it again to commit would add up to 50 ms to every edit.
   */
  private advance(to: number, now: number): void {
    if (to > this.committed && !this.terms.stopped) {
      this.commitDue = Math.max(this.commitDue, to);
      this.commitAcked(now);
    }
  }

  /** Commits the batches enough copies hold, under the lease: into the state, and to the subscribers as one DELTA. */
  private commitAcked(now: number): void {
    if (!this.lease.held(now)) {
      if (this.commitDue > this.committed || this.unconfirmed.length > 0) this.stats.leaseWaits++;
      return;
    }
    const upTo = this.commitDue;
    if (upTo > this.committed) {
      const done: Entry[] = [];
      const batches: Batch[] = [];
      const from = this.committed + 1;
      while (this.batches.length > 0 && this.batches[0]!.to <= upTo) {
        const b = this.batches.shift()!;
        this.latency.commit.add(now - b.at);
        this.region.state.merge(b.entries);
        done.push(...b.entries);
        batches.push(b);
        this.unconfirmed.push(b);
      }
      this.committed = upTo;
      this.out.push({ t: 'delta', e: this.terms.e, from, to: upTo, entries: done, batches });
    }
    this.confirm(now);
  }

  /**
   * Confirms to their editors the committed batches our own store holds, under the lease.
   * `persistedTo` moves only in `stored`, which the shell calls once our store write
   * finished: so no CONFIRM ever leaves before the edit is on our disk.
   */
  private confirm(now: number): void {
    // Stopped (a step down): a store write that lands now confirms nothing. The region's
    // epoch and host set are a successor's by then, so a CONFIRM would carry its epoch
    // and count its hosts for our lease; the editors re-send to it instead, and the request
    // log (in the SYNC or GRANT it got) answers them with the stamp we gave.
    if (this.terms.stopped) return;
    const upTo = this.confirmed;
    if (this.unconfirmed.length > 0 && this.unconfirmed[0]!.to <= upTo) {
      if (!this.lease.held(now)) return void this.stats.leaseWaits++;
      this.out.push({ t: 'confirming', e: this.terms.e, at: now });
    }
    while (this.unconfirmed.length > 0 && this.unconfirmed[0]!.to <= upTo) {
      const b = this.unconfirmed.shift()!;
      this.latency.confirm.add(now - b.at);
      for (const w of b.waiters) {
        this.stats.confirms++;
        this.out.push({ t: 'confirm', to: w.id, r: w.r, e: this.terms.e, s: w.s });
      }
    }
  }
}
