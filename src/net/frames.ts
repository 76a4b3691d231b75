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
} as const;

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
  | { kind: 'control'; msg: unknown }
  | { kind: 'bad'; why: string }
  | { kind: 'partial' };

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
}
