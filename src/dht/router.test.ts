import { describe, expect, it } from 'vitest';
import { bucketIndex, compareDistance, idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { admitInbound, planLinks, type HeldLink } from './link-budget';
import { RoutingTable } from './routing-table';
import { Dedup, nextHop } from './router';

const link = (self: NodeId, id: NodeId, openedAt = 0): HeldLink & { id: NodeId } => ({
  id,
  hex: idToHex(id),
  bucket: bucketIndex(self, id),
  pinned: false,
  openedAt,
});

describe('router', () => {
  const rand = seededRandom(3);
  const self = randomId(rand);
  const ids = Array.from({ length: 20 }, () => randomId(rand));
  const links = new Map(ids.map((id) => [idToHex(id), link(self, id)]));

  it('prefers a direct link, else the strictly closer link closest to the target', () => {
    expect(nextHop(self, ids[3]!, links)?.hex).toBe(idToHex(ids[3]!));
    for (let i = 0; i < 50; i++) {
      const target = randomId(rand);
      const hop = nextHop(self, target, links);
      const closer = ids.filter((x) => compareDistance(x, self, target) < 0);
      if (closer.length === 0) expect(hop).toBeNull();
      else for (const x of closer) expect(compareDistance(hop!.id, x, target)).toBeLessThanOrEqual(0);
    }
  });

  it('the origin may use a farther link; excluded nodes are never chosen', () => {
    const far = Uint8Array.from(self);
    far[0]! ^= 0x80;
    const one = new Map([[idToHex(far), link(self, far)]]);
    expect(nextHop(self, Uint8Array.from(self).fill(1, 19), one)).toBeNull();
    expect(nextHop(self, Uint8Array.from(self).fill(1, 19), one, true)?.hex).toBe(idToHex(far));
    expect(nextHop(self, Uint8Array.from(self).fill(1, 19), one, true, new Set([idToHex(far)]))).toBeNull();
  });

  it('dedup remembers the last n keys', () => {
    const d = new Dedup(2);
    expect(d.check('a')).toBe(true);
    expect(d.check('a')).toBe(false);
    d.check('b');
    d.check('c');
    expect(d.check('a')).toBe(true);
  });
});

describe('link budget', () => {
  const rand = seededRandom(5);
  const self = randomId(rand);
  const table = new RoutingTable(self, 20);
  for (let i = 0; i < 3000; i++) table.add(randomId(rand), 0);
  const opts = { maxLinks: 32, softLinks: 24, linksPerBucket: 2 };

  it('covers every non-empty bucket first, then a second link per bucket, within the budget', () => {
    const plan = planLinks(table, new Map(), opts, () => false, rand);
    const buckets = new Set(plan.dial.map((c) => bucketIndex(self, c.id)));
    for (const b of table.nonEmptyBuckets()) expect(buckets.has(b)).toBe(true);
    expect(plan.dial.length).toBeLessThanOrEqual(opts.softLinks);
    expect(plan.close).toEqual([]);
  });

  it('closes the oldest redundant links when over the cap, never a bucket\'s last', () => {
    const held = new Map<string, HeldLink>();
    let t = 0;
    for (const b of table.nonEmptyBuckets()) for (const c of table.bucket(b).slice(0, 4)) held.set(c.hex, link(self, c.id, t++));
    expect(held.size).toBeGreaterThan(32);
    const plan = planLinks(table, held, opts, () => false, rand);
    expect(held.size - plan.close.length).toBe(32);
    const left = [...held.values()].filter((l) => !plan.close.includes(l.hex));
    for (const b of table.nonEmptyBuckets()) expect(left.some((l) => l.bucket === b)).toBe(true);
  });

  it('admits inbound under the cap, at the cap only in place of a redundant link', () => {
    const held = new Map<string, HeldLink>();
    const b159 = table.bucket(159);
    for (const c of b159) held.set(c.hex, link(self, c.id, held.size));
    const newcomer = table.bucket(158)[0]!;
    expect(admitInbound(self, newcomer.id, held, opts)).toEqual({ accept: true });
    const r = admitInbound(self, newcomer.id, held, { ...opts, maxLinks: held.size });
    expect(r).toEqual({ accept: true, close: b159[0]!.hex }); // oldest redundant goes
    const one = new Map([...held].slice(0, 1));
    expect(admitInbound(self, newcomer.id, one, { ...opts, maxLinks: 1 })).toEqual({ accept: false });
  });

  it('pinned links are not counted: 40 pinned to one bucket leave the budget to dial and admit as with none', () => {
    const held = new Map<string, HeldLink>();
    for (const c of table.bucket(159).slice(0, 20)) held.set(c.hex, { ...link(self, c.id, held.size), pinned: true });
    for (const c of table.bucket(158).slice(0, 20)) held.set(c.hex, { ...link(self, c.id, held.size), pinned: true });
    const plan = planLinks(table, held, opts, () => false, rand);
    expect(plan.close).toEqual([]);
    // Every other non-empty bucket gets its links: up to softLinks of them, none for the pinned two.
    const wanted = table.nonEmptyBuckets().filter((b) => b < 158).reduce((n, b) => n + Math.min(2, table.bucket(b).length), 0);
    expect(plan.dial.length).toBe(Math.min(opts.softLinks, wanted));
    expect(plan.dial.every((c) => bucketIndex(self, c.id) < 158)).toBe(true);
    expect(admitInbound(self, table.bucket(150)[0]!.id, held, opts)).toEqual({ accept: true });
  });
});
