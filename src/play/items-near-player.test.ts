import { describe, expect, it } from 'vitest';
import { WorldClock } from '../agree/world-clock';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { STONE, WATER } from '../world/blocks';
import { Chunk } from '../world/chunk';
import { ItemAppearances } from './item-appearances';
import { ItemFramePacer } from './item-frame-pacer';
import { groundAt, ItemsNearPlayer } from './items-near-player';
import { LocalItems } from './local-items';
import { WorldModel } from './world-model';

/** The item area at (0, 0) (64 x 64 blocks) loaded, stone up to y 9 (water on top at 3, 10, 3), the player on it in the middle looking north (yaw 0: -z). */
function setup() {
  const world = new WorldModel();
  for (let cx = 0; cx < 4; cx++) {
    for (let cz = 0; cz < 4; cz++) {
      const c = new Chunk(cx, cz);
      for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) for (let y = 0; y < 10; y++) c.set(x, y, z, STONE);
      world.addChunk(c);
    }
  }
  world.chunk(0, 0)!.set(3, 10, 3, WATER);
  const local = new VirtualClock(1000);
  const clock = new WorldClock({ local, base: 1.7e12, send: () => {}, references: () => [] });
  const service = new LocalItems({ seed: 'w', self: 'me', clock, ground: (x, z) => groundAt(world, x, z), rng: seededRandom(3), spawnMeanMs: 1e12 });
  const session = { body: { x: 32.5, y: 10, z: 32.5 }, yaw: 0 };
  const appearances = new ItemAppearances(0, false);
  const near = new ItemsNearPlayer({ service, world, session, appearances, pacer: null, probeGate: null });
  return { world, local, clock, service, session, near, appearances };
}

describe('ItemsNearPlayer (the items around the player and in its hands)', () => {
  it('stands on the highest solid block of a loaded column; water is not ground; an unloaded column has none', () => {
    const { world } = setup();
    expect(groundAt(world, 5, 5)).toBe(10);
    expect(groundAt(world, 3, 3)).toBe(10);
    expect(groundAt(world, 70, 5)).toBeUndefined();
  });

  it('a frame takes what the player walks into, the bar keeps a held item selected, E cycles and a drop lands 3 blocks ahead on the ground', async () => {
    const { local, clock, service, session, near } = setup();
    const a = service.spawnNow(near.feet())!;
    const b = service.spawnNow(near.feet())!;
    local.advanceSync(Math.max(a.at, b.at) - clock.now() + 1);
    expect(near.inView().map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
    session.body = { x: a.x, y: a.y, z: a.z };
    near.step(0, clock.now());
    session.body = { x: b.x, y: b.y, z: b.z };
    const shows = near.step(16, clock.now())!;
    expect(shows.held.map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
    expect(shows.shown).toEqual([]);
    expect(shows.selected).toBe(0);
    const first = near.selectedItem()!;
    near.selectNext();
    expect(near.selectedItem()!.id).not.toBe(first.id);
    near.selectNext();
    expect(near.selectedItem()!.id).toBe(first.id);
    session.body = { x: 32.5, y: 10, z: 32.5 };
    const dropped = await near.drop(first.id);
    expect(dropped).toMatchObject({ dropped: true, item: { x: 32.5, y: 10, z: 29.5 } });
    // One item held now: the selection stays within what is held.
    near.selectNext();
    expect(near.step(32, clock.now())!.selected).toBe(0);
    expect(await near.drop('no-such-item')).toMatchObject({ dropped: false });
  });

  it('without items: nothing in view, no frame to show, a drop refused; a page that draws nothing draws every frame', async () => {
    const { world, session, appearances } = setup();
    const none = new ItemsNearPlayer({ service: null, world, session, appearances, pacer: null, probeGate: null });
    expect(none.inView()).toEqual([]);
    expect(none.step(0, 0)).toBeNull();
    expect(await none.drop('x')).toEqual({ dropped: false, reason: 'unknown-item' });
    expect(none.frameChoice(0, 0)).toBe('draw');
    const pacer = new ItemFramePacer();
    const drawing = new ItemsNearPlayer({ service: null, world, session, appearances, pacer, probeGate: null });
    expect(drawing.frameChoice(0, 0)).toBe('draw');
  });
});
