// A Link over one simple-peer data channel. Messages are cut into 16 KiB frames
// (frames.ts) and written with backpressure: simple-peer's stream write waits for
// `bufferedamountlow` once the channel holds more than 64 KiB (docs/TESTING.md: a big
// high-water mark made big transfers crawl), and we queue further frames until `drain`.
// Until the identity handshake succeeds, data frames from the peer are held back. Small
// messages of one task leave as one Batch frame; those nobody waits on (`mayWait`) may wait
// up to LINK_WAIT_MS for company, each frame being a blocking call into the WebRTC thread.
import type SimplePeer from '@thaunknown/simple-peer/lite.js';
import * as v from 'valibot';
import { every, realClock, type Clock, type TimerHandle } from '../core/clock';
import { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import { CHANNEL_CLOSED, CLOSED, connectionError, PATH_DEAD, protocolViolation, remoteClosed, stoppedReading } from './close-reasons';
import { LinkClosedError, LinkMessageTooLargeError, MAX_LINK_MESSAGE, type Link, type LinkEvents } from './link';
import { batchedSize, batchFrame, controlFrame, FRAME_PAYLOAD, FrameReader, probeFrame, splitMessage } from './frames';
import { ByeSchema, ControlSchema, HandshakeError, type ControlMsg, type HandshakeIo } from './link-handshake';
import { selectedPath, type LinkPath } from './link-path';
import { connectionCounters, PathWatch } from './path-watch';
import { TRANSPORT_POLL_MS, TransportWatch, type TransportProbe, type TransportUnanswered } from './transport-watch';

/** Bad frames tolerated on one link before it is closed as broken. */
export const MAX_BAD_FRAMES = 8;
/**
 * Bytes queued for a peer that does not read (its channel stays above the high-water mark,
 * no `drain`) before the link is closed: sixteen of the largest transfers an honest peer
 * makes at once (a 2 MiB region snapshot), far above what a reading peer leaves queued.
 */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/** A queue that has not moved (no `drain`) for this long belongs to a peer that stopped reading: the link is closed. */
export const STALL_MS = 20_000;
/** Messages (and bytes) from the peer held back until our side of the handshake is done. */
export const MAX_HELD_MESSAGES = 1024;
export const MAX_HELD_BYTES = 1024 * 1024;
/**
 * The path watch (path-watch.ts, on where `pathDeadMs` is given) looks at a link this often,
 * and reads its connection's counters only while no frame came for this long and we sent
 * since: a link that carries frames, or to which we owe nothing, costs no stats call.
 */
export const PATH_WATCH_MS = 500;
/** What we sent is due an answer (an SCTP acknowledgement, from the far browser's network thread) within this. */
export const PATH_ACK_DUE_MS = 1000;
/**
 * Longest a message sent with `mayWait` (a beat, a position: nobody waits on it) is held for
 * company before its frame is written. Each frame is a blocking call into the browser's
 * WebRTC thread (~0.6 ms of the main thread quiet, ~1.7 ms on a loaded machine; the largest
 * named cost of a bot in the 8-bot world), and most frames carried one message. Why 25 ms:
 * a subscriber re-attaches after SILENCE_MS (1,200 ms) of silence and hears a beat every
 * 300 ms; a backup's silence allowance is failoverMs (600 ms) or more (primary-pace.ts), its
 * primary beating every heartbeatMs (100 ms); the primary's lease needs a beat's ack back
 * within leaseMs (290 ms) of the beat, one beat period later at most: 25 ms is under a tenth
 * of every one of those margins, and half a 20 Hz positions tick, so two positions to one
 * peer never share a frame (the remote player's motion keeps its rate). What a player waits
 * on (an edit, its confirmation, a delta, a claim) is sent without `mayWait` and takes
 * whatever waits with it at the end of its task.
 */
export const LINK_WAIT_MS = 25;

/**
 * Runs `fn` once the current task and every microtask it queued are done: a message sent
 * after an await in the same task (a signature, a store write) still joins the batch, and
 * the batch leaves before any timer or network event runs. Node: setImmediate; a page (or
 * worker): a MessageChannel message, a new task without setTimeout's clamping.
 */
const afterTask: (fn: () => void) => void = (() => {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
  if (typeof g.setImmediate === 'function') return (fn: () => void) => void g.setImmediate!(fn);
  if (typeof MessageChannel === 'function') {
    const waiting: (() => void)[] = [];
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      for (const fn of waiting.splice(0)) fn();
    };
    return (fn: () => void) => {
      if (waiting.push(fn) === 1) ch.port2.postMessage(0);
    };
  }
  return (fn: () => void) => void setTimeout(fn, 0);
})();

