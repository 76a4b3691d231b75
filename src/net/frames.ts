// Wire frames of a WebRTC link. A data-channel message above 16 KiB is not portable
// across browsers (docs/DESIGN.md), so a Link message is cut into frames of at most
// FRAME_BYTES; the channel is ordered and reliable, so reassembly is concatenation.
// Byte 0 is the frame kind; the rest is payload.
import { MAX_LINK_MESSAGE } from './link';

export const FRAME_BYTES = 16 * 1024;
export const FRAME_PAYLOAD = FRAME_BYTES - 1;

export const FrameKind = {
  /** A piece of a message; more follow. */
  More: 0,
  /** The last (or only) piece of a message. */
  End: 1,
  /** Handshake / control: UTF-8 JSON, one frame, schema-checked by the reader. */
  Control: 2,
  /**
   * Several whole messages in one frame: each a 2-byte big-endian length and its bytes.
   * Sent only to a peer that said in its hello it reads them (link-handshake.ts): a
   * data-channel send is a blocking call into the WebRTC thread, and a tab's many small
   * messages to one peer in one task (heartbeats and acks of every region it shares with
   * that peer, position relays) cost one call each otherwise.
   */
  Batch: 3,
  /**
   * Nothing: the kind byte alone, which the reader drops (no message, not bad). A transport
   * probe (transport-watch.ts) is one: the far browser's network thread acknowledges it
   * while its page may be too busy to read anything. Sent only to a peer that said in its
   * hello it reads them (link-handshake.ts): an older peer counts an unknown kind as bad.
   */
  Probe: 4,
} as const;

/** A Probe frame (FrameKind.Probe). */
export const probeFrame = (): Uint8Array => new Uint8Array([FrameKind.Probe]);

/** Bytes a message takes in a batch (its length prefix and itself). */
export const batchedSize = (message: Uint8Array): number => 2 + message.length;

/** One Batch frame of `messages` (their batched sizes sum to at most FRAME_PAYLOAD). */
export function batchFrame(messages: readonly Uint8Array[]): Uint8Array {
  const f = new Uint8Array(1 + messages.reduce((n, m) => n + batchedSize(m), 0));
  f[0] = FrameKind.Batch;
  let off = 1;
  for (const m of messages) {
    f[off] = m.length >> 8;
    f[off + 1] = m.length & 0xff;
    f.set(m, off + 2);
    off += batchedSize(m);
  }
  return f;
}

/** Splits one message into frames (an empty message is one End frame). */
export function splitMessage(data: Uint8Array): Uint8Array[] {
  const frames: Uint8Array[] = [];
  let off = 0;
  do {
    const n = Math.min(FRAME_PAYLOAD, data.length - off);
    const last = off + n >= data.length;
    const f = new Uint8Array(1 + n);
    f[0] = last ? FrameKind.End : FrameKind.More;
    f.set(data.subarray(off, off + n), 1);
    frames.push(f);
    off += n;
  } while (off < data.length);
  return frames;
}

export function controlFrame(msg: unknown): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(msg));
  if (body.length > FRAME_PAYLOAD) throw new RangeError('control frame too large');
  const f = new Uint8Array(1 + body.length);
  f[0] = FrameKind.Control;
  f.set(body, 1);
  return f;
}

export type FrameEvent =
  | { kind: 'message'; data: Uint8Array }
  | { kind: 'batch'; messages: Uint8Array[] }
  | { kind: 'control'; msg: unknown }
  | { kind: 'bad'; why: string }
  | { kind: 'partial' }
  | { kind: 'probe' };

/** Reassembles frames; rejects (and drops) frames that break the size rules. */
export class FrameReader {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** When true the rest of an oversized message is skipped up to its End frame. */
  private skipping = false;

  constructor(private readonly maxMessage = MAX_LINK_MESSAGE) {}

  push(frame: Uint8Array): FrameEvent {
    if (frame.length === 0) return { kind: 'bad', why: 'empty frame' };
    if (frame.length > FRAME_BYTES) return { kind: 'bad', why: 'frame too large' };
    const kind = frame[0]!;
    const body = frame.subarray(1);
    if (kind === FrameKind.Control) {
      try {
        return { kind: 'control', msg: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) };
      } catch {
        return { kind: 'bad', why: 'control frame is not JSON' };
      }
    }
    if (kind === FrameKind.Batch) return this.batch(body);
    // Carries nothing, so it cannot split a message: read as nothing wherever it comes.
    if (kind === FrameKind.Probe) return body.length === 0 ? { kind: 'probe' } : { kind: 'bad', why: 'malformed probe' };
    if (kind !== FrameKind.More && kind !== FrameKind.End) return { kind: 'bad', why: 'unknown frame kind' };
    if (this.skipping) {
      if (kind === FrameKind.End) this.skipping = false;
      return { kind: 'partial' };
    }
    if (this.size + body.length > this.maxMessage) {
      this.parts = [];
      this.size = 0;
      this.skipping = kind === FrameKind.More;
      return { kind: 'bad', why: 'message too large' };
    }
    if (kind === FrameKind.More) {
      this.parts.push(body.slice());
      this.size += body.length;
      return { kind: 'partial' };
    }
    let data: Uint8Array;
    if (this.parts.length === 0) data = body.slice();
    else {
      data = new Uint8Array(this.size + body.length);
      let off = 0;
      for (const p of this.parts) {
        data.set(p, off);
        off += p.length;
      }
      data.set(body, off);
    }
    this.parts = [];
    this.size = 0;
    return { kind: 'message', data };
  }

  /** A Batch frame's messages; bad if it splits a message or comes inside a fragmented one. */
  private batch(body: Uint8Array): FrameEvent {
    if (this.parts.length > 0 || this.skipping) return { kind: 'bad', why: 'batch inside a message' };
    const messages: Uint8Array[] = [];
    let off = 0;
    while (off < body.length) {
      if (off + 2 > body.length) return { kind: 'bad', why: 'malformed batch' };
      const n = (body[off]! << 8) | body[off + 1]!;
      if (off + 2 + n > body.length) return { kind: 'bad', why: 'malformed batch' };
      messages.push(body.slice(off + 2, off + 2 + n));
      off += 2 + n;
    }
    if (messages.length === 0) return { kind: 'bad', why: 'empty batch' };
    return { kind: 'batch', messages };
  }
}
