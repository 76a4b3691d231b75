// Node ids that cost work (S/Kademlia's static puzzle). A node id is SHA-256 of the public
// key (identity.ts), so it cannot be chosen; it counts only when SHA-256(context || id)
// starts with `bits` zero bits. A key is a random draw, so an honest tab pays ~2^bits key
// generations once per identity, and an attacker who wants an id near a chosen key pays
// that again for every id it throws away: to put an id among the r nodes closest to a key
// among N it needs about N / r valid ids, N / r * 2^bits key generations (docs/TRUST.md).
// Checking is one short hash, done by every node that links to, routes for or grants to
// another (remembered, so a busy peer costs one hash).
import { sha256Sync } from './sha256-sync';
import { ID_BYTES, idToHex, type NodeId } from './node-id';

/** Domain separation: this puzzle can be mistaken for no other hash. */
const CONTEXT = new TextEncoder().encode('voxel-populi/node-id-work/v1\0');

/**
 * Zero bits a node id must show: 2^13 = 8,192 keypairs per id on average, 5,678 at the
 * median. A tab mints its id once per identity slot, in a worker (app/node-id-minter.ts).
 * Measured on the project's shared 2-core machine (`npm run bench -- id_work`,
 * docs/BENCHMARKS.md "Ids that cost work"): Chromium 150 draws 7.8-9.9k Ed25519 keypairs a
 * second in the worker under load (13.5k idle), so a tab's median mint is 0.36-0.82 s (0.57-
 * 0.73 s from the rate) and its 90th percentile 1.1-2.6 s; Node draws 6-6.5k a second through
 * WebCrypto (the headless peer: median 0.7-1.0 s) and 5.5-7.8k on one core through
 * node:crypto. At 14 bits the median would be 1.1-1.5 s, over the second a first start may
 * spend; each bit doubles both the tab's cost and the attacker's.
 */
export const ID_WORK_BITS = 13;

/** Leading zero bits of SHA-256(context || id) (0..32 counted; 32 means "at least"). */
export function idWorkBits(id: NodeId): number {
  const msg = new Uint8Array(CONTEXT.length + id.length);
  msg.set(CONTEXT);
  msg.set(id, CONTEXT.length);
  const d = sha256Sync(msg);
  return Math.clz32(((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0);
}

/** Ids that passed, remembered (bounded): a node sees the same few hundred ids again and again. */
const passed = new Set<string>();
export const PASSED_KEPT = 4096;

/** Ids remembered as passed (at most PASSED_KEPT). */
export function idWorkRemembered(): number {
  return passed.size;
}

/** Whether `id` shows `bits` of work (default ID_WORK_BITS). Never throws. */
export function idWorkOk(id: NodeId, bits: number = ID_WORK_BITS): boolean {
  if (bits <= 0) return true;
  if (!(id instanceof Uint8Array) || id.length !== ID_BYTES) return false;
  const hex = idToHex(id);
  if (passed.has(`${bits}:${hex}`)) return true;
  if (idWorkBits(id) < bits) return false;
  if (passed.size >= PASSED_KEPT) passed.delete(passed.values().next().value!);
  passed.add(`${bits}:${hex}`);
  return true;
}

