// A proof of work on a public key: a nonce such that SHA-256(seed || nonce) starts with
// `bits` zero bits, where seed = SHA-256(context || key). Finding one takes 2^bits hashes on
// average; checking one takes two. It makes a player identity cost something to mint, so a
// hostile bundle cannot get a fresh edit rate and a fresh believed position per throwaway
// key (host/player-passes.ts; the difficulty and its measurement: docs/HOSTING.md "Player
// passes"). The outer hash is one SHA-256 block, so a try is one compression.
import { compress, initialState, sha256Sync } from './sha256-sync';

/** Domain separation: this work can be mistaken for no other hash. */
const CONTEXT = new TextEncoder().encode('voxel-populi/player-key-work/v1\0');
/** Most bits a proof can be asked for (the first digest word). */
export const MAX_WORK_BITS = 32;

/** The part of the work fixed by the key, as 8 big-endian words. */
export function workSeed(publicKey: Uint8Array): Uint32Array {
  const msg = new Uint8Array(CONTEXT.length + publicKey.length);
  msg.set(CONTEXT);
  msg.set(publicKey, CONTEXT.length);
  const d = sha256Sync(msg);
  const v = new DataView(d.buffer);
  const out = new Uint32Array(8);
  for (let i = 0; i < 8; i++) out[i] = v.getUint32(i * 4);
  return out;
}

/** Reused by `firstWord` (single-threaded: nothing else runs during a call). */
const w = new Uint32Array(64);
const h = new Uint32Array(8);
const IV = initialState();

/** The first word of SHA-256(seed || nonce as 4 big-endian bytes): a 36-byte message, one block. */
function firstWord(seed: Uint32Array, nonce: number): number {
  w.set(seed);
  w[8] = nonce;
  w[9] = 0x80000000;
  w.fill(0, 10, 15);
  w[15] = 36 * 8;
  h.set(IV);
  compress(h, w);
  return h[0]!;
}

/** Leading zero bits of the work of `nonce` on the key of `seed` (0..32). */
export function workBits(seed: Uint32Array, nonce: number): number {
  return Math.clz32(firstWord(seed, nonce >>> 0));
}

/** Whether `nonce` proves `bits` of work on `publicKey` (two hashes). */
export function checkWork(publicKey: Uint8Array, nonce: number, bits: number): boolean {
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > 0xffffffff) return false;
  return workBits(workSeed(publicKey), nonce) >= Math.min(bits, MAX_WORK_BITS);
}

/** The first nonce in [from, from + count) proving `bits` on the key of `seed`, or undefined. */
export function searchWork(seed: Uint32Array, bits: number, from: number, count: number): number | undefined {
  const need = Math.min(bits, MAX_WORK_BITS);
  const end = Math.min(from + count, 2 ** 32);
  for (let n = from; n < end; n++) if (Math.clz32(firstWord(seed, n)) >= need) return n;
  return undefined;
}

/** A nonce proving `bits` on `publicKey`, found in one go (blocks for ~2^bits hashes: small `bits`, or off the main thread). */
export function mintWork(publicKey: Uint8Array, bits: number): number {
  const n = searchWork(workSeed(publicKey), bits, 0, 2 ** 32);
  if (n === undefined) throw new Error(`no nonce proves ${bits} bits on this key`);
  return n;
}
