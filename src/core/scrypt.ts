// scrypt (RFC 7914) in plain code, synchronously, for the node id (node-id-derivation.ts):
// a tab derives a peer's id from its public key once per key it meets, and WebCrypto has no
// scrypt. A memory-hard hash: each call fills N * r * 128 bytes and reads them back in an
// order it cannot know ahead, so a grinder pays memory traffic per key, not a few ALU
// cycles. p = 1 only (the node id asks no more). Checked against node:crypto's scrypt in
// scrypt.test.ts.
import { sha256Sync } from './sha256-sync';

const BLOCK = 64;

/** HMAC-SHA-256 (RFC 2104) of `msg` under `key`. */
function hmacSha256(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const k = new Uint8Array(BLOCK);
  k.set(key.length > BLOCK ? sha256Sync(key) : key);
  const inner = new Uint8Array(BLOCK + msg.length);
  for (let i = 0; i < BLOCK; i++) inner[i] = k[i]! ^ 0x36;
  inner.set(msg, BLOCK);
  const outer = new Uint8Array(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) outer[i] = k[i]! ^ 0x5c;
  outer.set(sha256Sync(inner), BLOCK);
  return sha256Sync(outer);
}

/** PBKDF2-HMAC-SHA-256 with one iteration (all scrypt asks), `len` bytes. */
function pbkdf2Once(password: Uint8Array, salt: Uint8Array, len: number): Uint8Array {
  const out = new Uint8Array(len);
  const msg = new Uint8Array(salt.length + 4);
  msg.set(salt);
  for (let i = 1, at = 0; at < len; i++, at += 32) {
    msg[salt.length] = i >>> 24; msg[salt.length + 1] = (i >>> 16) & 255; msg[salt.length + 2] = (i >>> 8) & 255; msg[salt.length + 3] = i & 255;
    const t = hmacSha256(password, msg);
    out.set(t.subarray(0, Math.min(32, len - at)), at);
  }
  return out;
}

/** Salsa20/8 of the 16 words at `a[ai..]` xor `x[xi..]` xor `y[yi..]`, written to `o[oi..]`. */
function salsaXor(a: Uint32Array, ai: number, x: Uint32Array, xi: number, y: Uint32Array, yi: number, o: Uint32Array, oi: number): void {
  const j0 = a[ai]! ^ x[xi]! ^ y[yi]!, j1 = a[ai + 1]! ^ x[xi + 1]! ^ y[yi + 1]!, j2 = a[ai + 2]! ^ x[xi + 2]! ^ y[yi + 2]!, j3 = a[ai + 3]! ^ x[xi + 3]! ^ y[yi + 3]!;
  const j4 = a[ai + 4]! ^ x[xi + 4]! ^ y[yi + 4]!, j5 = a[ai + 5]! ^ x[xi + 5]! ^ y[yi + 5]!, j6 = a[ai + 6]! ^ x[xi + 6]! ^ y[yi + 6]!, j7 = a[ai + 7]! ^ x[xi + 7]! ^ y[yi + 7]!;
  const j8 = a[ai + 8]! ^ x[xi + 8]! ^ y[yi + 8]!, j9 = a[ai + 9]! ^ x[xi + 9]! ^ y[yi + 9]!, j10 = a[ai + 10]! ^ x[xi + 10]! ^ y[yi + 10]!, j11 = a[ai + 11]! ^ x[xi + 11]! ^ y[yi + 11]!;
  const j12 = a[ai + 12]! ^ x[xi + 12]! ^ y[yi + 12]!, j13 = a[ai + 13]! ^ x[xi + 13]! ^ y[yi + 13]!, j14 = a[ai + 14]! ^ x[xi + 14]! ^ y[yi + 14]!, j15 = a[ai + 15]! ^ x[xi + 15]! ^ y[yi + 15]!;
  let x0 = j0, x1 = j1, x2 = j2, x3 = j3, x4 = j4, x5 = j5, x6 = j6, x7 = j7;
  let x8 = j8, x9 = j9, x10 = j10, x11 = j11, x12 = j12, x13 = j13, x14 = j14, x15 = j15;
  for (let i = 0; i < 8; i += 2) {
    let t = (x0 + x12) | 0; x4 ^= (t << 7) | (t >>> 25);
    t = (x4 + x0) | 0; x8 ^= (t << 9) | (t >>> 23);
    t = (x8 + x4) | 0; x12 ^= (t << 13) | (t >>> 19);
    t = (x12 + x8) | 0; x0 ^= (t << 18) | (t >>> 14);
    t = (x5 + x1) | 0; x9 ^= (t << 7) | (t >>> 25);
    t = (x9 + x5) | 0; x13 ^= (t << 9) | (t >>> 23);
    t = (x13 + x9) | 0; x1 ^= (t << 13) | (t >>> 19);
    t = (x1 + x13) | 0; x5 ^= (t << 18) | (t >>> 14);
    t = (x10 + x6) | 0; x14 ^= (t << 7) | (t >>> 25);
    t = (x14 + x10) | 0; x2 ^= (t << 9) | (t >>> 23);
    t = (x2 + x14) | 0; x6 ^= (t << 13) | (t >>> 19);
    t = (x6 + x2) | 0; x10 ^= (t << 18) | (t >>> 14);
    t = (x15 + x11) | 0; x3 ^= (t << 7) | (t >>> 25);
    t = (x3 + x15) | 0; x7 ^= (t << 9) | (t >>> 23);
    t = (x7 + x3) | 0; x11 ^= (t << 13) | (t >>> 19);
    t = (x11 + x7) | 0; x15 ^= (t << 18) | (t >>> 14);
    t = (x0 + x3) | 0; x1 ^= (t << 7) | (t >>> 25);
    t = (x1 + x0) | 0; x2 ^= (t << 9) | (t >>> 23);
    t = (x2 + x1) | 0; x3 ^= (t << 13) | (t >>> 19);
    t = (x3 + x2) | 0; x0 ^= (t << 18) | (t >>> 14);
    t = (x5 + x4) | 0; x6 ^= (t << 7) | (t >>> 25);
    t = (x6 + x5) | 0; x7 ^= (t << 9) | (t >>> 23);
    t = (x7 + x6) | 0; x4 ^= (t << 13) | (t >>> 19);
    t = (x4 + x7) | 0; x5 ^= (t << 18) | (t >>> 14);
    t = (x10 + x9) | 0; x11 ^= (t << 7) | (t >>> 25);
    t = (x11 + x10) | 0; x8 ^= (t << 9) | (t >>> 23);
    t = (x8 + x11) | 0; x9 ^= (t << 13) | (t >>> 19);
    t = (x9 + x8) | 0; x10 ^= (t << 18) | (t >>> 14);
    t = (x15 + x14) | 0; x12 ^= (t << 7) | (t >>> 25);
    t = (x12 + x15) | 0; x13 ^= (t << 9) | (t >>> 23);
    t = (x13 + x12) | 0; x14 ^= (t << 13) | (t >>> 19);
    t = (x14 + x13) | 0; x15 ^= (t << 18) | (t >>> 14);
  }
  o[oi] = (j0 + x0) | 0; o[oi + 1] = (j1 + x1) | 0; o[oi + 2] = (j2 + x2) | 0; o[oi + 3] = (j3 + x3) | 0;
  o[oi + 4] = (j4 + x4) | 0; o[oi + 5] = (j5 + x5) | 0; o[oi + 6] = (j6 + x6) | 0; o[oi + 7] = (j7 + x7) | 0;
  o[oi + 8] = (j8 + x8) | 0; o[oi + 9] = (j9 + x9) | 0; o[oi + 10] = (j10 + x10) | 0; o[oi + 11] = (j11 + x11) | 0;
  o[oi + 12] = (j12 + x12) | 0; o[oi + 13] = (j13 + x13) | 0; o[oi + 14] = (j14 + x14) | 0; o[oi + 15] = (j15 + x15) | 0;
}

