// A node's view of who is near a key (near-view.ts) against an eclipse, on real DHT nodes
// (simulated network): 24 hostile nodes (src/testing/hostile-dht.ts, answering every
// FIND_NODE with only each other) stand between a key and the 10 honest nodes nearest it
// (ids sharing 16 leading bits with the key, against the honest ones' 24), among 40 honest
// nodes elsewhere. The reader's table holds 8 of the hostile nodes and 3 honest far ones,
// so a lookup of one path meets liars first: they name 20 of each other, nearer than the
// honest seeds, which then fall out of its k closest and are never asked. Its view's
// nearest 8 are hostile (all 8 on seed 1, 7 on seed 4) (a certificate two of them grant would be anchored near the
// key: src/region/cert-anchor.ts rule 2). The view's refresh goes by two disjoint paths
// (near-view.ts REFRESH_PATHS): each path gets an honest seed, and one holds at most half
// the liars, so its honest seed is asked and leads to the 10 honest nodes. A later
// eclipsed lookup of one path adds its liars to the view but cannot push those out.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { HostileCrew } from '../testing/hostile-dht';
import { SimCluster } from '../testing/sim-cluster';
import type { DhtNode } from './dht-node';

const HONEST_FAR = 40;
const HONEST_NEAR = 10;
const CREW = 24;
const SEEDS_CREW = 8;
const SEEDS_HONEST = 3;
const RANK = 8;

/** An id that shares exactly `bits` leading bits with `key`. */
function sharing(key: NodeId, bits: number, rand: () => number): NodeId {
  const id = randomId(rand);
  for (let b = 0; b < bits; b++) {
    const byte = b >> 3, mask = 0x80 >> (b & 7);
    id[byte] = (id[byte]! & ~mask) | (key[byte]! & mask);
  }
  const byte = bits >> 3, mask = 0x80 >> (bits & 7);
  id[byte] = (id[byte]! & ~mask) | (~key[byte]! & mask);
  return id;
}

async function eclipsed(seed: number) {
  const rand = seededRandom(seed * 101 + 7);
  const key = randomId(rand);
  const nearIds = Array.from({ length: HONEST_NEAR }, () => sharing(key, 24, rand));
  const crewIds = Array.from({ length: CREW }, () => sharing(key, 16, rand));
  const crewHex = new Set(crewIds.map(idToHex));
  const nearHex = new Set(nearIds.map(idToHex));
  const crew = new HostileCrew({ dropShare: 0, misrouteShare: 0 }, seededRandom(seed * 31 + 5));
  crew.active = false;
  const c = new SimCluster({ seed, net: { latencyMs: 20, jitterMs: 5 }, variant: (id) => (crewHex.has(idToHex(id)) ? crew.variant(id, []) : undefined), bootstrapPeers: 4 });
  await c.grow(HONEST_FAR);
  for (const id of [...nearIds, ...crewIds]) await c.settle(c.joinOne(id));
  await c.run(5_000);
  crew.active = true;
  const far = [...c.nodes.values()].filter((n) => !crewHex.has(n.selfHex) && !nearHex.has(n.selfHex));
  /** Far honest reader `i`, its table cut down to SEEDS_CREW liars and SEEDS_HONEST far honest nodes. */
  const reader = (i: number): DhtNode => {
    const r = far[i]!;
    eclipse(r);
    return r;
  };
  const eclipse = (r: DhtNode) => {
    // Replacements are promoted as contacts go: emptied until none is left.
    while (r.table.size > 0) for (const x of r.table.closest(key, r.table.size)) r.table.remove(x.hex);
    const others = far.filter((n) => n !== r);
    for (const id of [...crewIds.slice(0, SEEDS_CREW), ...others.slice(0, SEEDS_HONEST).map((n) => n.selfId)]) r.table.add(id, c.clock.now());
  };
  const count = (r: DhtNode) => {
    const top = r.nearView.near(key, RANK).map(idToHex);
    return { crew: top.filter((h) => crewHex.has(h)).length, honestNear: top.filter((h) => nearHex.has(h)).length };
  };
  return { c, key, reader, eclipse, count, crew };
}

describe('the view of who is near a key, against an eclipse (simulated)', () => {
  it('a refresh by disjoint paths finds the honest nearest nodes where one path finds only liars, and an eclipsed lookup after it does not undo that', async () => {
    const { c, key, reader, eclipse, count, crew } = await eclipsed(1);
    // One path (the control: what the view held before its refresh went by disjoint paths).
    const one = reader(0);
    expect(one.table.size).toBe(SEEDS_CREW + SEEDS_HONEST);
    const rpcs0 = one.stats.lookupRpcs;
    await c.settle(one.findNode(key));
    const onePath = one.stats.lookupRpcs - rpcs0;
    // (All 8 on seed 1; two are enough to anchor a certificate they grant.)
    expect(count(one).crew, 'one path: liars fill the nearest 8').toBeGreaterThanOrEqual(2);
    expect(crew.counts.eclipsed).toBeGreaterThan(0);
    // The refresh, from the same table.
    const two = reader(1);
    const rpcs1 = two.stats.lookupRpcs;
    expect(await c.settle(two.nearView.refresh(key))).toBe(true);
    expect(count(two)).toEqual({ crew: 0, honestNear: RANK });
    console.log(`near view: one path ${onePath} lookup RPCs (eclipsed), the refresh by two disjoint paths ${two.stats.lookupRpcs - rpcs1}`);
    // A later lookup of one path, eclipsed again (the refresh taught the table the honest
    // nodes: it is cut down again): its liars are merged in, not put in place.
    eclipse(two);
    const lied = crew.counts.eclipsed;
    await c.settle(two.findNode(key));
    expect(crew.counts.eclipsed).toBeGreaterThan(lied);
    expect(count(two)).toEqual({ crew: 0, honestNear: RANK });
    c.stopAll();
  }, 60_000);
});
