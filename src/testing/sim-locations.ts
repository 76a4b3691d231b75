// Region location records in the adversarial simulation (disjoint lookups for
// location records). Each region is certified over three honest hosts twice, epoch 1 and
// epoch 2 (the real certificates and LOCATION record of region/region-records.ts, signed on
// the simulation's keyring); each epoch's primary puts the record through its own DHT node,
// as a primary does, and the crew keeps epoch 1's for replays. A read is right when it
// returns epoch 2's record: an honest node's `get` keeps only what the 'chunk' rule
// (locationRule) accepts and returns the highest version among its answers.
import { idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import type { Random } from '../core/seeded-random';
import type { Dht } from '../dht/dht';
import type { DhtNode } from '../dht/dht-node';
import { NOBODY_NEAR } from '../dht/near-view';
import type { RecordRule } from '../dht/record-rules';
import { signGrant, type ClaimTerms, type EpochCert } from '../region/epoch-cert';
import { CertChecker } from '../region/cert-checker';
import { locationRule, putLocation } from '../region/region-records';
import type { SimKeyring } from './sim-keyring';

/** The 'chunk' rule every honest node runs (one checker: its verdict cache is shared). */
export function simLocationRule(keyring: SimKeyring): RecordRule {
  // The simulators' ids are drawn (no id work), as their DHTs ask (sim-world.ts).
  return locationRule(new CertChecker(keyring.verify, NOBODY_NEAR, { idWorkBits: 0 }), keyring.verify);
}

/** A region's two records as put: epoch 1 (replayed by the crew), epoch 2 (the newest). */
export interface SimLocation {
  key: NodeId;
  v1: Uint8Array;
  v2: Uint8Array;
}

/** Puts one region's record of epoch e by `primary`, over `hosts` (the primary's grant first). */
async function putEpoch(keyring: SimKeyring, key: NodeId, primary: DhtNode, hosts: NodeId[], e: number): Promise<Uint8Array> {
  const terms: ClaimTerms = { e, primary: primary.selfId, hosts, ...(e > 1 ? { prev: { e: e - 1, hosts } } : {}) };
  // A majority of the set; every host for the chain's root (epoch-cert.ts `chainRoot`).
  const granters = [primary.selfId, ...hosts.filter((h) => h !== primary.selfId)].slice(0, e > 1 ? 2 : hosts.length);
  const cert: EpochCert = { ...terms, grants: await Promise.all(granters.map((g) => signGrant(keyring.signer(g), key, terms))) };
  let put: Uint8Array | undefined;
  // The primary's own node publishes, as in the product; the bytes are kept to judge reads.
  const dht: Pick<Dht, 'put' | 'get'> = {
    put: (ns, k, value, o) => {
      put = value;
      return primary.put(ns, k, value, o);
    },
    get: (ns, k) => primary.get(ns, k),
  };
  await putLocation(dht, key, { signer: keyring.signer(primary.selfId), cert }, 1);
  return put!;
}

/**
 * `count` regions at random keys, each hosted by three of `hosts` (honest, joined): epoch 1
 * put by the first, then epoch 2 by the second. `stale` receives epoch 1's record by key hex.
 */
export async function putSimLocations(keyring: SimKeyring, hosts: DhtNode[], count: number, rand: Random, stale: Map<string, Uint8Array>): Promise<SimLocation[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const key = randomId(rand);
      // A region's hosts are the nodes closest to its key: readers believe no other set (cert-anchor.ts).
      const set = sortByDistance([...hosts], (n) => n.selfId, key).slice(0, 3);
      const [a, b] = set as [DhtNode, DhtNode];
      const ids = [...set].map((n) => n.selfId);
      const v1 = await putEpoch(keyring, key, a, ids, 1);
      stale.set(idToHex(key), v1);
      const v2 = await putEpoch(keyring, key, b, ids, 2);
      return { key, v1, v2 };
    }),
  );
}
