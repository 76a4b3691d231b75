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
// The parts: commit-pipeline.ts (order, replicate, ack, commit, confirm: the shell of the
// pure commit-machine.ts; the lease is primary-lease.ts),
// primary-heartbeat.ts (beats, backup re-sync), host-set-check.ts (handoff, a new host set)
// and region-publisher.ts (DHT records); they see the duty through `DutyShared`
// (duty-region.ts), and the duty reads its region through `DutyRegion`.
import { every } from '../core/clock';
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { PLAYER_TTL_MS, RegionPresence } from './region-presence';
import { ChatRelay } from './chat-relay';
import type { PlayerToHost, SubscriptionMessageOf } from '../region/subscription-messages';
import type { ReplicaFrame } from './host-wires';
import { encodeEntries, pieces, type Entry, type Stamp } from '../region/region-state';
import { regionOf } from '../region/region-key';
import { chunkOf } from '../world/coords';
import { CommitPipeline } from './commit-pipeline';
import type { CommitMachine } from './commit-machine';
import { FanOutPlan } from './fan-out-plan';
import type { DutyRegion, DutyShared, Subscriber } from './duty-region';
import { HostSetCheck, RECHECK_MS } from './host-set-check';
import { PIN_RANK, subscriberRank, type PinWant } from './host-pins';
import { PlayerOutbox } from './player-outbox';
import { MoveBudget } from './move-budget';
import { PositionsDuty } from './positions-duty';
import { PrimaryHeartbeat, SUBSCRIBER_TTL_MS } from './primary-heartbeat';
import { RegionPublisher } from './region-publisher';
import { ProofSigner } from './state-proofs';

export type { DutyRegion } from './duty-region';

export class PrimaryDuty implements DutyShared {
  readonly subscribers = new Map<string, Subscriber>();
  /** Who stands in the region (also read by the items wiring: agree/region-items.ts). */
  readonly presence: RegionPresence;
  readonly fanOut: FanOutPlan;
  readonly outbox: PlayerOutbox;
  readonly proofs: ProofSigner;
  private readonly publisher: RegionPublisher;
  private readonly pipeline: CommitPipeline;
  /** The pure commit machine the pipeline performs (commit-machine.ts): the duty gives it its inputs. */
  private readonly machine: CommitMachine;
  private readonly hostCheck: HostSetCheck;
  private readonly beat: PrimaryHeartbeat;
  private readonly positions: PositionsDuty;
  private readonly chat: ChatRelay;
  private readonly moves = new MoveBudget();
  private stops: (() => void)[] = [];
  stopped = false;

  constructor(readonly region: DutyRegion) {
    this.presence = new RegionPresence(PLAYER_TTL_MS);
    this.outbox = new PlayerOutbox(region.coord);
    this.proofs = new ProofSigner(region.ctx.signer, region.key, () => region.ctx.stats.proofsSigned++);
    this.fanOut = new FanOutPlan(this, (hex, ms) => this.machine.lease.following(hex, this.ctx.clock.now(), ms));
    this.publisher = new RegionPublisher(this);
    this.pipeline = new CommitPipeline(this, this.publisher, this.presence);
    this.machine = this.pipeline.machine;
    this.hostCheck = new HostSetCheck(this, this.machine.lease);
    this.beat = new PrimaryHeartbeat(this, this.machine, this.hostCheck);
    this.positions = new PositionsDuty(this, this.presence);
    this.chat = new ChatRelay({ clock: region.ctx.clock, stats: region.ctx.stats, playerOf: (hex) => region.ctx.passes.playerOf(hex), isSubscriber: (hex) => this.subscribers.has(hex) });
  }

  get ctx() {
    return this.region.ctx;
  }

  get regionFields() {
    return { rx: this.region.coord.rx, rz: this.region.coord.rz };
  }

  get e(): number {
    return this.region.epoch;
  }

  backups(): NodeId[] {
    return this.region.hosts.filter((h) => !idEquals(h, this.ctx.selfId));
  }

  get hostCount(): number {
    return this.region.hosts.length;
  }

