import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { WorldClock } from '../agree/world-clock';
import { LocalItems } from './local-items';

function setup(spawnMeanMs = 10_000) {
  const local = new VirtualClock(1000);
  const clock = new WorldClock({ local, base: 1.7e12, send: () => {}, references: () => [] });
  const items = new LocalItems({ seed: 'w', self: 'me', clock, ground: () => 20, rng: seededRandom(3), spawnMeanMs });
  return { local, clock, items };
}

describe('LocalItems (the one-tab mode: this tab the only voter)', () => {
  it('a spawn shows at its agreed time; walking into it takes it; a drop puts it back; too far is refused', async () => {
    const { local, clock, items } = setup(1e12);
    const me = { x: 10, y: 20, z: 10 };
    const it = items.spawnNow(me)!;
    expect(it.at).toBeGreaterThan(clock.now());
    expect(items.inView(me, 100)).toEqual([]); // not yet shown
    local.advanceSync(it.at - clock.now());
    expect(items.inView(me, 100).map((i) => i.id)).toEqual([it.id]);
    expect(await items.touch(it.id, { x: it.x + 10, y: it.y, z: it.z })).toEqual({ taken: false, reason: 'too-far' });
    items.step({ x: it.x + 0.5, y: it.y, z: it.z }); // walks into it
    expect(items.inventory().map((i) => i.id)).toEqual([it.id]);
    expect(items.inView(me, 100)).toEqual([]);
    expect(await items.touch(it.id, it)).toMatchObject({ taken: true }); // ours already: no second vote
    const dropped = await items.drop(it.id, { x: 30, y: 20, z: 30 });
    expect(dropped).toMatchObject({ dropped: true, item: { owner: null, x: 30 } });
    expect(items.inventory()).toEqual([]);
    expect(items.inView(me, 100).map((i) => i.id)).toEqual([it.id]);
    // Carried into the next area and dropped there: it moves ledgers, still one item.
    items.step({ x: 30, y: 20, z: 30 });
    const far = await items.drop(it.id, { x: 100, y: 20, z: 30 });
    expect(far).toMatchObject({ dropped: true, item: { x: 100 } });
    expect(items.inView({ x: 100, y: 20, z: 30 }, 10).map((i) => i.id)).toEqual([it.id]);
    expect(items.stats()['too-far']).toBe(1);
    // Kept and restored (a reload): the same items, the same owners, the next slot after them.
    const again = new LocalItems({ seed: 'w', self: 'me', clock, ground: () => 20, rng: seededRandom(4), spawnMeanMs: 1e12 });
    again.restore(items.states());
    expect(again.inView({ x: 100, y: 20, z: 30 }, 10).map((i) => i.id)).toEqual([it.id]);
    expect(again.spawnNow(me)!.id).not.toBe(it.id);
  });

  it('spawns at random intervals, only in the area the player stands in, never more than the ground holds', () => {
    const { local, items } = setup(10_000);
    const me = { x: 100, y: 0, z: -50 }; // area (1, -1); standing far below the items, so none is taken
    for (let t = 0; t < 600; t++) {
      items.step(me);
      local.advanceSync(1000);
    }
    const shown = items.inView(me, 1000);
    expect(shown.length).toBe(6);
    for (const i of shown) {
      expect(Math.floor(i.x / 64)).toBe(1);
      expect(Math.floor(i.z / 64)).toBe(-1);
    }
    expect(items.stats().spawned).toBe(6);
  });
});
