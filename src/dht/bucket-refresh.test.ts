// Bucket refresh alone, on the virtual clock: a real routing table, fake lookups and calls.
import { describe, expect, it } from 'vitest';
import { bucketIndex, idEquals, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { BucketRefresh, bucketsToRefresh, randomIdInBucket } from './bucket-refresh';
import type { Lookup } from './lookups';
import type { Reply } from './messages';
import { RoutingTable } from './routing-table';
import type { Call } from './rpc';

const OPTS = { refreshMs: 40_000, emptyRefreshMs: 60_000, linksPerBucket: 2 };

/** A table with 4 contacts in bucket 150, 1 in 155, 2 in 159. */
function setup() {
  const clock = new VirtualClock();
  const rand = seededRandom(8);
  const self = randomId(rand);
  const table = new RoutingTable(self);
  for (const [b, n] of [[150, 4], [155, 1], [159, 2]] as const) for (let i = 0; i < n; i++) table.add(randomIdInBucket(self, b, rand), 0);
  const looked: number[] = [];
  const lookup: Lookup = (target) => {
    const b = bucketIndex(self, target);
    looked.push(b);
    table.touch(b, clock.now());
    return Promise.resolve({ closest: [], values: [], hops: 0, queries: 0, failures: 0 });
  };
  const asked: { to: NodeId; target: NodeId }[] = [];
  /** FIND_NODE answers: 4 ids in the target's bucket and 2 elsewhere. */
  const call: Call = (to, _hex, req) => {
    if (req.t !== 'FIND_NODE') throw new Error(req.t);
    asked.push({ to, target: req.target });
    const b = bucketIndex(self, req.target);
    const nodes = [randomIdInBucket(self, b === 159 ? 158 : 159, rand), ...Array.from({ length: 4 }, () => randomIdInBucket(self, b, rand)), randomId(rand)];
    return Promise.resolve({ t: 'NODES', r: 0, nodes } as Reply);
  };
  const learnt: NodeId[] = [];
  const refresh = new BucketRefresh({ selfId: self, clock, opts: { ...OPTS, random: rand }, table, lookup, call, learn: (id) => void learnt.push(id) });
  return { clock, rand, self, table, looked, asked, learnt, refresh };
}

const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

describe('bucket refresh', () => {
  it('a random id in bucket b shares our bits above b and differs at b', () => {
    const rand = seededRandom(1);
    const self = randomId(rand);
    for (let b = 0; b < 160; b++) expect(bucketIndex(self, randomIdInBucket(self, b, rand))).toBe(b);
    const a = randomIdInBucket(self, 100, rand);
    expect(idEquals(a, randomIdInBucket(self, 100, rand))).toBe(false);
  });

  it('picks the buckets due: far ones on a join, untouched ones later, empty ones with contacts under them', () => {
    const { table, self } = setup();
    expect(bucketsToRefresh(table, 0, OPTS.refreshMs, true, false)).toEqual(range(151, 159));
    expect(bucketsToRefresh(table, OPTS.refreshMs - 1, OPTS.refreshMs, false, false)).toEqual([]);
    table.touch(155, 10);
    expect(bucketsToRefresh(table, OPTS.refreshMs, OPTS.refreshMs, false, false)).toEqual([...range(150, 154), ...range(156, 159)]);
    expect(bucketsToRefresh(table, 0, OPTS.refreshMs, true, true)).toEqual([...range(151, 154), ...range(156, 158)]);
    // Fewer than 3 contacts under an empty bucket: not worth a lookup yet.
    const sparse = new RoutingTable(self);
    sparse.add(randomIdInBucket(self, 150, seededRandom(2)), 0);
    sparse.add(randomIdInBucket(self, 150, seededRandom(3)), 0);
    expect(bucketsToRefresh(sparse, 0, OPTS.refreshMs, true, true)).toEqual([]);
    expect(bucketsToRefresh(new RoutingTable(self), 0, OPTS.refreshMs, true, false)).toEqual([]);
  });

  it('looks into untouched buckets every refreshMs / 4 and into empty ones every emptyRefreshMs, while started', async () => {
    const s = setup();
    s.refresh.start();
    await s.clock.advance(30_000);
    expect(s.looked).toEqual([]); // nothing untouched for refreshMs yet
    await s.clock.advance(10_000);
    expect(s.looked).toEqual(range(150, 159));
    s.looked.length = 0;
    await s.clock.advance(20_000); // t = 60 s: the empty-bucket refresh
    expect(s.looked).toEqual([...range(151, 154), ...range(156, 158)]);
    s.refresh.stop();
    expect(s.clock.pending).toBe(0);
    s.looked.length = 0;
    await s.refresh.refresh(true);
    expect(s.looked).toEqual([]);
  });

  it("joinRefresh 'probe': one FIND_NODE per empty far bucket, learning at most linksPerBucket + 1 of its answer that fall in it", async () => {
    const s = setup();
    s.refresh.start();
    await s.clock.advance(1000);
    await s.refresh.probeEmptyBuckets();
    const buckets = [...range(151, 154), ...range(156, 158)];
    expect(s.asked.map((a) => bucketIndex(s.self, a.target))).toEqual(buckets);
    for (const a of s.asked) expect(idEquals(a.to, s.table.closest(a.target, 1)[0]!.id)).toBe(true);
    expect(s.learnt.length).toBe(buckets.length * (OPTS.linksPerBucket + 1));
    const perBucket = new Map<number, number>();
    for (const id of s.learnt) perBucket.set(bucketIndex(s.self, id), (perBucket.get(bucketIndex(s.self, id)) ?? 0) + 1);
    expect([...perBucket.keys()]).toEqual(buckets);
    for (const b of buckets) expect(s.table.touchedAt(b)).toBe(1000);
    s.refresh.stop();
  });
});