/** Which task this is (counted in tasks that sent on a link): a batch's messages from several tasks are writes the wait saved. */
let task = 0;
let taskMarked = false;
function currentTask(): number {
  if (!taskMarked) {
    taskMarked = true;
    afterTask(() => {
      taskMarked = false;
      task++;
    });
  }
  return task;
}

/**
 * This page's WebRTC links together (window.voxel.net.stats() `link_*`): messages sent,
 * frames written (each a blocking send into the WebRTC thread) and Batch frames among them;
 * messages sent that could wait (`mayWait`), frames written because a wait ran out
 * (LINK_WAIT_MS passed with nothing urgent sent), and writes the waits saved (a frame that
 * carried messages of n tasks saved n - 1: each task's would have left alone); transport
 * watches begun, probes sent, readings that heard the far end, and proofs that a probe went
 * unanswered (transport-watch.ts).
 */
export const LINK_FRAME_TOTALS = { framesOut: 0, batchesOut: 0, messagesOut: 0, waitedOut: 0, waitsRunOut: 0, waitSaved: 0, transportWatches: 0, transportProbes: 0, transportHeard: 0, transportUnanswered: 0 };

export interface WebRtcLinkOptions {
  clock?: Clock;
  maxMessage?: number;
  /** Default MAX_QUEUED_BYTES. */
  maxQueuedBytes?: number;
  /** Default STALL_MS. */
  stallMs?: number;
  /** Called once if the link is closed because the peer stopped reading. */
  onStalled?: () => void;
  /**
   * Close the link (PATH_DEAD) when its connection received nothing at all for this long
   * while what we sent went unanswered (path-watch.ts); undefined: no watch (a runtime whose
   * byte counters may not count acknowledgements: node-datachannel's count data only).
   */
  pathDeadMs?: number;
  /** Called once if the link is closed because its path died. */
  onPathDead?: () => void;
}

export interface LinkStats {
  messagesIn: number;
  messagesOut: number;
  bytesIn: number;
  bytesOut: number;
  badFrames: number;
  /** badFrames by reason. */
  badBy: Record<string, number>;
  /** Frames written to the channel (each a blocking send), and Batch frames among them. */
  framesOut: number;
  batchesOut: number;
}

/**
 * A transport probe (transport-watch.ts): a Probe frame, the kind byte alone, which the peer's
 * reader drops without a message or a bad frame. Not an empty Batch frame: a reader counts
 * that bad, and MAX_BAD_FRAMES of them (1.6 s of probes) closed the very link being watched.
 */
const PROBE_FRAME = probeFrame();

