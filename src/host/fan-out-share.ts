// A backup's share of a crowd's fan-out (fan-out-plan.ts says who serves
// whom, positions-duty.ts is the primary's side): its primary FEEDs it every player's
// position and the subscribers it serves (at least every FEED_MS / 2). To those subscribers
// it sends, as the primary would:
// - each tick, the POSITIONS their interest views call for (interest-lists.ts), to those
//   standing in the region (one looking in from next door gets its positions from the
//   primary, which knows where it looks from);
// - each batch as the primary orders it (its REPLICATE to us), at our next tick, as PENDING
//   (riding in the POSITIONS frame if one goes: player-outbox.ts);
// - each committed DELTA, as the primary's RELAY gives it;
// - a HEARTBEAT at each of the primary's beats to us (committed up to, idle), so their
//   silence means what it meant: the primary (or its relay, us) is gone.
// It serves only while the feed flows: FEED_MS without one (the primary died, moved on, or
// the crowd left) and it stops.
import type { NodeId } from '../core/node-id';
import { idToHex } from '../core/node-id';
import { dequantise } from '../region/position-code';
import { PositionStreams } from '../region/position-streams';
import type { RegionCoord } from '../region/region-key';
import { PIN_RANK, type PinWant } from './host-pins';
import { InterestLists, type Watched } from './interest-lists';
import { PlayerOutbox } from './player-outbox';
import type { RegionContext } from './region-context';
import type { ReplicationMessageOf } from './replication-messages';

/** A backup stops serving after this long without a FEED frame. */
export const FEED_MS = 1000;

export class FanOutShare {
  private readonly stream: PositionStreams;
  private readonly lists: InterestLists;
  private serving = new Map<string, NodeId>();
  private primary: { id: NodeId; hex: string; e: number } | undefined;
  private lastFeed = -Infinity;
  /** The players as last held, served on while a lost feed starts again (not shown as gone meanwhile). */
  private players: Watched[] = [];
  private lostAt = -Infinity;
  private stopTicks: (() => void) | undefined;
  /** Deltas and beats held to our tick, to ride in the POSITIONS frames (player-outbox.ts). */
  private readonly outbox: PlayerOutbox;

  constructor(
    private readonly ctx: RegionContext,
    private readonly region: RegionCoord,
    /** We are still a backup (a promoted backup serves as primary, positions-duty.ts). */
    private readonly following: () => boolean,
  ) {
    this.stream = new PositionStreams(region, '');
    this.lists = new InterestLists(1000 / ctx.opts.tickHz);
    this.outbox = new PlayerOutbox(region);
  }

  /** A FEED from the primary we follow (the caller checked). */
  onFeed(from: NodeId, fromHex: string, m: ReplicationMessageOf<'FEED'>): void {
    const now = this.ctx.clock.now();
    if (this.primary && (this.primary.hex !== fromHex || this.primary.e !== m.e)) this.stop();
    this.primary = { id: from, hex: fromHex, e: m.e };
    this.lastFeed = now;
    if (this.stream.take(fromHex, m, now).lost) {
      this.lostAt = now;
      this.ctx.wires.replicas.send(from, { t: 'FEED_LOST', rx: this.region.rx, rz: this.region.rz, e: m.e });
    }
    if (m.serve) {
      const before = this.serving;
      this.serving = new Map(m.serve.map((id) => [idToHex(id), id]));
      // Our PENDINGs are the latency path of an edit to them: over a link of our own, pinned
      // as the primary pins its own share's (each subscriber pins its end: region-client.ts
      // onPositions); routed, each costs a hop or more (share-links.test.ts). The sweep
      // unpins them once we serve them no more (idle-unload.ts).
      // Ranked as subscribers looking in: their EDITs go to the primary, not to us (host-pins.ts).
      for (const [hex, id] of this.serving) if (!before.has(hex)) this.ctx.pin(id, PIN_RANK.watcher);
      this.lists.keepOnly((hex) => this.serving.has(hex));
    }
    if (!this.stopTicks && this.serving.size > 0) this.stopTicks = this.ctx.ticker.start(this.ctx.opts.tickHz, () => this.tick());
  }

