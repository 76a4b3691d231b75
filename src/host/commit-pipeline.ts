// The shell of the primary's commit pipeline for one region and epoch: it performs what the
// pure machine (commit-machine.ts: order, replicate, ack, commit, confirm; primary-lease.ts:
// the lease) decides, in the order decided, on the wires, the store and the test hooks. The
// duty (primary-duty.ts) gives the machine its inputs (an EDIT, an ACK, the tick) and hands
// the effects to `perform`. The shell also holds what judges an edit (the rules, the
// players' believed positions, who stands where), which the machine asks at ordering time.
//
// The one ordering rule the shell owns: a `persist` effect's write must have finished before
// the machine hears `stored` for that batch, and only `stored` lets it confirm the batch,
// so no CONFIRM leaves this node before the edit is in our own store.
import { idToHex, type NodeId } from '../core/node-id';
import type { SubscriptionMessageOf } from '../region/subscription-messages';
import { encodeEntries } from '../region/region-state';
import { MAX_RELAY_PROOFS, type RelayProofs } from '../region/entry-proofs';
import { replicateFrame, type Batch, type CommitEffect } from './commit-effects';
import { CommitMachine } from './commit-machine';
import type { DutyShared } from './duty-region';
import { EditValidator } from './edit-validator';
import { MotionTracker, type Point } from './motion-tracker';
import type { RegionPresence } from './region-presence';
import type { RegionPublisher } from './region-publisher';

export class CommitPipeline {
  readonly machine: CommitMachine;
  private readonly validator: EditValidator;
  /** Where each player is believed to stand (reach is checked from there, not from its claim). */
  private readonly motion: MotionTracker | undefined;

  constructor(
    private readonly duty: DutyShared,
    private readonly publisher: RegionPublisher,
    /** Who stands in the region: a block placed inside another player is refused. */
    private readonly presence: RegionPresence,
  ) {
    const ctx = duty.ctx;
    this.validator = new EditValidator(duty.region.coord, ctx.opts.rules);
    this.motion = ctx.opts.motion ? new MotionTracker(ctx.opts.motion) : undefined;
    const judge = (fromHex: string, m: SubscriptionMessageOf<'EDIT'>, now: number, arrivedAt: number) => {
      // The rate is the player's (its pass), not the node's: node ids cost nothing to mint.
      const player = ctx.passes.playerOf(fromHex);
      if (player === undefined) return 'unknown-player';
      const at = this.believe(fromHex, { x: m.px, y: m.py, z: m.pz }, now);
      return this.validator.check(player, { x: m.x, y: m.y, z: m.z, id: m.id, px: at.x, py: at.y, pz: at.z }, now, this.presence.bodiesExcept(fromHex, now), arrivedAt);
    };
    this.machine = new CommitMachine(duty, duty.region, judge, ctx.opts, ctx.stats, ctx.latency);
  }

  private get now(): number {
    return this.duty.ctx.clock.now();
  }

