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

  it('closest() to our own id names each contact once, also when the table holds fewer than asked for', () => {
    const rand = seededRandom(13);
    const me = randomId(rand);
    for (const size of [1, 5, 20, 21, 40]) {
      const t = new RoutingTable(me, 20);
      const all: NodeId[] = [];
      while (all.length < size) {
        const id = randomId(rand);
        if (t.add(id, all.length).status === 'added') all.push(id);
      }
      for (const n of [size - 1, size, size + 1, 20]) {
        if (n < 1) continue;
        const got = t.closest(me, n).map((c) => c.hex);
        expect(new Set(got).size).toBe(got.length);
        expect(got).toEqual(sortByDistance([...all], (x) => x, me).slice(0, n).map(idToHex));
      }
    }
  });

  // closest() keeps its answers while the members stay the same: one that comes, goes or is
  // replaced changes them at once, a contact heard again does not, and the one left out (a
  // FIND_NODE's asker) is any. Ids near ours fill the near buckets, so ties run past 4 bytes.
  it('closest() matches a brute-force sort as contacts come and go, leaving out the one named', () => {
    const rand = seededRandom(12);
    const me = randomId(rand);
    const t = new RoutingTable(me, 8);
    const near = () => {
      const id = randomId(rand);
      id.set(me.subarray(0, Math.floor(rand() * 3)));
      return id;
    };
    const targets = Array.from({ length: 6 }, near);
    const pick = () => {
      const m = [...t.all()];
      return m[Math.floor(rand() * m.length)];
    };
    for (let i = 0; i < 3000; i++) {
      const r = rand();
      const c = pick();
      if (r < 0.4) t.add(near(), i);
      else if (r < 0.5 && c) t.remove(c.hex);
      else if (r < 0.55 && c) t.fail(c.hex, 1);
      else if (r < 0.6 && c) t.add(c.id, i);
      else {
        const target = targets[Math.floor(rand() * targets.length)]!;
        const n = 1 + Math.floor(rand() * 10);
        const exclude = rand() < 0.5 ? c?.hex : undefined;
        const members = [...t.all()].filter((x) => x.hex !== exclude).map((x) => x.id);
        const want = sortByDistance(members, (x) => x, target).slice(0, n).map(idToHex);
        expect(t.closest(target, n, exclude).map((x) => x.hex)).toEqual(want);
      }
    }
  });
});
