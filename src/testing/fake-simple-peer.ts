// A stand-in for one simple-peer connection, for driving the real WebRtcLink and
// WebRtcTransport without a WebRTC stack: what the remote end would write arrives through
// `deliver`, what we write is counted, and the channel drains only when `reading` (a peer
// that stopped reading keeps it full). Test files only.
import type SimplePeer from '@thaunknown/simple-peer/lite.js';
import type { SimplePeerOptions, SimplePeerSignal } from '@thaunknown/simple-peer/lite.js';

type Handler = (...args: never[]) => void;

export class FakeSimplePeer {
  destroyed = false;
  connected = false;
  /** Bytes in the channel not yet taken by the remote end. */
  bufferSize = 0;
  /** Whether the remote end reads (drains the channel). */
  reading = true;
  /** The channel's high-water mark: write() answers false above it (simple-peer: 64 KiB). */
  highWater = 64 * 1024;
  written = 0;
  readonly signals: SimplePeerSignal[] = [];
  /** Stands for the RTCPeerConnection underneath: a test dispatches its events (e.g. `icecandidateerror`). */
  readonly _pc = new EventTarget();
  private readonly handlers = new Map<string, Set<Handler>>();

  constructor(readonly opts: SimplePeerOptions = {}) {}

  /** As a SimplePeer, for the code under test. */
  get asPeer(): SimplePeer {
    return this as unknown as SimplePeer;
  }

  on(event: string, fn: Handler): this {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(fn);
    return this;
  }

  once(event: string, fn: Handler): this {
    const wrapped = ((...args: never[]) => {
      this.removeListener(event, wrapped);
      fn(...args);
    }) as Handler;
    return this.on(event, wrapped);
  }

  removeListener(event: string, fn: Handler): this {
    this.handlers.get(event)?.delete(fn);
    return this;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const fn of [...(this.handlers.get(event) ?? [])]) (fn as (...a: unknown[]) => void)(...args);
  }

  signal(data: SimplePeerSignal): void {
    if (this.destroyed) throw new Error('destroyed');
    this.signals.push(data);
  }

  write(chunk: Uint8Array): boolean {
    this.written += chunk.length;
    if (this.reading) return true;
    this.bufferSize += chunk.length;
    return this.bufferSize < this.highWater;
  }

  send(chunk: Uint8Array): void {
    this.write(chunk);
  }

  /** The remote end reads everything buffered. */
  drain(): void {
    this.bufferSize = 0;
    this.emit('drain');
  }

  /** A frame from the remote end. */
  deliver(frame: Uint8Array): void {
    if (!this.destroyed) this.emit('data', frame);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}
