// The primary's heartbeats to its backups (which answer with acks that hold its lease) and
// to its subscribers, slower while the region is idle, saying `unload` once it has been idle
// for unloadAfterMs (the hosts then unload it: hosting-service.ts), and the full-state SYNC
// that brings a new or lagging backup up to date.
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import { MAX_STATE_REQS, MAX_SUBS_LISTED } from './replication-messages';
import { encodeEntries, pieces } from '../region/region-state';
import { replicateFrame } from './commit-effects';
import { ALL_BEATS_EVERY } from './fan-out-plan';
import type { CommitMachine } from './commit-machine';
import type { DutyShared } from './duty-region';
import type { HostSetCheck } from './host-set-check';

/** A subscriber not heard of (SUBSCRIBE keepalive, MOVE, EDIT) for this long is dropped. */
export const SUBSCRIBER_TTL_MS = 15_000;
/** A backup behind for this long gets a full SYNC. */
export const RESYNC_MS = 1000;

/**
 * Subscribers' beats name the host set every this many beats, and the HOSTS_AFTER_CHANGE
 * beats after it changed. Each such beat goes alone (player-outbox.ts) with three ids: at
 * every 10th beat they were 8-10 kB/s of a crowd's primary (200 subscribers); a subscriber
 * also learns the set from each keepalive's SNAPSHOT (every keepaliveMs, 5 s).
 */
const HOSTS_EVERY = 50;
const HOSTS_AFTER_CHANGE = 3;
/**
 * Subscribers of a region outside a crowd hear every this many beats (300 ms) when the beat
 * says nothing new (no commit since, same host set, same idleness): a subscriber needs a beat
 * only to know its primary lives (it re-attaches after SILENCE_MS, 1200 ms, of silence) and,
 * from `s`, that it missed no delta. Every beat to every subscriber was a third of the frames
 * 8 players' tabs sent (25,129 of 68,370 in 30 s, bench/agents.ts --count 8), each a
 * main-thread task at the receiver. A crowd's beats ride its POSITIONS frames (fan-out-plan.ts).
 * Which beats: those of the node's rounds (beat-round.ts) that are a multiple of it, the same
 * for all its regions, so one frame carries them all; and, whatever the rounds did (a
 * starved tab skips ticks), never more than this many beats after the last.
 */
export const SUBSCRIBER_BEAT_EVERY = 3;

export class PrimaryHeartbeat {
  private readonly lastSync = new Map<string, number>();
  /** The host set the subscribers' last beat named, and how many beats named it since it changed. */
  private hostsSent = '';
  private hostsSentBeats = 0;
  private beats = 0;
  /** What the subscribers' last beat said: committed up to, idle. */
  private subsHeard = { s: -1, idle: false };
  /** A subscriber joined since the last beat listed them. */
  private newSubscriber = false;
  /** Our beat count at the last beat the subscribers heard. */
  private subsBeat = -Infinity;

  constructor(
    private readonly duty: DutyShared,
    private readonly machine: CommitMachine,
    private readonly hostCheck: HostSetCheck,
  ) {}

  /** Activity: if the region was idle, the backups hear a normal-rate beat at once. */
  wake(): void {
    const wasIdle = this.idle;
    this.lastActive = this.duty.ctx.clock.now();
    this.unloadBeats = 0;
    this.unloadAcks.clear();
    if (wasIdle) {
      this.lastBeat = -Infinity;
      this.heartbeat();
    }
  }