/**
 * BlockMix(x[xi..] xor y[yi..]) into out[0..32r): 2r Salsa20/8 rounds chained through the
 * last block, even outputs first (a plain BlockMix passes zeros as `y`). `t` is 16 words of
 * scratch; `out` must not overlap the input.
 */
function blockMixXor(x: Uint32Array, xi: number, y: Uint32Array, yi: number, r: number, out: Uint32Array, oi: number, t: Uint32Array): void {
  const last = 32 * r - 16;
  for (let k = 0; k < 16; k++) t[k] = x[xi + last + k]! ^ y[yi + last + k]!;
  let prev = t, pi = 0;
  for (let i = 0; i < 2 * r; i++) {
    const dst = oi + (i & 1 ? r * 16 : 0) + (i >> 1) * 16;
    salsaXor(prev, pi, x, xi + i * 16, y, yi + i * 16, out, dst);
    prev = out;
    pi = dst;
  }
}

/**
 * Scratch of the last size asked (V is N * r * 128 bytes): a tab derives one node id after
 * another (a mint draws ~1,000), and a fresh 128 KiB per call is garbage to collect.
 */
let scratch: { words: number; n: number; v: Uint32Array; x: Uint32Array; y: Uint32Array; zero: Uint32Array; t: Uint32Array } | undefined;

/** scrypt(password, salt, N, r, p = 1) into `dkLen` bytes. N a power of 2 above 1. */
export function scryptSync(password: Uint8Array, salt: Uint8Array, o: { N: number; r: number; dkLen: number }): Uint8Array {
  const { N, r, dkLen } = o;
  if (N < 2 || (N & (N - 1)) !== 0 || r < 1) throw new RangeError('scrypt: N must be a power of 2 above 1, r at least 1');
  const words = 32 * r;
  const b = pbkdf2Once(password, salt, 128 * r);
  if (!scratch || scratch.words !== words || scratch.n !== N) {
    scratch = { words, n: N, v: new Uint32Array(words * N), x: new Uint32Array(words), y: new Uint32Array(words), zero: new Uint32Array(words), t: new Uint32Array(16) };
  }
  const { v, x, y, zero, t } = scratch;
  for (let i = 0; i < words; i++) x[i] = b[i * 4]! | (b[i * 4 + 1]! << 8) | (b[i * 4 + 2]! << 16) | (b[i * 4 + 3]! << 24);
  v.set(x, 0);
  for (let i = 0; i < N - 1; i++) blockMixXor(v, i * words, zero, 0, r, v, (i + 1) * words, t);
  blockMixXor(v, (N - 1) * words, zero, 0, r, x, 0, t);
  for (let i = 0; i < N; i += 2) {
    let j = x[words - 16]! & (N - 1);
    blockMixXor(x, 0, v, j * words, r, y, 0, t);
    j = y[words - 16]! & (N - 1);
    blockMixXor(y, 0, v, j * words, r, x, 0, t);
  }
  for (let i = 0; i < words; i++) {
    const w = x[i]!;
    b[i * 4] = w & 255; b[i * 4 + 1] = (w >>> 8) & 255; b[i * 4 + 2] = (w >>> 16) & 255; b[i * 4 + 3] = w >>> 24;
  }
  return pbkdf2Once(password, b, dkLen);
}
