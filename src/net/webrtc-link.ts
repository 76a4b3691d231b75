// A Link over one simple-peer data channel. Messages are cut into 16 KiB frames
// (frames.ts) and written with backpressure: simple-peer's stream write waits for
// `bufferedamountlow` once the channel holds more than 64 KiB (docs/TESTING.md: a big
// high-water mark made big transfers crawl), and we queue further frames until `drain`.
// Until the identity handshake succeeds, data frames from the peer are held back.
import type SimplePeer from '@thaunknown/simple-peer/lite.js';
import * as v from 'valibot';
import { realClock, type Clock } from '../core/clock';
import { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import { LinkClosedError, LinkMessageTooLargeError, MAX_LINK_MESSAGE, type Link, type LinkEvents } from './link';
import { controlFrame, FrameReader, splitMessage } from './frames';
import { ControlSchema, HandshakeError, type ControlMsg, type HandshakeIo } from './link-handshake';

/** Bad frames tolerated on one link before it is closed as broken. */
export const MAX_BAD_FRAMES = 8;

export interface LinkStats {
  messagesIn: number;
  messagesOut: number;
  bytesIn: number;
  bytesOut: number;
  badFrames: number;
}

export class WebRtcLink implements Link {
  readonly events = new Emitter<LinkEvents>();
  readonly stats: LinkStats = { messagesIn: 0, messagesOut: 0, bytesIn: 0, bytesOut: 0, badFrames: 0 };
  private state: 'handshake' | 'holding' | 'open' | 'closed' = 'handshake';
  private readonly reader: FrameReader;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private waitingDrain = false;
  private held: Uint8Array[] = [];
  private controlWaiters: Array<{ resolve: (m: ControlMsg) => void; reject: (e: Error) => void }> = [];
  private controlInbox: ControlMsg[] = [];

  constructor(
    private readonly peer: SimplePeer,
    readonly remoteId: NodeId,
    private readonly clock: Clock = realClock,
    maxMessage = MAX_LINK_MESSAGE,
  ) {
    this.reader = new FrameReader(maxMessage);
    peer.on('data', (d) => this.onFrame(d));
    peer.on('drain', () => {
      this.waitingDrain = false;
      this.pump();
    });
    peer.on('close', () => this.finish('remote closed'));
    peer.on('error', (e) => {
      if (this.state === 'closed') return;
      this.events.emit('error', e);
      this.finish(`error: ${e.message}`);
    });
  }

  get open(): boolean {
    return this.state === 'open' || this.state === 'holding';
  }

  /** True once closed (open is also false during the handshake). */
  get closed(): boolean {
    return this.state === 'closed';
  }

  get bufferedAmount(): number {
    return this.queuedBytes + (this.peer.destroyed ? 0 : this.peer.bufferSize);
  }

  send(data: Uint8Array): void {
    if (!this.open) throw new LinkClosedError();
    if (data.length > MAX_LINK_MESSAGE) throw new LinkMessageTooLargeError(data.length);
    this.stats.messagesOut++;
    this.stats.bytesOut += data.length;
    for (const f of splitMessage(data)) this.enqueue(f);
  }

  close(reason = 'closed'): void {
    if (this.state === 'closed') return;
    // Best effort: tell the peer why; the channel closing tells it anyway.
    try {
      if (!this.peer.destroyed) this.peer.send(controlFrame({ t: 'bye', reason: reason.slice(0, 200) }));
    } catch {
      /* channel already gone */
    }
    this.finish(reason);
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
    };
  }

  /**
   * Called once the peer proved its id. Held messages are delivered on the next timer
   * turn, after whoever receives the link has had the chance to subscribe.
   */
  activate(): void {
    if (this.state !== 'handshake') return;
    this.state = 'holding';
    this.clock.setTimeout(() => {
      if (this.state !== 'holding') return;
      this.state = 'open';
      const held = this.held;
      this.held = [];
      for (const m of held) {
        if (this.state !== 'open') break;
        this.events.emit('message', m);
      }
    }, 0);
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
      if (!this.peer.write(f)) this.waitingDrain = true;
    }
  }

  private onFrame(frame: Uint8Array): void {
    if (this.state === 'closed') return;
    const ev = this.reader.push(frame);
    switch (ev.kind) {
      case 'partial':
        return;
      case 'bad':
        return this.bad(ev.why);
      case 'control': {
        const parsed = v.safeParse(ControlSchema, ev.msg);
        if (!parsed.success) return this.bad('malformed control frame');
        const msg = parsed.output;
        if (msg.t === 'bye') return this.finish(`remote closed: ${msg.reason}`);
        if (this.state !== 'handshake') return this.bad('handshake message after handshake');
        const w = this.controlWaiters.shift();
        if (w) w.resolve(msg);
        else if (this.controlInbox.length < 4) this.controlInbox.push(msg);
        else this.bad('too many handshake messages');
        return;
      }
      case 'message':
        this.stats.messagesIn++;
        this.stats.bytesIn += ev.data.length;
        if (this.state === 'open') this.events.emit('message', ev.data);
        else if (this.held.length < 1024) this.held.push(ev.data);
        else this.bad('too many messages before the handshake finished');
    }
  }

  private bad(why: string): void {
    this.stats.badFrames++;
    if (this.stats.badFrames >= MAX_BAD_FRAMES) this.finish(`protocol violation: ${why}`);
  }

  private finish(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.held = [];
    for (const w of this.controlWaiters.splice(0)) w.reject(new HandshakeError(`link closed during handshake: ${reason}`));
    if (!this.peer.destroyed) this.peer.destroy();
    this.events.emit('close', { reason });
  }
}
