import { describe, expect, it } from 'vitest';
import { compareDistance, randomId, sortByDistance, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { NearNodes } from './near-view';

const rand = seededRandom(7);
const ids = Array.from({ length: 12 }, () => randomId(rand));
const key = randomId(rand);

/** A view whose lookups answer only when the test says (`asked[i].done()`), in the order they began. */
function heldLookups() {
  const asked: { key: NodeId; done: () => void }[] = [];
  const view = new NearNodes({
    selfId: randomId(rand), readOnly: true, clock: new VirtualClock(), closest: () => [],
    findNode: (k) => new Promise((done) => asked.push({ key: k, done: () => done({ closest: [{ id: ids[0]! }] }) })),
  });
  return { view, asked };
}

function setup(table: NodeId[], readOnly = false) {
  const clock = new VirtualClock();
  const self = randomId(rand);
  const looked: NodeId[] = [];
  const view: NearNodes = new NearNodes({
    selfId: self, readOnly, clock,
    closest: (k, n) => sortByDistance([...table], (x) => x, k).slice(0, n),
    findNode: (k) => {
      looked.push(k);
      view.record(k, ids);
      return Promise.resolve({ closest: sortByDistance(ids, (x) => x, k).map((id) => ({ id })) });
    },
  });
  return { clock, self, view, looked };
}

describe('a node\'s view of who is near a key', () => {
  it('merges its table, its lookups\' answers and itself, nearest first', () => {
    const { view, self } = setup(ids.slice(0, 3));
    const want = (list: NodeId[]) => sortByDistance(list, (x) => x, key).slice(0, 5);
    expect(view.near(key, 5)).toEqual(want([...ids.slice(0, 3), self]));
    view.record(key, ids.slice(3));
    expect(view.near(key, 5)).toEqual(want([...ids, self]));
  });

  it('a read-only node is nobody\'s near node, not even its own', () => {
    const { view, self } = setup([]);
    expect(view.near(key, 5)).toContainEqual(self);
    expect(setup([], true).view.near(key, 5)).toEqual([]);
  });

  it('forgets lookup answers after KEEP_MS; refreshes a key at most every REFRESH_EVERY_MS and within the rate', async () => {
    const { view, clock, looked } = setup([]);
    expect(await view.refresh(key)).toBe(true);
    expect(await view.refresh(key)).toBe(false);
    expect(view.near(key, 20).length).toBe(13);
    clock.advanceSync(120_001);
    expect(view.near(key, 20).length).toBe(1);
    for (let i = 0; i < 20; i++) await view.refresh(randomId(rand));
    expect(view.stats.refreshesLimited).toBeGreaterThan(0);
    expect(looked.length).toBeLessThan(12);
  });

  it('merges later answers into earlier ones (an eclipsed lookup adds its liars, the nearer nodes stay), each node kept KEEP_MS from when it was last named', () => {
    const { view, clock } = setup([], true); // itself left out: only answers in the view
    const byDist = sortByDistance(ids, (x) => x, key);
    const honest = byDist.slice(0, 4), liars = byDist.slice(4);
    view.record(key, honest);
    clock.advanceSync(60_000);
    view.record(key, liars);
    expect(view.near(key, 4)).toEqual(honest);
    clock.advanceSync(60_001);
    // The honest answers are 120 s old now, the liars' 60 s.
    expect(view.near(key, 4)).toEqual(liars.slice(0, 4));
    // Bounded: 20 nodes a key, the nearest kept.
    const farther = Array.from({ length: 200 }, () => randomId(rand)).filter((x) => compareDistance(x, honest[3]!, key) > 0).slice(0, 30);
    view.record(key, farther);
    view.record(key, honest);
    expect(view.near(key, 4)).toEqual(honest);
    expect(view.near(key, 100).length).toBe(20);
  });

  it('live: the nodes that answered its own lookup by disjoint paths, not its table; one lookup a key per liveMs, joined while it runs', async () => {
    const table = Array.from({ length: 8 }, () => randomId(rand));
    const { view, clock, looked, self } = setup(table);
    const [a, b] = await Promise.all([view.live(key, 5), view.live(key, 5)]);
    expect(looked.length, 'two asks, one lookup').toBe(1);
    expect(a).toEqual(sortByDistance([...ids, self], (x) => x, key).slice(0, 5));
    expect(b).toEqual(a);
    expect(a.some((x) => table.includes(x)), 'no table contact counts as live').toBe(false);
    clock.advanceSync(29_000);
    await view.live(key, 5);
    expect(looked.length).toBe(1);
    clock.advanceSync(1_000);
    await view.live(key, 5);
    expect(looked.length, 'after liveMs, looked up again').toBe(2);
    // A refresh is such a lookup too.
    const other = randomId(rand);
    await view.refresh(other);
    await view.live(other, 5);
    expect(looked.length).toBe(3);
  });

  // A player's first subscriptions (its region and the 8 around it) each want a live lookup,
  // and all of them ask the nodes nearest those keys, the regions' hosts: in the crowd
  // simulation (hosting-crowd-sim.test.ts, 40 peers) 360 at once moved host sets with nobody
  // killed. Two run at a time; the rest wait their turn.
  it('live: at most two lookups by disjoint paths at once, the rest in turn', async () => {
    const { view, asked } = heldLookups();
    const keys = Array.from({ length: 5 }, () => randomId(rand));
    const answers = keys.map((k) => view.live(k, 1));
    await Promise.resolve();
    expect(asked.length, 'two at once').toBe(2);
    asked[0]!.done();
    expect(await answers[0]).toEqual([ids[0]]);
    expect(asked.length, 'one ended, the next began').toBe(3);
    for (let i = 1; i < 5; i++) {
      asked[i]!.done();
      await answers[i];
    }
    expect(asked.map((a) => a.key), 'each key once, in the order asked').toEqual(keys);
    expect(view.stats.sweeps).toBe(5);
  });
});
