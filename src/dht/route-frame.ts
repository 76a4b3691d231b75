// The ROUTE envelope on the wire: a fixed binary header, then the inner frame untouched.
//
// Why not msgpack like every other DHT frame: a routed message crosses ~5 links in a
// 1,000-node overlay and ~8 at 10,000, and each forwarder used to decode the whole
// frame (body included), schema-check it and encode it again (~90 us a hop in the
// simulator). A forwarder needs only the header; the inner frame is decoded and
// schema-checked by the one node that consumes it (the destination), so a fixed layout
// lets a forwarder check the header alone and copy the body as bytes.
//
// Layout (big-endian):
//   0  u8   ROUTE_TAG (0xc1: the one byte msgpack never uses, so no codec frame starts with it)
//   1  u32  id (per-source sequence, with src the duplicate-suppression key)
//   5  u8   ttl (hops left, <= MAX_TTL)
//   6  u8   trace length (<= MAX_IDS)
//   7  u8   via length (<= MAX_IDS)
//   8  20   src
//  28  20   dst
//  48  20 * trace length, then 20 * via length
//  ..  body: one encoded inner frame (>= 1 byte), to the end of the frame
import { CodecError } from '../core/codec';
import { ID_BYTES, type NodeId } from '../core/node-id';
import { Slab } from '../core/slab';
import { MAX_FRAME, MAX_IDS, MAX_TTL } from './messages';

export const ROUTE_TAG = 0xc1;
const frames = new Slab();
const HEADER = 8 + 2 * ID_BYTES;

export interface RouteEnvelope {
  id: number;
  ttl: number;
  src: NodeId;
  dst: NodeId;
  /** Forwarders passed so far (the reply's reverse path). */
  trace: readonly NodeId[];
  /** Waypoints still ahead (a source route). */
  via: readonly NodeId[];
  /** The encoded inner frame, not decoded by forwarders. */
  body: Uint8Array;
}

export function isRouteFrame(frame: Uint8Array): boolean {
  return frame.length > 0 && frame[0] === ROUTE_TAG;
}

/** Encodes an envelope; throws CodecError('oversized') past MAX_FRAME, ('invalid') on bad fields. */
export function encodeRoute(env: RouteEnvelope): Uint8Array {
  const { trace, via, body } = env;
  if (trace.length > MAX_IDS || via.length > MAX_IDS) throw new CodecError('invalid', 'ROUTE trace or via too long');
  if (!Number.isInteger(env.ttl) || env.ttl < 0 || env.ttl > MAX_TTL) throw new CodecError('invalid', `ROUTE ttl ${env.ttl}`);
  const size = HEADER + ID_BYTES * (trace.length + via.length) + body.length;
  if (size > MAX_FRAME) throw new CodecError('oversized', `ROUTE frame is ${size} bytes (max ${MAX_FRAME})`);
  // Frames are short-lived: every link copies or splits what it sends.
  const out = frames.alloc(size);
  out[0] = ROUTE_TAG;
  const id = env.id >>> 0;
  out[1] = id >>> 24;
  out[2] = (id >>> 16) & 0xff;
  out[3] = (id >>> 8) & 0xff;
  out[4] = id & 0xff;
  out[5] = env.ttl;
  out[6] = trace.length;
  out[7] = via.length;
  out.set(env.src, 8);
  out.set(env.dst, 8 + ID_BYTES);
  let at = HEADER;
  for (const ids of [trace, via]) {
    for (const id of ids) {
      out.set(id, at);
      at += ID_BYTES;
    }
  }
  out.set(body, at);
  return out;
}

/**
 * Reads and checks the header of a ROUTE frame. Ids and body are views into `frame`
 * (copy what you keep). Throws CodecError: 'oversized', 'malformed' (not a ROUTE frame,
 * truncated, no body) or 'invalid' (ttl or list length out of range).
 */
export function readRoute(frame: Uint8Array): RouteEnvelope {
  if (frame.length > MAX_FRAME) throw new CodecError('oversized', `frame is ${frame.length} bytes (max ${MAX_FRAME})`);
  if (frame.length < HEADER || frame[0] !== ROUTE_TAG) throw new CodecError('malformed', 'not a ROUTE frame');
  const ttl = frame[5]!;
  const nTrace = frame[6]!;
  const nVia = frame[7]!;
  if (ttl > MAX_TTL || nTrace > MAX_IDS || nVia > MAX_IDS) throw new CodecError('invalid', 'ROUTE header out of range');
  const bodyAt = HEADER + ID_BYTES * (nTrace + nVia);
  if (frame.length <= bodyAt) throw new CodecError('malformed', 'ROUTE frame truncated');
  const id = ((frame[1]! << 24) | (frame[2]! << 16) | (frame[3]! << 8) | frame[4]!) >>> 0;
  const idAt = (i: number) => frame.subarray(i, i + ID_BYTES);
  const trace: NodeId[] = [];
  const via: NodeId[] = [];
  for (let i = 0; i < nTrace; i++) trace.push(idAt(HEADER + i * ID_BYTES));
  for (let i = 0; i < nVia; i++) via.push(idAt(HEADER + (nTrace + i) * ID_BYTES));
  return { id, ttl, src: idAt(8), dst: idAt(8 + ID_BYTES), trace, via, body: frame.subarray(bodyAt) };
}
