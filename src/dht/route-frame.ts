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
//  48  u8   auth: 0 unsigned, 1 Ed25519, 2 ECDSA P-256 (AUTH_FORMATS)
//  49  auth block, only when auth > 0: the source's raw public key (32 bytes for Ed25519,
//      65 for P-256) then its signature (64 bytes for both) over `signedRouteData`: the
//      fields no forwarder changes (id, ts, src, dst, body). Lengths follow from the auth byte.
//  ..  u32  ts: the source's wall clock in whole seconds when it sent the message (0: none).
//      The destination refuses a signed message older than its age bound, so a replay is
//      refused after it left the duplicate window too (overlay-router.ts, ReplayWindow).
//  ..  20 * trace length, then 20 * via length
//  ..  body: one encoded inner frame (>= 1 byte), to the end of the frame
//
// A forwarder only checks that the auth block fits; the destination verifies it
// (route-auth.ts). ttl, trace and via are not signed: forwarders change them.
import { CodecError } from '../core/codec';
import type { IdentityAlg } from '../core/identity';
import { ID_BYTES, type NodeId } from '../core/node-id';
import { Slab } from '../core/slab';
import { MAX_FRAME, MAX_IDS, MAX_TTL } from './messages';

export const ROUTE_TAG = 0xc1;
const frames = new Slab();
const HEADER = 9 + 2 * ID_BYTES;
const TS_BYTES = 4;

/** The auth byte of each signature algorithm and its key and signature lengths. */
export const AUTH_FORMATS: Record<IdentityAlg, { code: number; keyBytes: number; sigBytes: number }> = {
  Ed25519: { code: 1, keyBytes: 32, sigBytes: 64 },
  'ECDSA-P256': { code: 2, keyBytes: 65, sigBytes: 64 },
};
const ALG_OF_CODE: (IdentityAlg | undefined)[] = [undefined, 'Ed25519', 'ECDSA-P256'];

/** The source's signature of a routed message. */
export interface RouteAuth {
  alg: IdentityAlg;
  /** Raw public key; must hash to the envelope's src. */
  publicKey: Uint8Array;
  signature: Uint8Array;
}

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
  /** The source's wall clock in whole seconds when it sent the message (signed; absent or 0: none). */
  ts?: number;
  /** Signed by the source (absent: unsigned). Passed on untouched by forwarders. */
  auth?: RouteAuth;
}

const SIGN_CONTEXT = new TextEncoder().encode('voxel-populi route v1\0');

/**
 * The bytes a source signs: a context string, the algorithm's auth byte, id, ts, src, dst
 * and body, i.e. every field a forwarder may not change.
 */
export function signedRouteData(alg: IdentityAlg, env: Pick<RouteEnvelope, 'id' | 'ts' | 'src' | 'dst' | 'body'>): Uint8Array {
  const c = SIGN_CONTEXT.length;
  const out = new Uint8Array(c + 9 + 2 * ID_BYTES + env.body.length);
  out.set(SIGN_CONTEXT, 0);
  out[c] = AUTH_FORMATS[alg].code;
  const view = new DataView(out.buffer);
  view.setUint32(c + 1, env.id >>> 0);
  view.setUint32(c + 5, (env.ts ?? 0) >>> 0);
  out.set(env.src, c + 9);
  out.set(env.dst, c + 9 + ID_BYTES);
  out.set(env.body, c + 9 + 2 * ID_BYTES);
  return out;
}

/** Bytes of the encoded frame (for a size check before the envelope is complete). */
export function routeFrameSize(nIds: number, bodyBytes: number, auth: IdentityAlg | undefined): number {
  const a = auth ? AUTH_FORMATS[auth] : undefined;
  return HEADER + (a ? a.keyBytes + a.sigBytes : 0) + TS_BYTES + ID_BYTES * nIds + bodyBytes;
}

export function isRouteFrame(frame: Uint8Array): boolean {
  return frame.length > 0 && frame[0] === ROUTE_TAG;
}