  /** Full state to a backup (new member, gap repair), then the unconfirmed batches. */
  syncBackup(id: NodeId, hex: string): void {
    if (!this.duty.backups().some((b) => idEquals(b, id))) return;
    this.duty.ctx.stats.syncs++;
    this.lastSync.set(hex, this.duty.ctx.clock.now());
    this.machine.lease.syncSent(hex, this.duty.ctx.clock.now());
    const hosts = this.duty.region.hosts;
    // A large state travels in pieces; the backup acks the last (no `more`).
    // Each piece signed (state-proofs.ts); the pieces and the batches after them leave
    // together once signed, behind any frames of ours still waiting for signatures.
    const parts = pieces(this.duty.region.state.all()).map((part) => encodeEntries(part));
    const e = this.duty.e, s = this.machine.committed, cert = this.duty.region.cert!, chain = this.duty.region.chain, reqs = this.duty.region.requests.export(MAX_STATE_REQS);
    const after = this.machine.batches.filter((b) => b.to > s);
    // The nodes we struck (unclaiming-hosts.ts): our backup claims after us, or is primary after us, and would name them again.
    const struck = this.duty.region.struckHosts();
    const silent = struck.length ? { silent: struck } : {};
    this.duty.proofs.run(parts.map((b) => ({ e, f: 0, t: s, b })), (sigs) => {
      parts.forEach((entries, i) => this.duty.ctx.wires.replicas.send(id, {
        t: 'SYNC', ...this.duty.regionFields, e, s, hosts, entries, cert, ...(chain ? { chain } : {}), ...(sigs[i] ? { sig: sigs[i] } : {}), ...(i === 0 ? { reqs, ...silent } : {}), ...(i < parts.length - 1 ? { more: true } : {}),
      }));
      for (const b of after) this.duty.ctx.wires.replicas.send(id, replicateFrame(this.duty.regionFields, e, hosts, b));
    });
  }

  /** Last subscriber, edit or move (start counts): an idle region beats slowly. */
  lastActive = 0;
  private lastBeat = -Infinity;
  /** The last beat told the backups we are idle. */
  private beatIdle = false;

  /** Beats that said `unload` since the region became that idle; the first one's number; the backups that acked one. */
  private unloadBeats = 0;
  private unloadFrom = 0;
  private readonly unloadAcks = new Set<string>();

  /**
   * Idle for unloadAfterMs and the backups told (each acked an `unload` beat, or three such
   * beats went out: a backup that missed them all claims after the silence, which costs a
   * claim, nothing more): our host may unload the region.
   */
  get unloadReady(): boolean {
    if (this.unloadBeats === 0) return false;
    return this.unloadBeats >= 3 || this.duty.backups().every((b) => this.unloadAcks.has(idToHex(b)));
  }

  /** A backup answered beat `b`. */
  acked(hex: string, b: number): void {
    if (this.unloadBeats > 0 && b >= this.unloadFrom) this.unloadAcks.add(hex);
  }

  /** No subscriber, nothing in flight, nothing done for `idleAfterMs`. */
  get idle(): boolean {
    const now = this.duty.ctx.clock.now();
    if (this.duty.subscribers.size > 0 || this.machine.batches.length > 0 || this.machine.queued > 0) this.lastActive = now;
    return now - this.lastActive >= this.duty.ctx.opts.idleAfterMs;
  }

  /** A subscriber joined: the next beat lists them all to the backups. */
  subscribersChanged(): void {
    this.newSubscriber = true;
  }

