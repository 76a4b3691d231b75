import { describe, expect, it } from 'vitest';
import { bucketIndex, compareDistance, idToHex, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { RoutingTable } from './routing-table';

const self = new Uint8Array(20); // all zeros: bucket i holds ids whose highest set bit is i
/** An id in bucket b of `self` (only bit b and some lower bits set). */
function inBucket(b: number, low: number): NodeId {
  const id = new Uint8Array(20);
  id[19 - (b >> 3)]! |= 1 << (b & 7);
  id[19]! |= low & ((1 << Math.min(b, 8)) - 1);
  if (b >= 16) id[18]! |= (low >> 8) & 0xff;
  return id;
}

describe('RoutingTable', () => {
  it('puts contacts in the right bucket and ignores self', () => {
    const t = new RoutingTable(self, 20);
    expect(t.add(self, 0).status).toBe('self');
    const a = inBucket(159, 1);
    expect(t.add(a, 0).status).toBe('added');
    expect(t.bucket(159).map((c) => c.hex)).toEqual([idToHex(a)]);
    expect(bucketIndex(self, a)).toBe(159);
    expect(t.add(a, 5).status).toBe('updated');
    expect(t.size).toBe(1);
  });

  it('orders a bucket least-recently seen first', () => {
    const t = new RoutingTable(self, 3);
    const ids = [1, 2, 3].map((i) => inBucket(100, i));
    ids.forEach((id, i) => t.add(id, i));
    t.add(ids[0]!, 10);
    expect(t.bucket(100).map((c) => c.hex)).toEqual([ids[1], ids[2], ids[0]].map((x) => idToHex(x!)));
  });

  it('full bucket: pings the oldest; keeps it if it answers', () => {
    const t = new RoutingTable(self, 2);
    const [a, b, c] = [1, 2, 3].map((i) => inBucket(50, i)) as [NodeId, NodeId, NodeId];
    t.add(a, 0);
    t.add(b, 1);
    const r = t.add(c, 2);
    expect(r.status).toBe('full');
    if (r.status !== 'full') return;
    expect(r.oldest.hex).toBe(idToHex(a));
    expect(r.pinging).toBe(false);
    expect((t.add(inBucket(50, 4), 3) as { pinging: boolean }).pinging).toBe(true); // one ping at a time
    t.pingResult(idToHex(a), true, 4);
    expect(t.bucket(50).map((x) => x.hex)).toEqual([idToHex(b), idToHex(a)]);
    expect(t.has(idToHex(c))).toBe(false);
    expect(t.replacements(50).length).toBe(2);
  });

  it('full bucket: replaces the oldest with the freshest replacement if it does not answer', () => {
    const t = new RoutingTable(self, 2);
    const [a, b, c] = [1, 2, 3].map((i) => inBucket(50, i)) as [NodeId, NodeId, NodeId];
    t.add(a, 0);
    t.add(b, 1);
    t.add(c, 2);
    const promoted = t.pingResult(idToHex(a), false, 3);
    expect(promoted?.hex).toBe(idToHex(c));
    expect(t.bucket(50).map((x) => x.hex)).toEqual([idToHex(b), idToHex(c)]);
    expect(t.has(idToHex(a))).toBe(false);
  });

  it('removes a contact after maxFails failures; a message resets the count', () => {
    const t = new RoutingTable(self, 20);
    const a = inBucket(10, 1);
    t.add(a, 0);
    expect(t.fail(idToHex(a), 2).removed).toBe(false);
    t.add(a, 1);
    expect(t.fail(idToHex(a), 2).removed).toBe(false);
    expect(t.fail(idToHex(a), 2).removed).toBe(true);
    expect(t.size).toBe(0);
  });

  it('closest() matches a brute-force sort by XOR distance', () => {
    const rand = seededRandom(11);
    const me = randomId(rand);
    const t = new RoutingTable(me, 20);
    const all: NodeId[] = [];
    for (let i = 0; i < 2000; i++) {
      const id = randomId(rand);
      if (t.add(id, i).status === 'added') all.push(id);
    }
    for (let q = 0; q < 50; q++) {
      const target = q % 5 === 0 ? me : randomId(rand);
      const want = sortByDistance([...all], (x) => x, target).slice(0, 20).map(idToHex);
      const got = t.closest(target, 20);
      expect(got.map((c) => c.hex)).toEqual(want);
      for (let i = 1; i < got.length; i++) expect(compareDistance(got[i - 1]!.id, got[i]!.id, target)).toBeLessThan(0);
    }
  });
});