/** Encodes an envelope; throws CodecError('oversized') past MAX_FRAME, ('invalid') on bad fields. */
export function encodeRoute(env: RouteEnvelope): Uint8Array {
  const { trace, via, body, auth } = env;
  if (trace.length > MAX_IDS || via.length > MAX_IDS) throw new CodecError('invalid', 'ROUTE trace or via too long');
  if (!Number.isInteger(env.ttl) || env.ttl < 0 || env.ttl > MAX_TTL) throw new CodecError('invalid', `ROUTE ttl ${env.ttl}`);
  const fmt = auth ? AUTH_FORMATS[auth.alg] : undefined;
  if (auth && (!fmt || auth.publicKey.length !== fmt.keyBytes || auth.signature.length !== fmt.sigBytes)) {
    throw new CodecError('invalid', 'ROUTE auth block of the wrong size');
  }
  const size = routeFrameSize(trace.length + via.length, body.length, auth?.alg);
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
  if (auth && fmt) {
    out[HEADER - 1] = fmt.code;
    out.set(auth.publicKey, at);
    out.set(auth.signature, at + fmt.keyBytes);
    at += fmt.keyBytes + fmt.sigBytes;
  } else out[HEADER - 1] = 0;
  const ts = (env.ts ?? 0) >>> 0;
  out[at] = ts >>> 24;
  out[at + 1] = (ts >>> 16) & 0xff;
  out[at + 2] = (ts >>> 8) & 0xff;
  out[at + 3] = ts & 0xff;
  at += TS_BYTES;
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
 * Reads and checks the header of a ROUTE frame. Ids, auth block and body are views into
 * `frame` (copy what you keep). Throws CodecError: 'oversized', 'malformed' (not a ROUTE
 * frame, truncated, no body) or 'invalid' (ttl, list length or auth byte out of range).
 * The signature is not checked here (forwarders do not; the destination does).
 */
export function readRoute(frame: Uint8Array): RouteEnvelope {
  if (frame.length > MAX_FRAME) throw new CodecError('oversized', `frame is ${frame.length} bytes (max ${MAX_FRAME})`);
  if (frame.length < HEADER || frame[0] !== ROUTE_TAG) throw new CodecError('malformed', 'not a ROUTE frame');
  const ttl = frame[5]!;
  const nTrace = frame[6]!;
  const nVia = frame[7]!;
  const code = frame[HEADER - 1]!;
  const alg = ALG_OF_CODE[code];
  if (ttl > MAX_TTL || nTrace > MAX_IDS || nVia > MAX_IDS || (code !== 0 && !alg)) throw new CodecError('invalid', 'ROUTE header out of range');
  const fmt = alg ? AUTH_FORMATS[alg] : undefined;
  const tsAt = HEADER + (fmt ? fmt.keyBytes + fmt.sigBytes : 0);
  const idsAt = tsAt + TS_BYTES;
  const bodyAt = idsAt + ID_BYTES * (nTrace + nVia);
  if (frame.length <= bodyAt) throw new CodecError('malformed', 'ROUTE frame truncated');
  const id = ((frame[1]! << 24) | (frame[2]! << 16) | (frame[3]! << 8) | frame[4]!) >>> 0;
  const idAt = (i: number) => frame.subarray(i, i + ID_BYTES);
  const trace: NodeId[] = [];
  const via: NodeId[] = [];
  for (let i = 0; i < nTrace; i++) trace.push(idAt(idsAt + i * ID_BYTES));
  for (let i = 0; i < nVia; i++) via.push(idAt(idsAt + (nTrace + i) * ID_BYTES));
  const ts = ((frame[tsAt]! << 24) | (frame[tsAt + 1]! << 16) | (frame[tsAt + 2]! << 8) | frame[tsAt + 3]!) >>> 0;
  const env: RouteEnvelope = { id, ttl, src: idAt(8), dst: idAt(8 + ID_BYTES), trace, via, body: frame.subarray(bodyAt) };
  if (ts !== 0) env.ts = ts;
  if (alg && fmt) {
    env.auth = {
      alg,
      publicKey: frame.subarray(HEADER, HEADER + fmt.keyBytes),
      signature: frame.subarray(HEADER + fmt.keyBytes, tsAt),
    };
  }
  return env;
}
