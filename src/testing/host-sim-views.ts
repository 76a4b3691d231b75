// What one simulated peer finds near a region key, set by a test: two first certificates,
// forks and chains that grew apart need peers that see different nodes as the key's nearest.
import { idEquals, type NodeId } from '../core/node-id';
import type { LookupResult } from '../dht/lookup';
import type { HostSim, SimPeer } from './host-sim';

/** The node `bit` away from `key` (XOR distance: 1 is the nearest id there can be). */
export function nearId(key: NodeId, bit: number): NodeId {
  const id = new Uint8Array(key);
  id[id.length - 1]! ^= bit;
  return id;
}

/** `p` finds `view` as the hosts of `key` (its hosting's lookups, and its player's) while `on()` says so. */
export function seesOnly(p: SimPeer, key: NodeId, view: SimPeer[], on: () => boolean): void {
  const hostSet = p.host.hostSet.bind(p.host);
  p.host.hostSet = (k, fresh) => (on() && idEquals(k, key) ? Promise.resolve(view.map((v) => v.dht.selfId)) : hostSet(k, fresh));
  const findNode = p.dht.findNode.bind(p.dht);
  p.dht.findNode = (k) => {
    if (!on() || !idEquals(k, key)) return findNode(k);
    const res: LookupResult = { closest: view.map((v) => ({ id: v.dht.selfId, hex: v.hex })), values: [], hops: 1, queries: view.length, failures: 0 };
    return Promise.resolve(res);
  };
}

/** As `seesOnly`, and `p`'s own view of who is near the key (its table and its lookups by disjoint paths) says the same. */
export function seesOnlyAll(p: SimPeer, key: NodeId, view: SimPeer[], on: () => boolean): void {
  seesOnly(p, key, view, on);
  const nv = p.dht.nearView;
  const ids = () => view.map((v) => v.dht.selfId);
  const near = nv.near.bind(nv), live = nv.live.bind(nv);
  nv.near = (k, n) => (on() && idEquals(k, key) ? ids().slice(0, n) : near(k, n));
  nv.live = (k, n, again) => (on() && idEquals(k, key) ? Promise.resolve(ids().slice(0, n)) : live(k, n, again));
}

/**
 * The six nodes nearest `key` (A..F, added to `sim`) and two readers, the views split until
 * `join()`: A, C, D and the first reader find {A, C, D}; B, E, F and the second {B, E, F}.
 */
export async function splitSixNearest(sim: HostSim, key: NodeId) {
  const nearest: SimPeer[] = [];
  for (const bit of [1, 2, 3, 4, 5, 6]) nearest.push(await sim.add(nearId(key, bit)));
  const [A, B, C, D, E, F] = nearest as [SimPeer, SimPeer, SimPeer, SimPeer, SimPeer, SimPeer];
  const [ra, rb] = sim.live().filter((p) => !nearest.includes(p)) as [SimPeer, SimPeer];
  let split = true;
  for (const p of [A, C, D, ra]) seesOnlyAll(p, key, [A, C, D], () => split);
  for (const p of [B, E, F, rb]) seesOnlyAll(p, key, [B, E, F], () => split);
  return { A, B, C, D, E, F, ra, rb, join: (): void => { split = false; } };
}