  heartbeat(): void {
    if (this.duty.stopped) return;
    const now = this.duty.ctx.clock.now();
    const o = this.duty.ctx.opts;
    // A region nobody watches or edits costs its hosts little: a beat every
    // idleHeartbeatMs instead of every heartbeatMs (the backups allow for it: `idle`).
    // The first idle beat goes out at once: until it arrives the backups expect the fast beat.
    const idle = this.idle;
    if (idle && this.beatIdle && now - this.lastBeat < o.idleHeartbeatMs) return;
    this.beatIdle = idle;
    this.lastBeat = now;
    const b = this.beats;
    this.machine.lease.beat(b, now);
    // Unloading needs a store to read the region back from (hosting-service.ts).
    const unload = idle && this.duty.ctx.store !== null && now - this.lastActive >= o.unloadAfterMs;
    if (!unload) {
      this.unloadBeats = 0;
      this.unloadAcks.clear();
    } else if (this.unloadBeats++ === 0) this.unloadFrom = b;
    const hb = { t: 'HEARTBEAT' as const, ...this.duty.regionFields, e: this.duty.e, s: this.machine.committed, hosts: this.duty.region.hosts, b, ...(idle ? { idle } : {}), ...(unload ? { unload } : {}) };
    // Backups learn our subscribers (every 4th beat, and at the next beat after a new one came),
    // so a successor can tell them at once.
    const listSubs = this.beats++ % 4 === 0 || this.newSubscriber;
    this.newSubscriber = false;
    const subs = listSubs ? [...this.duty.subscribers.values()].slice(0, MAX_SUBS_LISTED).map((s) => s.id) : undefined;
    for (const b of this.duty.backups()) {
      this.duty.ctx.stats.heartbeats++;
      this.duty.ctx.wires.replicas.send(b, subs ? { ...hb, subs } : hb);
      const hex = idToHex(b);
      const oldest = this.machine.batches[0];
      const behind = oldest && (this.machine.acked.get(hex) ?? 0) < oldest.to && now - oldest.at > RESYNC_MS;
      if (behind && now - (this.lastSync.get(hex) ?? -Infinity) > RESYNC_MS) this.syncBackup(b, hex);
    }
    // Subscribers get the beat without what only backups use (the lease's number, our
    // subscribers), and the host set only after it changed or every HOSTS_EVERY beats: three
    // ids were most of a beat, and a crowd's primary beats to hundreds of subscribers.
    const hostsKey = this.duty.region.hosts.map(idToHex).join();
    if (hostsKey !== this.hostsSent) this.hostsSentBeats = 0;
    this.hostsSent = hostsKey;
    const news = this.hostsSentBeats < HOSTS_AFTER_CHANGE || this.subsHeard.s !== this.machine.committed || this.subsHeard.idle !== idle;
    const due = this.duty.ctx.beatRound.n % SUBSCRIBER_BEAT_EVERY === 0 || b - this.subsBeat >= SUBSCRIBER_BEAT_EVERY;
    if (!this.duty.fanOut.shared && !news && !due) return this.afterBeat(now);
    this.subsHeard = { s: this.machine.committed, idle };
    this.subsBeat = b;
    const withHosts = this.hostsSentBeats < HOSTS_AFTER_CHANGE || b % HOSTS_EVERY === 0;
    if (withHosts) this.hostsSentBeats++;
    // In a crowd, the backups serving a share beat to theirs at this beat (fan-out-share.ts);
    // ours reaches them too every ALL_BEATS_EVERY-th beat: a relay that died costs its
    // subscribers no re-attach, and they see the deltas they missed (fan-out-plan.ts).
    // Held to the tick, to ride in the POSITIONS frame a subscriber gets then (player-outbox.ts).
    const all = b % ALL_BEATS_EVERY === 0;
    const to: [string, NodeId][] = [];
    for (const [hex, s] of this.duty.subscribers) {
      if (now - s.at > SUBSCRIBER_TTL_MS) this.duty.subscribers.delete(hex);
      else if (all || this.duty.fanOut.direct(hex, now)) to.push([hex, s.id]);
    }
    this.duty.outbox.beat(this.duty.e, this.machine.committed, to, now, { ...(withHosts ? { hosts: this.duty.region.hosts } : {}), ...(idle ? { idle } : {}) });
    // Only a crowd's beats wait for the tick: a few subscribers get no POSITIONS frame to ride in.
    if (!this.duty.fanOut.shared) this.duty.outbox.flush(this.duty.ctx.wires.players, now);
    this.afterBeat(now);
  }

  /** Our last beat of the epoch, to the backups: we stop ordering it, with no successor. */
  private sayReleased(): void {
    const hb = { t: 'HEARTBEAT' as const, ...this.duty.regionFields, e: this.duty.e, s: this.machine.committed, hosts: this.duty.region.hosts, release: true };
    for (const b of this.duty.backups()) this.duty.ctx.wires.replicas.send(b, hb);
  }

  /** Every beat, to subscribers or not: the lease's own check, the backups' quiet, old requests. */
  private afterBeat(now: number): void {
    // A zombie primary: cut off from every node, it kept the role for good,
    // a second primary beside its successor after healing (it never heard it was deposed).
    // Idle, not a backup: its backups claim; it does not contend with them. They hear so at
    // once (a beat saying `release`): waiting out our silence as a slow primary's cost a
    // starved world seconds without a primary (backup-machine.ts `released`).
    // Not right after a stall of our own: the answers that came while our tab slept (a
    // blocked or starved page) wait behind this beat in its task; judged before them, a
    // live set looked silent and a primary that only slept gave up its region
    // (e2e/throttled-host: 'no majority answered' as a 1.5 s block ended).
    const settled = this.duty.ctx.settled?.() ?? true;
    if (settled && this.machine.lease.unanswered(now)) {
      this.sayReleased();
      return this.duty.region.release('no majority answered', 'idle');
    }
    // Nor a backup taken for dead then (its answers wait behind this beat too).
    if (settled && !this.hostCheck.rechecking && this.duty.backups().some((b) => this.machine.lease.quiet(idToHex(b), now))) void this.hostCheck.fillFromLinks();
    this.duty.region.requests.prune(now);
  }
}