  start(): void {
    const o = this.ctx.opts;
    this.beat.lastActive = this.ctx.clock.now();
    this.stops.push(this.ctx.ticker.start(o.tickHz, () => this.tick()));
    // On the ticker, not a timer of its own: a tab's ticker beats every region it is primary
    // of in one task (worker-ticker.ts), so the beats to a backup of several regions leave in
    // one data-channel write.
    this.stops.push(this.ctx.ticker.start(1000 / o.heartbeatMs, () => this.beat.heartbeat()));
    this.stops.push(every(this.ctx.clock, RECHECK_MS, () => void this.recheck()));
    this.hostCheck.start();
    // Our granters hold our lease from the claim on (primary-lease.ts `start`).
    this.pipeline.start(new Set(this.region.cert!.grants.map((g) => idToHex(g.id))));
    for (const b of this.backups()) {
      this.beat.syncBackup(b, idToHex(b));
      this.ctx.pin(b, PIN_RANK.backup);
    }
    // Hosts of the previous set that this one leaves out hear so (with the certificate), so
    // they stop watching for our silence and never claim over the old set.
    const cert = this.region.cert!;
    for (const h of cert.prev?.hosts ?? []) {
      if (cert.hosts.some((x) => idEquals(x, h))) continue;
      this.ctx.wires.replicas.send(h, { t: 'SYNC', ...this.regionFields, e: this.e, s: 0, hosts: cert.hosts, entries: new Uint8Array(0), cert, ...(this.region.chain ? { chain: this.region.chain } : {}) });
    }
    // Dueling Teapots' TAKE_OVER: the old primary's subscribers hear of us at once.
    const subs = this.region.takeKnownSubs();
    this.ctx.trace?.(this.region.name, `${this.ctx.selfHex.slice(-4)} e${this.e}: takeover told to ${subs.length} subscribers`);
    for (const id of subs) this.ctx.wires.players.send(id, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.e, primary: this.ctx.selfId });
    this.publisher.publishLocation();
    this.publisher.schedule();
  }

  stop(): void {
    // Committed deltas and beats held for the next tick go now: there is no next tick.
    if (!this.stopped) this.outbox.flush(this.ctx.wires.players, this.ctx.clock.now());
    this.stopped = true;
    this.hostCheck.stop();
    for (const s of this.stops) s();
    this.stops = [];
    this.publisher.stop();
  }

  /** We are no longer primary: tell subscribers where to go; unconfirmed editors time out. */
  stepDown(next: NodeId | undefined, e: number): void {
    this.stop();
    for (const s of this.subscribers.values()) this.ctx.wires.players.send(s.id, { t: 'NOT_PRIMARY', ...this.regionFields, e, ...(next ? { primary: next } : {}) });
    this.machine.stepDown();
  }

  /**
   * We stop ordering for a new epoch of our own (host-set change) or a handoff: accepted
   * edits stay in the state, their editors hear 'busy' and re-send (the request log
   * recognises them), and our subscribers are returned to be told of the next primary.
   */
  release(): NodeId[] {
    this.stop();
    this.pipeline.perform(this.machine.release());
    return [...this.subscribers.values()].map((s) => s.id);
  }

  /** Committed state plus accepted-but-unconfirmed edits. */
  allEntries(): Entry[] {
    return this.machine.allEntries();
  }

  // ---- frames --------------------------------------------------------------------------

  /**
   * The frames a primary answers, while we are one (hosted-region.ts hands every frame here
   * first): true when taken. One of another epoch (POSITIONS_LOST, FEED_LOST, ACK, SYNC_REQ)
   * is left to the region, which counts it stale or hands it to its fan-out share.
   */
  onFrame(from: NodeId, fromHex: string, m: ReplicaFrame | PlayerToHost): boolean {
    switch (m.t) {
      case 'SUBSCRIBE':
        this.subscribe(from, fromHex, m.since, m.missed, m.c);
        return true;
      case 'UNSUBSCRIBE':
        this.subscribers.delete(fromHex);
        return true;
      case 'EDIT':
        this.queueEdit(from, fromHex, m);
        return true;
      case 'MOVE':
        this.move(from, fromHex, m);
        return true;
      case 'SAY':
        this.say(fromHex, m);
        return true;
      case 'POSITIONS_LOST':
        // A subscriber missed one of our POSITIONS frames: it hears everything afresh.
        if (m.e !== this.e) return false;
        if (this.subscribers.has(fromHex)) this.positions.restart(fromHex);
        return true;
      case 'FEED_LOST':
        // A backup missed one of our FEED frames (positions-duty.ts).
        if (m.e !== this.e) return false;
        this.positions.feedLost(fromHex);
        return true;
      case 'ACK':
        if (m.e !== this.e) return false;
        this.onAck(fromHex, m.to, m.b);
        return true;
      case 'SYNC_REQ':
        if (m.e !== this.e) return false;
        this.syncBackup(from, fromHex);
        return true;
      default:
        return false;
    }
  }

  // ---- subscribers -------------------------------------------------------------------

  /** `missed`: it re-subscribes having missed frames (a gap, or silence): we serve it ourselves for a while (fan-out-plan.ts). */
  subscribe(id: NodeId, hex: string, since: Stamp | undefined, missed = false, holdsCert = false): void {
    if (this.full(id, hex)) return;
    this.beat.wake();
    const known = this.subscribers.has(hex);
    if (missed && known) this.fanOut.rescue(hex, this.ctx.clock.now());
    // A new subscriber's positions start afresh; one re-subscribing (a gap in its deltas) keeps its stream.
    if (!known) {
      this.ctx.trace?.(this.region.name, `${this.ctx.selfHex.slice(-4)} e${this.e}: subscriber ${hex.slice(0, 6)}`);
      // Its edits come to us and our PENDINGs go to it: routed, each costs a hop more (most of
      // the slow edit-to-visible samples of the 200-peer simulation). The subscriber pins its
      // end; without our pin our budget retired the link for the next peer that dialled us.
      // Unpinned once it is no subscriber of a region we are primary of (idle-unload.ts sweep).
      // Those near enough to edit here go first when our pins run short (host-pins.ts).
      this.ctx.pin(id, subscriberRank(this.regionFields, this.presence.viewpoint(hex, this.ctx.clock.now())));
      this.positions.restart(hex);
      this.beat.subscribersChanged();
    }
    this.subscribers.set(hex, { id, at: this.ctx.clock.now() });
    // A subscriber from another epoch gets everything: our claim merged states whose stamps
    // may sit below its `since` (a restarted world reuses low epochs).
    const full = !since || since.e !== this.e;
    const entries = this.region.state.since(full ? undefined : since);
    const parts = pieces(entries);
    // A known subscriber that holds our certificate (its keepalive, every keepaliveMs) is
    // answered without it: in a crowd those answers were a tenth of the primary's upload.
    const certless = known && holdsCert && !full;
    parts.forEach((part, i) => this.ctx.wires.players.send(id, {
      t: 'SNAPSHOT', ...this.regionFields, e: this.e, v: { e: this.e, s: this.machine.committed }, full, hosts: this.region.hosts, entries: encodeEntries(part), ...(certless ? {} : { cert: this.region.cert!, ...(this.region.chain?.length ? { chain: this.region.chain } : {}) }),
      ...(i < parts.length - 1 ? { more: true } : {}),
    }));
    // A node new to us, or one that missed frames, may have missed chat lines too (chat-relay.ts).
    if (!known || missed) for (const chat of this.chat.recentLines()) this.ctx.wires.players.send(id, chat);
  }

  /**
   * A new subscriber past `maxSubscribers` (once the expired ones are gone) hears `full` and
   * asks again later: each subscriber costs a snapshot and every delta, so throwaway ids
   * must not be able to add them without bound.
   */
  private full(id: NodeId, hex: string): boolean {
    const { maxSubscribers } = this.ctx.opts;
    if (this.subscribers.has(hex) || this.subscribers.size < maxSubscribers) return false;
    const now = this.ctx.clock.now();
    for (const [h, s] of this.subscribers) if (now - s.at > SUBSCRIBER_TTL_MS) this.subscribers.delete(h);
    if (this.subscribers.size < maxSubscribers) return false;
    this.ctx.stats.subscribersRefused++;
    this.ctx.wires.players.send(id, { t: 'NOT_PRIMARY', ...this.regionFields, e: this.e, full: true });
    return true;
  }

  private touch(hex: string): void {
    const s = this.subscribers.get(hex);
    if (s) s.at = this.ctx.clock.now();
  }

  // ---- edits ---------------------------------------------------------------------------

  /** An EDIT: to the commit machine, ordered at once if the lease holds (else on a tick that holds it). */
  private queueEdit(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'EDIT'>): void {
    this.touch(fromHex);
    this.beat.wake();
    const now = this.ctx.clock.now();
    // Once per stretch of waiting: a failover's timeline shows when its first edits stood still.
    if (this.machine.queued === 0 && !this.machine.lease.held(now)) this.ctx.trace?.(this.region.name, `${this.ctx.selfHex.slice(0, 6)} e${this.e} edits wait for the lease`);
    this.pipeline.perform(this.machine.edit(from, fromHex, m, now));
  }

  /** A host's stored entries, adopted as new edits of our epoch on the next tick (commit-machine.ts `offer`). */
  offer(entries: Entry[]): void {
    this.machine.offer(entries);
  }

  private move(from: NodeId, fromHex: string, m: SubscriptionMessageOf<'MOVE'>): void {
    this.touch(fromHex);
    this.beat.wake();
    const now = this.ctx.clock.now();
    if (!this.moves.take(fromHex, now)) return void this.ctx.stats.movesThrottled++;
    const p = this.pipeline.believe(fromHex, m, now);
    // Not standing here: it walked out (its client tells the region it left once), and is
    // listed no more, instead of standing still in our list for PLAYER_TTL_MS beside its
    // live position in the next region's; or it looks in from next door (where it stands
    // chooses the nearest players it hears of at full rate).
    if (regionOf(chunkOf(p.x)) !== this.regionFields.rx || regionOf(chunkOf(p.z)) !== this.regionFields.rz) return this.presence.leave(fromHex, p, now);
    this.presence.report(fromHex, { id: from, look: m.l, x: p.x, y: p.y, z: p.z, yaw: m.yaw, pitch: m.pitch }, now);
    // It stands here, so it may edit here: its EDITs are the first leg of every observer's
    // wait, so its link is pinned before those of the players looking in (host-pins.ts).
    if (this.subscribers.has(fromHex)) this.ctx.pin(from, PIN_RANK.editor);
  }

  /** A chat line said by a subscriber: passed on to every subscriber, the speaker too (its echo), when chat-relay.ts allows. */
  private say(fromHex: string, m: SubscriptionMessageOf<'SAY'>): void {
    if (!this.chat.take(fromHex, m)) return;
    const chat = { ...m, t: 'CHAT' as const };
    this.chat.passed(chat);
    for (const s of this.subscribers.values()) this.ctx.wires.players.send(s.id, chat);
  }

  /** The peers our links should be pinned to (idle-unload.ts sweep): our backups, our subscribers by rank. */
  *pinWants(now: number): Iterable<PinWant> {
    for (const b of this.backups()) yield { id: b, rank: PIN_RANK.backup };
    for (const [hex, s] of this.subscribers) yield { id: s.id, rank: subscriberRank(this.regionFields, this.presence.viewpoint(hex, now)) };
  }

  tick(): void {
    this.ctx.stats.ticks++;
    if (this.stopped) return;
    const now = this.ctx.clock.now();
    this.fanOut.plan(now);
    // Order what queued, then commit and confirm what waited for the lease.
    this.pipeline.perform(this.machine.order(now));
    this.pipeline.perform(this.machine.commit(this.ctx.clock.now()));
    this.positions.tick(now);
  }

  /** Full state to a backup (new member, gap repair), then the unconfirmed batches. */
  syncBackup(id: NodeId, hex: string): void {
    this.beat.syncBackup(id, hex);
  }

  /** Whether our lease holds now (primary-lease.ts): no other primary can exist meanwhile. */
  leaseHeld(): boolean {
    return this.machine.lease.held(this.ctx.clock.now());
  }

  /** A backup promised a later epoch. True when too few backups remain to confirm edits. */
  refusedBy(hex: string): boolean {
    return this.machine.lease.refusedBy(hex);
  }

  /** A backup acked our batches up to `to` (and the beat `beat`): it may commit them (commit-machine.ts `ack`). */
  private onAck(fromHex: string, to: number, beat?: number): void {
    this.pipeline.perform(this.machine.ack(fromHex, to, beat, this.ctx.clock.now()));
    if (beat !== undefined) this.beat.acked(fromHex, beat);
  }

  /** Idle for unloadAfterMs, the backups told: the region may be unloaded (primary-heartbeat.ts). */
  get unloadReady(): boolean {
    return this.beat.unloadReady;
  }

  /** Host set re-check: hand over to a closer node; bring a new backup up to date (host-set-check.ts). */
  recheck(): Promise<void> {
    return this.hostCheck.recheck();
  }
}