  /** A committed delta from the primary we follow (the caller checked): to our subscribers. */
  onRelay(m: ReplicationMessageOf<'RELAY'>): void {
    if (!this.serves(m.e)) return;
    // With the primary's batch signatures: our subscribers take a DELTA from us only so.
    this.outbox.delta(m.e, { from: m.from, to: m.to, entries: m.entries, ...(m.pf ? { pf: m.pf } : {}) }, this.serving, this.ctx.clock.now());
  }

  /**
   * A batch our primary just ordered (its REPLICATE to us; the caller checked): to our
   * subscribers as PENDING at our next tick, as the primary sends it to its own share (held
   * a tick at most: it is the latency path; its DELTA follows from the RELAY once it commits).
   */
  onReplicate(m: ReplicationMessageOf<'REPLICATE'>): void {
    if (!this.ctx.opts.showPending || !this.serves(m.e)) return;
    this.outbox.pending(m.e, { from: m.from, to: m.to, entries: m.entries, ...(m.sig ? { pf: [[m.from, m.to, m.sig]] } : {}) }, this.serving, this.ctx.clock.now());
  }

  /** The primary we follow beat (the caller checked): so do we, to our subscribers. */
  onBeat(m: ReplicationMessageOf<'HEARTBEAT'>): void {
    if (!this.serves(m.e)) return;
    this.outbox.beat(m.e, m.s, this.serving, this.ctx.clock.now(), m.idle ? { idle: true } : {});
  }

  /** We serve subscribers for the primary of epoch `e`, and its feed still flows. */
  private serves(e: number): boolean {
    return this.serving.size > 0 && this.primary?.e === e && this.ctx.clock.now() - this.lastFeed <= FEED_MS && this.following();
  }

  /** The subscribers we serve for our primary now (hex). */
  servingHexes(): Iterable<string> {
    return this.serving.keys();
  }

  /** Our links to the subscribers we serve stay pinned (idle-unload.ts sweep). */
  *pinWants(): Iterable<PinWant> {
    for (const id of this.serving.values()) yield { id, rank: PIN_RANK.watcher };
  }

  /** A subscriber we serve lost one of our frames: it starts afresh at our next frame. */
  lost(hex: string): void {
    if (this.serving.has(hex)) this.lists.reset(hex);
  }

  stop(): void {
    this.outbox.flush(this.ctx.wires.players, this.ctx.clock.now());
    this.stopTicks?.();
    this.stopTicks = undefined;
    this.serving.clear();
    this.lists.keepOnly(() => false);
    this.primary = undefined;
    this.players = [];
  }

  private tick(): void {
    const now = this.ctx.clock.now();
    if (now - this.lastFeed > FEED_MS || this.serving.size === 0 || !this.primary || !this.following()) return this.stop();
    const held = this.stream.holding(this.primary.hex);
    if (held.size > 0 || now - this.lostAt > FEED_MS) {
      this.players = [...held].map(([slot, p]) => {
        const at = dequantise(this.region, p.q);
        return { slot, hex: p.hex, id: p.id, look: p.look, x: at.x, z: at.z, q: p.q, ...(p.prev ? { prev: p.prev } : {}) };
      });
    }
    const where = new Map(this.players.map((p) => [p.hex, p]));
    const subs = [...this.serving.keys()].filter((hex) => where.has(hex)).map((hex) => ({ hex, at: where.get(hex) }));
    for (const { hex, body } of this.lists.frames(subs, this.players, now)) {
      this.ctx.wires.players.send(this.serving.get(hex)!, { t: 'POSITIONS', ...this.region, e: this.primary.e, ...body, ...this.outbox.ride(hex, this.primary.e) });
    }
    // A beat waits up to two ticks for a frame to ride in: once the crowd's links to its
    // primary are direct (each end pins them), their MOVEs reach it together and its FEED,
    // so our POSITIONS, come every other tick; a beat that came in an empty tick found no
    // frame in the one tick it waited (hosting-crowd.test.ts: 1,696 beats alone, 1,142 before).
    const tickMs = 1000 / this.ctx.opts.tickHz;
    this.outbox.flush(this.ctx.wires.players, now, tickMs, 2 * tickMs);
  }
}
