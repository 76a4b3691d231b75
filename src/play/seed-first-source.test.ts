import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { BRICK, STONE } from '../world/blocks';
import type { Chunk } from '../world/chunk';
import { chunkKey } from '../world/coords';
import { generateChunk } from '../world/terrain';
import type { ChunkSource, ChunkSourceEvents } from './chunk-source';
import { SeedFirstSource, seedDifferences } from './seed-first-source';
import { feedWorld } from './source-feed';
import { WorldModel } from './world-model';

const SEED = 'seed-first';

/** A real source whose columns are the seed's plus `edits`, each load answered when the test says. */
class HeldSource implements ChunkSource {
  readonly events = new Emitter<ChunkSourceEvents>();
  readonly edits = new Map<string, { x: number; y: number; z: number; id: number }[]>();
  readonly waiting = new Map<string, { go: () => void; fail: () => void }>();
  readonly committed: number[][] = [];
  loads = 0;

  load(cx: number, cz: number): Promise<Chunk> {
    this.loads++;
    return new Promise((resolve, reject) => {
      this.waiting.set(chunkKey(cx, cz), {
        go: () => {
          const c = generateChunk(SEED, cx, cz);
          for (const e of this.edits.get(chunkKey(cx, cz)) ?? []) c.set(e.x - cx * 16, e.y, e.z - cz * 16, e.id);
          resolve(c);
        },
        fail: () => reject(new Error('no host')),
      });
    });
  }

  async commitEdit(x: number, y: number, z: number, id: number): Promise<void> {
    this.committed.push([x, y, z, id]);
  }

  answer(cx: number, cz: number): void {
    this.waiting.get(chunkKey(cx, cz))!.go();
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('SeedFirstSource', () => {
  it('answers from the seed before the real source, then writes only where the real one differs from the seed', async () => {
    const src = new SeedFirstSource(SEED);
    const world = new WorldModel();
    feedWorld(src, world);
    for (const [cx, cz] of [[0, 0], [1, 0]] as const) {
      const c = await src.load(cx, cz);
      expect(c.blocks).toEqual(generateChunk(SEED, cx, cz).blocks);
      world.addChunk(c);
    }
    // The player's own edit before the join: shown, and held until a real source takes it.
    expect(generateChunk(SEED, 0, 0).get(3, 120, 3)).not.toBe(STONE);
    world.applyBlock(3, 120, 3, STONE);
    let stored = false;
    void src.commitEdit(3, 120, 3, STONE).then(() => (stored = true));
    await settle();
    expect(stored).toBe(false);

    const real = new HeldSource();
    real.edits.set('0,0', [{ x: 5, y: 150, z: 6, id: BRICK }]);
    src.attach(real);
    await settle();
    expect(stored).toBe(true);
    expect(real.committed).toEqual([[3, 120, 3, STONE]]);
    let merged = false;
    void src.whenMerged(0, 0).then(() => (merged = true));
    await settle();
    expect(merged).toBe(false); // its real load has not answered yet
    real.answer(0, 0);
    await settle();
    expect(merged).toBe(true);
    expect(world.blockAt(5, 150, 6)).toBe(BRICK); // the host's edit, merged
    expect(world.blockAt(3, 120, 3)).toBe(STONE); // the player's own, where the real column is the seed's: left alone
    // A column the real source has not answered is still the seed's.
    expect(world.chunk(1, 0)!.blocks).toEqual(generateChunk(SEED, 1, 0).blocks);

    // Attached, before the first frame: still from the seed, merged once the column is in.
    const seeded = await src.load(-1, 0);
    expect(seeded.blocks).toEqual(generateChunk(SEED, -1, 0).blocks);
    world.addChunk(seeded);
    real.edits.set('-1,0', [{ x: -5, y: 160, z: 4, id: BRICK }]);
    const mergedToo = src.whenMerged(-1, 0);
    await settle();
    real.answer(-1, 0);
    await mergedToo;
    expect(world.blockAt(-5, 160, 4)).toBe(BRICK);

    // Attached and drawn: loads go to the real source, and its changes are passed on.
    src.drawn();
    const loads = real.loads;
    const later = src.load(2, 0);
    expect(real.loads).toBe(loads + 1);
    real.answer(2, 0);
    await later;
    await src.whenMerged(2, 0); // never from the seed: nothing to merge
    real.events.emit('blocks', { changes: [{ x: 17, y: 140, z: 2, id: BRICK }] });
    expect(world.blockAt(17, 140, 2)).toBe(BRICK);
  });

  it('a column released before the attach is not merged; a failed real load leaves the seed column and still ends its wait', async () => {
    const src = new SeedFirstSource(SEED);
    await src.load(0, 0);
    await src.load(4, 4);
    src.release(4, 4);
    const real = new HeldSource();
    src.attach(real);
    await settle(); // merged a task on
    expect([...real.waiting.keys()]).toEqual(['0,0']);
    const wait = src.whenMerged(0, 0);
    real.waiting.get('0,0')!.fail();
    await wait;
    expect(src.mergeFailures).toBe(1);
    expect(() => src.attach(new HeldSource())).toThrow(/attached already/);
  });

  it('merges at most as many columns at once as the streamer loads, nearest (first loaded) first', async () => {
    const src = new SeedFirstSource(SEED);
    const keys: string[] = [];
    for (let cx = 0; cx < 9; cx++) {
      await src.load(cx, 0);
      keys.push(chunkKey(cx, 0));
    }
    const real = new HeldSource();
    src.attach(real);
    await settle();
    expect([...real.waiting.keys()]).toEqual(keys.slice(0, 6));
    real.answer(0, 0);
    await src.whenMerged(0, 0);
    await settle();
    expect([...real.waiting.keys()]).toEqual(keys.slice(0, 7));
    for (let cx = 1; cx < 9; cx++) {
      await settle();
      real.answer(cx, 0);
    }
    await Promise.all(keys.map((_, cx) => src.whenMerged(cx, 0)));
    expect(real.loads).toBe(9);
  });

  it('seedDifferences names each differing block in world coordinates', () => {
    const seeded = generateChunk(SEED, -2, 3);
    const real = generateChunk(SEED, -2, 3);
    real.set(15, 0, 0, BRICK);
    real.set(0, 255, 15, STONE);
    expect(seedDifferences(seeded, real)).toEqual([
      { x: -32 + 15, y: 0, z: 48, id: BRICK },
      { x: -32, y: 255, z: 48 + 15, id: STONE },
    ]);
  });
});