export class WebRtcLink implements Link, TransportProbe {
  readonly events = new Emitter<LinkEvents>();
  readonly stats: LinkStats = { messagesIn: 0, messagesOut: 0, bytesIn: 0, bytesOut: 0, badFrames: 0, badBy: {}, framesOut: 0, batchesOut: 0 };
  /** The peer reads Batch frames (it said so in its hello): small messages of one task go as one frame. */
  private batching = false;
  /** The peer reads Probe frames (it said so in its hello): its link can be watched at the transport. */
  private probes = false;
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private flushQueued = false;
  /** The task of the batch's newest message. */
  private batchTask = -1;
  /** Set while only messages that may wait are batched: the batch leaves by LINK_WAIT_MS at the latest. */
  private waitTimer: TimerHandle | undefined;
  private state: 'handshake' | 'holding' | 'open' | 'closed' = 'handshake';
  private readonly reader: FrameReader;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private waitingDrain = false;
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private readonly clock: Clock;
  private readonly maxQueuedBytes: number;
  /** Set while frames wait for a `drain` that has not come. */
  private stallTimer: TimerHandle | undefined;
  private controlWaiters: Array<{ resolve: (m: ControlMsg) => void; reject: (e: Error) => void }> = [];
  private controlInbox: ControlMsg[] = [];
  private readonly watch: PathWatch | undefined;
  private stopWatch: (() => void) | undefined;
  private lastFrameAt = -Infinity;
  private lastSentAt = -Infinity;
  private lastTick = 0;
  private statsPending = false;
  /** Where the path is watched (a browser's counters count acknowledgements), the transport can be too. */
  private readonly transport: TransportWatch | undefined;
  private stopTransport: (() => void) | undefined;
  private transportPending = false;
  /** Set while the closed link's connection lingers (close's `lingerMs`). */
  private lingerTimer: TimerHandle | undefined;

  constructor(
    private readonly peer: SimplePeer,
    readonly remoteId: NodeId,
    private readonly options: WebRtcLinkOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
    this.reader = new FrameReader(options.maxMessage ?? MAX_LINK_MESSAGE);
    if (options.pathDeadMs !== undefined) {
      this.watch = new PathWatch({ deadMs: options.pathDeadMs, ackDueMs: PATH_ACK_DUE_MS, maxGapMs: 3 * PATH_WATCH_MS });
      this.transport = new TransportWatch();
    }
    peer.on('data', (d) => this.onFrame(d));
    peer.on('drain', () => {
      this.waitingDrain = false;
      this.clearStall();
      this.pump();
    });
    peer.on('close', () => this.finish(CHANNEL_CLOSED));
    peer.on('error', (e) => {
      if (this.state === 'closed') return;
      this.events.emit('error', e);
      this.finish(connectionError(e.message));
    });
  }

  get open(): boolean {
    return this.state === 'open' || this.state === 'holding';
  }

  /** True once closed (open is also false during the handshake). */
  get closed(): boolean {
    return this.state === 'closed';
  }