  /** Our duty starts: the backups that granted our claim hold our lease from the claim on. */
  start(granters: ReadonlySet<string>): void {
    this.machine.lease.start(this.now, granters, this.duty.region.claimSentAt);
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
   * Performs `effects` (what one of the machine's inputs returned) in order, once the batches they replicate are signed (one signature a
   * batch: the evidence a claimant adopts their entries by, state-proofs.ts): the whole group
   * waits for its signatures and then leaves in one pass, behind any group still waiting.
   */
  perform(effects: readonly CommitEffect[]): void {
    const batches = effects.flatMap((fx) => (fx.t === 'replicate' ? [fx.batch] : []));
    const e = this.duty.e;
    this.duty.proofs.run(batches.map((b) => ({ e, f: b.from, t: b.to, b: encodeEntries(b.entries) })), (sigs) => {
      batches.forEach((b, i) => {
        if (sigs[i]) b.sig = sigs[i];
      });
      this.performNow(effects);
    });
  }

  private performNow(effects: readonly CommitEffect[]): void {
    const { ctx, regionFields } = this.duty;
    const name = this.duty.region.name;
    for (const fx of effects) {
      switch (fx.t) {
        case 'reject':
          ctx.wires.players.send(fx.to, { t: 'REJECT', ...regionFields, r: fx.r, reason: fx.reason });
          break;
        case 'confirm':
          this.duty.outbox.sendNow(idToHex(fx.to), ctx.wires.players);
          ctx.wires.players.send(fx.to, { t: 'CONFIRM', ...regionFields, r: fx.r, e: fx.e, s: fx.s });
          break;
        case 'accepted':
          ctx.onAccept?.(name, fx.e, ctx.selfHex);
          break;
        case 'replicate':
          this.replicate(fx.batch);
          break;
        case 'persist':
          this.persist(fx.batch);
          break;
        case 'pending':
          this.showPending(fx.batch);
          break;
        case 'delta': {
          for (const b of fx.batches) ctx.trace?.(name, `${ctx.selfHex.slice(0, 6)} e${fx.e} commit s${b.from}-${b.to} acks ${[...this.machine.acked].map(([h, t]) => `${h.slice(0, 6)}:${t}`).join(',')}`);
          const delta = { from: fx.from, to: fx.to, entries: encodeEntries(fx.entries) };
          ctx.stats.deltas++;
          // Out at the tick, in the POSITIONS frame a subscriber gets then if any (player-outbox.ts).
          // In a crowd, each backup with a share gets it once and passes it on (fan-out-plan.ts).
          const { fanOut } = this.duty;
          const to: [string, NodeId][] = [...this.duty.subscribers].filter(([hex]) => fanOut.direct(hex, this.now)).map(([hex, s]) => [hex, s.id]);
          if (fanOut.shared) this.duty.outbox.delta(fx.e, delta, to, this.now);
          else for (const [, id] of to) ctx.wires.players.send(id, { t: 'DELTA', ...regionFields, e: fx.e, ...delta });
          // The relays pass on our batch signatures: a subscriber takes a relayed DELTA only with them.
          const pf = relayProofsOf(fx.batches);
          for (const b of fanOut.relays()) ctx.wires.replicas.send(b, { t: 'RELAY', ...regionFields, e: fx.e, ...delta, ...(pf ? { pf } : {}) });
          this.publisher.schedule();
          break;
        }
        case 'confirming':
          ctx.onConfirm?.(name, fx.e, ctx.selfHex, fx.at);
          break;
      }
    }
  }

  /** The batch to the backups, with our signature over it (made before its group left: perform). */
  private replicate(batch: Batch): void {
    const { ctx, regionFields, e } = this.duty;
    const msg = replicateFrame(regionFields, e, this.duty.region.hosts, batch);
    for (const b of this.duty.backups()) ctx.wires.replicas.send(b, msg);
    ctx.trace?.(this.duty.region.name, `${ctx.selfHex.slice(0, 6)} e${e} order s${batch.from}-${batch.to} to ${this.duty.backups().map((h) => idToHex(h).slice(0, 6)).join(',')}`);
  }

  /**
   * The batch, just ordered, to the subscribers: they draw it marked pending until its DELTA
   * commits it. At once, alone, to those we serve ourselves and, while the region has few
   * enough subscribers, to every other one we hold a link to (fan-out-plan.ts
   * PENDING_ALONE_UP_TO: it is the latency path); in a bigger crowd at our next tick, riding
   * in the POSITIONS frame a subscriber gets then (player-outbox.ts). The backups with a share
   * pass on their REPLICATE of it to theirs (fan-out-share.ts).
   */
  private showPending(batch: Batch): void {
    const { ctx, regionFields, e, fanOut } = this.duty;
    const now = this.now;
    const pending = { from: batch.from, to: batch.to, entries: encodeEntries(batch.entries) };
    const alone = !fanOut.shared || fanOut.pendingAlone();
    const to: [string, NodeId][] = [...this.duty.subscribers].filter(([hex]) => fanOut.direct(hex, now) || (alone && ctx.linked(hex))).map(([hex, s]) => [hex, s.id]);
    if (!alone) this.duty.outbox.pending(e, pending, to, now);
    else for (const [, id] of to) ctx.wires.players.send(id, { t: 'PENDING', ...regionFields, e, ...pending });
  }

  /** Writes the region to our store; only once the write finished (or failed: no storage here) may the batch be confirmed. */
  private persist(batch: Batch): void {
    const { ctx } = this.duty;
    const stored = () => {
      const now = this.now;
      ctx.trace?.(this.duty.region.name, `${ctx.selfHex.slice(0, 6)} e${this.duty.e} stored s${batch.from}-${batch.to} after ${Math.round(now - batch.at)} ms`);
      this.perform(this.machine.stored(batch, now));
    };
    this.duty.region.persist().then(stored, stored);
  }
}

/** The signatures of `batches` as a relayed frame carries them, when each is signed and they fit. */
function relayProofsOf(batches: readonly Batch[]): RelayProofs | undefined {
  if (batches.length === 0 || batches.length > MAX_RELAY_PROOFS || batches.some((b) => !b.sig)) return undefined;
  return batches.map((b) => [b.from, b.to, b.sig!]);
}
