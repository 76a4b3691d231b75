// Node ids that cost work (S/Kademlia's static puzzle). A node id is derived from the public
// key through scrypt (key-ids.ts), so it cannot be chosen and each key drawn costs one slow
// hash; it counts only when SHA-256(context || id) starts with `bits` zero bits. A key is a
// random draw, so an honest tab pays ~2^bits keys and scrypts once per identity, and an
// attacker who wants an id near a chosen key pays that again for every id it throws away:
// to put an id among the r nodes closest to a key among N it needs about N / r valid ids,
// N / r * 2^bits scrypts, however fast it makes keys (docs/TRUST.md). The puzzle itself is
// checked from the id alone with one short hash, done by every node that links to, routes
// for or grants to another (remembered, so a busy peer costs one hash); where a key comes
// with the id, its derivation is checked too (key-ids.ts, remembered per key).
import { sha256Sync } from './sha256-sync';
import { ID_BYTES, idToHex, type NodeId } from './node-id';

/** Domain separation: this puzzle can be mistaken for no other hash. */
const CONTEXT = new TextEncoder().encode('voxel-populi/node-id-work/v1\0');

/**
 * Zero bits a node id must show: 2^9 = 512 keys per id on average, 355 at the median, each
 * a keypair and one scrypt (key-ids.ts NODE_ID_SCRYPT; 0.86 CPU-ms a key in Node). A tab
 * mints its id once per identity slot, in a worker (app/node-id-minter.ts); measured with
 * `npm run bench -- node_id_mint` and `id_work` (docs/BENCHMARKS.md "Ids that cost work").
 * While a node id was SHA-256 of the key this was 13 (8,192 keypairs at ~10k a second); 13
 * bits of scrypts would cost a first start ~10-20 s. Each bit doubles both the tab's cost
 * and the attacker's: at 10 a fresh tab's mint alone was p50 ~0.6 s and p90 ~2 s on a free
 * core (more on a phone or a busy machine) against a join target of 1.5 s, while placing 2
 * ids among the 3 nearest of 1,000 cost a grinder with free keys 484 CPU-s; at 9, half of
 * each: 242 CPU-s, still ~440x its price before ids were derived through scrypt
 * (docs/TRUST.md "Ids that cost work"). Ids minted at 10 show 9 and pass.
 */
export const ID_WORK_BITS = 9;

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