  /** The selected ICE candidate pair (link-path.ts); undefined when closed or the runtime gives no stats. */
  path(): Promise<LinkPath | undefined> {
    if (this.peer.destroyed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      try {
        this.peer.getStats((err, reports) => resolve(err ? undefined : selectedPath(reports)));
      } catch {
        resolve(undefined); // closed meanwhile, or a runtime whose connection has no getStats
      }
    });
  }

  get bufferedAmount(): number {
    return this.queuedBytes + this.batchBytes + (this.peer.destroyed ? 0 : this.peer.bufferSize);
  }

  /** From now on small messages sent in one task travel as one Batch frame (the peer reads them). */
  enableBatching(): void {
    this.batching = true;
  }

  /** The peer reads Probe frames: from now on the link can be watched at the transport (watchTransport). */
  enableProbes(): void {
    this.probes = true;
  }

  send(data: Uint8Array, mayWait = false): void {
    if (!this.open) throw new LinkClosedError();
    if (data.length > MAX_LINK_MESSAGE) throw new LinkMessageTooLargeError(data.length);
    this.stats.messagesOut++;
    LINK_FRAME_TOTALS.messagesOut++;
    this.stats.bytesOut += data.length;
    if (this.batching && batchedSize(data) <= FRAME_PAYLOAD) {
      if (this.batchBytes + batchedSize(data) > FRAME_PAYLOAD) this.flushBatch();
      // A copy: the sender's buffer is its own again once send returns.
      this.batch.push(data.slice());
      this.batchBytes += batchedSize(data);
      const t = currentTask();
      if (this.batch.length > 1 && t !== this.batchTask) LINK_FRAME_TOTALS.waitSaved++;
      this.batchTask = t;
      if (!mayWait) this.flushAfterTask();
      else {
        LINK_FRAME_TOTALS.waitedOut++;
        if (!this.flushQueued && this.waitTimer === undefined) {
          this.waitTimer = this.clock.setTimeout(() => {
            this.waitTimer = undefined;
            LINK_FRAME_TOTALS.waitsRunOut++;
            this.flushBatch();
          }, LINK_WAIT_MS);
        }
      }
      return;
    }
    this.flushBatch(); // in order: what was batched goes first
    for (const f of splitMessage(data)) this.enqueue(f);
    this.checkQueue();
  }

  /** The batch leaves once this task and its microtasks are done, with whatever waited in it. */
  private flushAfterTask(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    afterTask(() => {
      this.flushQueued = false;
      this.flushBatch();
    });
  }

  private flushBatch(): void {
    this.clearWait();
    if (this.batch.length === 0 || this.state === 'closed') return;
    const messages = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    if (messages.length === 1) this.enqueue(splitMessage(messages[0]!)[0]!);
    else {
      this.stats.batchesOut++;
      LINK_FRAME_TOTALS.batchesOut++;
      this.enqueue(batchFrame(messages));
    }
    this.checkQueue();
  }

  /**
   * The peer stopped reading (or reads slower than we must send): holding more for it
   * would grow without bound, so the link goes, as a dead one would.
   */
  private checkQueue(): void {
    if (this.queuedBytes > this.maxQueuedBytes) this.stalled('send queue full');
  }

  private stalled(why: string): void {
    if (this.state === 'closed') return;
    this.options.onStalled?.();
    this.finish(stoppedReading(why));
  }

  private clearWait(): void {
    if (this.waitTimer === undefined) return;
    this.clock.clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
  }

  private clearStall(): void {
    if (this.stallTimer === undefined) return;
    this.clock.clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  /**
   * Closes the link: what was batched, then a 'bye' saying why, then the connection.
   * `lingerMs`: the connection is kept that long after the 'bye' unless the far end closes
   * it first, so what we sent last reaches it (node-datachannel drops what was sent just
   * before its connection is closed: node-datachannel #188, #375). The link itself is closed
   * at once either way: nothing more is read or sent.
   */
  close(reason = CLOSED, lingerMs = 0): void {
    if (this.state === 'closed') return;
    // Best effort: what was batched, then why; the channel closing tells it anyway.
    this.flushBatch();
    try {
      if (!this.peer.destroyed) this.peer.send(controlFrame({ t: 'bye', reason: reason.slice(0, 200) }));
    } catch {
      /* channel already gone */
    }
    this.finish(reason, lingerMs);
  }

  /** True while the link is closed and its connection lingers (close's `lingerMs`). */
  get lingering(): boolean {
    return this.lingerTimer !== undefined;
  }

  /** Ends a lingering connection now (the far end closed it or said 'bye', the time is up, or our transport closes). */
  endLinger(): void {
    if (this.lingerTimer === undefined) return;
    this.clock.clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    if (!this.peer.destroyed) this.peer.destroy();
  }

  /** Handshake I/O over control frames (used by the transport before activate()). */
  handshakeIo(): HandshakeIo {
    return {
      send: (msg) => this.enqueue(controlFrame(msg)),
      next: () => {
        const m = this.controlInbox.shift();
        if (m) return Promise.resolve(m);
        if (this.state === 'closed') return Promise.reject(new HandshakeError('link closed during handshake'));
        return new Promise((resolve, reject) => this.controlWaiters.push({ resolve, reject }));
      },
      open: () => this.state !== 'closed',
    };
  }

  /**
   * Called once the peer proved its id. Held messages are delivered on the next timer
   * turn, after whoever receives the link has had the chance to subscribe.
   */
  activate(): void {
    if (this.state !== 'handshake') return;
    this.state = 'holding';
    if (this.watch) {
      this.lastTick = this.clock.now();
      this.stopWatch = every(this.clock, PATH_WATCH_MS, () => this.watchPath());
    }
    this.clock.setTimeout(() => {
      if (this.state !== 'holding') return;
      this.state = 'open';
      const held = this.held;
      this.held = [];
      this.heldBytes = 0;
      for (const m of held) {
        if (this.state !== 'open') break;
        this.events.emit('message', m);
      }
    }, 0);
  }

  /**
   * One look of the path watch. A link that heard a frame lately, or owes nothing (we sent
   * nothing since the last frame came), is not looked into; a tick that came late (this tab
   * starved or suspended) restarts the watch, since the silence may be ours.
   */
  private watchPath(): void {
    const watch = this.watch!;
    const now = this.clock.now();
    const late = now - this.lastTick > 3 * PATH_WATCH_MS;
    this.lastTick = now;
    if (late || now - this.lastFrameAt < PATH_WATCH_MS || this.lastSentAt <= this.lastFrameAt) {
      watch.reset();
      if (late) watch.heard(now);
      return;
    }
    if (this.statsPending || this.peer.destroyed) return;
    this.statsPending = true;
    try {
      this.peer.getStats((err, reports) => {
        this.statsPending = false;
        if (err || this.state === 'closed') return;
        const bytes = connectionCounters(reports);
        if (bytes && watch.sample(this.clock.now(), bytes.bytesIn, bytes.bytesOut)) {
          this.options.onPathDead?.();
          this.finish(PATH_DEAD);
        }
      });
    } catch {
      this.statsPending = false; // closed meanwhile, or a runtime whose connection has no getStats
    }
  }

  /** Probes the far end and reads the connection's counters until `untilMs` (transport-watch.ts); only to a peer that reads Probe frames. */
  watchTransport(untilMs: number): boolean {
    if (!this.transport || !this.probes || this.state !== 'open') return false;
    if (!this.transport.extend(this.clock.now(), untilMs)) return true;
    this.stopTransport?.(); // an ended watch whose timer had not ticked yet
    LINK_FRAME_TOTALS.transportWatches++;
    this.stopTransport = every(this.clock, TRANSPORT_POLL_MS, () => this.readTransport());
    this.readTransport();
    return true;
  }

  transportHeardAt(): number | undefined {
    return this.transport?.heardAt;
  }

  transportUnanswered(): TransportUnanswered | undefined {
    return this.transport?.unanswered;
  }

  private readTransport(): void {
    const step = this.transport!.tick(this.clock.now());
    if (step === 'stop' || this.state === 'closed') {
      this.stopTransport?.();
      this.stopTransport = undefined;
      return;
    }
    // Behind whatever is queued, never inside a message (a message's frames are queued together).
    if (step === 'probe') {
      LINK_FRAME_TOTALS.transportProbes++;
      this.enqueue(PROBE_FRAME);
    }
    if (this.transportPending || this.peer.destroyed) return;
    this.transportPending = true;
    const askedAt = this.clock.now();
    try {
      this.peer.getStats((err, reports) => {
        this.transportPending = false;
        const bytes = err || this.state === 'closed' ? undefined : connectionCounters(reports);
        if (!bytes) return;
        const { heardAt, unanswered } = this.transport!;
        if (this.transport!.sample(this.clock.now(), bytes.bytesIn, askedAt)) {
          LINK_FRAME_TOTALS.transportProbes++;
          this.enqueue(PROBE_FRAME);
        }
        if (this.transport!.heardAt !== heardAt) LINK_FRAME_TOTALS.transportHeard++;
        if (this.transport!.unanswered && !unanswered) LINK_FRAME_TOTALS.transportUnanswered++;
      });
    } catch {
      this.transportPending = false; // closed meanwhile
    }
  }

  private enqueue(frame: Uint8Array): void {
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    this.pump();
  }

  private pump(): void {
    while (!this.waitingDrain && this.queue.length > 0 && this.state !== 'closed' && !this.peer.destroyed) {
      const f = this.queue.shift()!;
      this.queuedBytes -= f.length;
      this.stats.framesOut++;
      LINK_FRAME_TOTALS.framesOut++;
      this.lastSentAt = this.clock.now();
      if (!this.peer.write(f)) this.waitingDrain = true;
    }
    if (this.waitingDrain && this.stallTimer === undefined && this.state !== 'closed') {
      this.stallTimer = this.clock.setTimeout(() => this.stalled('no drain'), this.options.stallMs ?? STALL_MS);
    }
  }

  private onFrame(frame: Uint8Array): void {
    if (this.state === 'closed') {
      // The far end's 'bye' while we linger: it read what we sent (it refused in its turn).
      if (this.lingering) {
        const ev = this.reader.push(frame);
        if (ev.kind === 'control' && v.is(ByeSchema, ev.msg)) this.endLinger();
      }
      return;
    }
    if (this.watch) {
      this.lastFrameAt = this.clock.now();
      this.watch.heard(this.lastFrameAt);
    }
    const ev = this.reader.push(frame);
    switch (ev.kind) {
      case 'partial':
      case 'probe': // a transport probe: its arrival was the point, acknowledged below us
        return;
      case 'bad':
        return this.bad(ev.why);
      case 'control': {
        const parsed = v.safeParse(ControlSchema, ev.msg);
        if (!parsed.success) return this.bad('malformed control frame');
        const msg = parsed.output;
        if (msg.t === 'bye') return this.finish(remoteClosed(msg.reason));
        if (this.state !== 'handshake') return this.bad('handshake message after handshake');
        const w = this.controlWaiters.shift();
        if (w) w.resolve(msg);
        else if (this.controlInbox.length < 4) this.controlInbox.push(msg);
        else this.bad('too many handshake messages');
        return;
      }
      case 'message':
        return this.deliver(ev.data);
      case 'batch':
        // A handler may close the link on the way (a bad message): the rest is dropped.
        for (const m of ev.messages) {
          if (this.closed) return;
          this.deliver(m);
        }
    }
  }

  private deliver(data: Uint8Array): void {
    this.stats.messagesIn++;
    this.stats.bytesIn += data.length;
    if (this.state === 'open') this.events.emit('message', data);
    else if (this.held.length < MAX_HELD_MESSAGES && this.heldBytes + data.length <= MAX_HELD_BYTES) {
      this.held.push(data);
      this.heldBytes += data.length;
    } else this.bad('too many messages before the handshake finished');
  }

  private bad(why: string): void {
    this.stats.badFrames++;
    this.stats.badBy[why] = (this.stats.badBy[why] ?? 0) + 1;
    if (this.stats.badFrames >= MAX_BAD_FRAMES) this.finish(protocolViolation(why));
  }

  private finish(reason: string, lingerMs = 0): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.batch = [];
    this.batchBytes = 0;
    this.clearWait();
    this.clearStall();
    this.stopWatch?.();
    this.stopWatch = undefined;
    this.stopTransport?.();
    this.stopTransport = undefined;
    this.held = [];
    this.heldBytes = 0;
    for (const w of this.controlWaiters.splice(0)) w.reject(new HandshakeError(`link closed during handshake: ${reason}`));
    if (lingerMs > 0 && !this.peer.destroyed) {
      this.lingerTimer = this.clock.setTimeout(() => this.endLinger(), lingerMs);
      this.peer.once('close', () => this.endLinger());
    } else if (!this.peer.destroyed) this.peer.destroy();
    this.events.emit('close', { reason });
  }
}
