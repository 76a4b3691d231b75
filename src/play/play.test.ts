import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { Chunk } from '../world/chunk';
import { AIR, STONE, WATER } from '../world/blocks';
import { BlockEditor, EditRefused } from './block-editor';
import type { ChunkSource, ChunkSourceEvents } from './chunk-source';
import { ChunkStreamer } from './chunk-streamer';
import { ringOffsets, wantedColumns } from './chunk-ring';
import { PlayerSession } from './player-session';
import { UNLOADED, WorldModel } from './world-model';

/** Flat stone up to y=9, edits kept in memory; `fail` makes the next commit throw. */
class FlatSource implements ChunkSource {
  readonly events = new Emitter<ChunkSourceEvents>();
  edits: [number, number, number, number][] = [];
  loads: string[] = [];
  fail = false;
  async load(cx: number, cz: number): Promise<Chunk> {
    this.loads.push(`${cx},${cz}`);
    const c = new Chunk(cx, cz);
    for (let y = 0; y < 10; y++) for (let z = 0; z < 16; z++) for (let x = 0; x < 16; x++) c.set(x, y, z, STONE);
    return c;
  }
  async commitEdit(x: number, y: number, z: number, id: number): Promise<void> {
    if (this.fail) throw new Error('disk full');
    this.edits.push([x, y, z, id]);
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('chunk ring', () => {
  it('orders columns nearest first and covers the disc', () => {
    const r = ringOffsets(8);
    expect(r[0]).toEqual({ cx: 0, cz: 0 });
    const d = r.map((o) => o.cx * o.cx + o.cz * o.cz);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    expect(r.length).toBeGreaterThan(200);
    expect(r.length).toBeLessThanOrEqual(289);
    expect(wantedColumns({ cx: -3, cz: 5 }, 1)).toContainEqual({ cx: -4, cz: 5 });
  });
});

describe('world model and streamer', () => {
  it('loads nearest first, unloads far columns, and reports UNLOADED elsewhere', async () => {
    const world = new WorldModel();
    const src = new FlatSource();
    const s = new ChunkStreamer(world, src, 4);
    expect(world.blockAt(0, 5, 0)).toBe(UNLOADED);
    s.update({ cx: 0, cz: 0 }, 2);
    expect(src.loads[0]).toBe('0,0');
    for (let i = 0; i < 10; i++) await settle();
    expect(s.complete()).toBe(true);
    expect(world.blockAt(-1, 5, -1)).toBe(STONE);
    expect(world.blockAt(-1, 12, -1)).toBe(AIR);
    const unloaded: string[] = [];
    world.events.on('chunkUnloaded', (c) => unloaded.push(`${c.cx},${c.cz}`));
    s.update({ cx: 10, cz: 0 }, 2);
    expect(unloaded).toContain('-2,0');
    expect(world.has(0, 0)).toBe(false);
  });

  it('does its work only when the centre, the distance or a load changed; retries a failed load at the next update', async () => {
    const world = new WorldModel();
    const src = new FlatSource();
    let failNext = true;
    const load = src.load.bind(src);
    src.load = async (cx, cz) => {
      if (failNext && cx === 0 && cz === 0) { failNext = false; throw new Error('source down'); }
      return load(cx, cz);
    };
    const s = new ChunkStreamer(world, src, 32);
    let scans = 0;
    const keys = world.loadedKeys.bind(world);
    world.loadedKeys = () => (scans++, keys());
    s.update({ cx: 0, cz: 0 }, 0);
    for (let i = 0; i < 10; i++) await settle();
    expect(s.lastError?.message).toBe('source down');
    expect(world.has(0, 0)).toBe(false);
    const before = scans;
    s.update({ cx: 0, cz: 0 }, 0); // the failed column is asked again
    for (let i = 0; i < 10; i++) await settle();
    expect(world.has(0, 0)).toBe(true);
    s.update({ cx: 0, cz: 0 }, 1);
    for (let i = 0; i < 10; i++) await settle();
    expect(s.complete()).toBe(true);
    const settled = scans;
    expect(settled).toBeGreaterThan(before);
    for (let i = 0; i < 100; i++) s.update({ cx: 0, cz: 0 }, 1); // 100 frames standing still
    expect(scans).toBe(settled);
    s.update({ cx: 0, cz: 0 }, 2);
    expect(scans).toBe(settled + 1);
  });
});

describe('block editor', () => {
  async function setup() {
    const world = new WorldModel();
    const src = new FlatSource();
    world.addChunk(await src.load(0, 0));
    const player = new PlayerSession(world, 8.5, 10, 8.5);
    const editor = new BlockEditor(world, src, () => player.body);
    return { world, src, player, editor };
  }

  it('applies, stores and announces an edit', async () => {
    const { world, src, editor } = await setup();
    const seen: number[] = [];
    world.events.on('blockChanged', (e) => seen.push(e.id));
    await editor.setBlock(3, 9, 3, AIR);
    expect(world.blockAt(3, 9, 3)).toBe(AIR);
    expect(src.edits).toEqual([[3, 9, 3, AIR]]);
    expect(seen).toEqual([AIR]);
  });

  it('refuses bad ids, out-of-world, the bedrock floor, unloaded columns, water and placing inside the player', async () => {
    const { editor } = await setup();
    await expect(editor.setBlock(1, 10, 1, 999)).rejects.toThrow(EditRefused);
    await expect(editor.setBlock(1, 256, 1, STONE)).rejects.toThrow(/outside the world/);
    await expect(editor.setBlock(40, 10, 1, STONE)).rejects.toThrow(/not loaded/);
    await expect(editor.setBlock(1, 10, 1, WATER)).rejects.toThrow(/cannot be placed/);
    await expect(editor.setBlock(8, 10, 8, STONE)).rejects.toThrow(/inside the player/);
    await expect(editor.setBlock(1.5, 10, 1, STONE)).rejects.toThrow(/integers/);
    await expect(editor.setBlock(1, 0, 1, AIR)).rejects.toMatchObject({ code: 'world-floor' });
    await expect(editor.setBlock(1, 0, 1, STONE)).rejects.toMatchObject({ code: 'world-floor' });
  });

  it('rolls back an edit that could not be stored', async () => {
    const { world, src, editor } = await setup();
    src.fail = true;
    await expect(editor.setBlock(2, 10, 2, STONE)).rejects.toThrow('disk full');
    expect(world.blockAt(2, 10, 2)).toBe(AIR);
    expect(editor.unsettled).toBe(0);
  });
});

describe('player session', () => {
  it('stands on the surface, targets the block below, and does not fall into unloaded columns', async () => {
    const world = new WorldModel();
    const src = new FlatSource();
    world.addChunk(await src.load(0, 0));
    const p = new PlayerSession(world, 8.5, 100, 8.5);
    expect(p.standOnSurface()).toBe(true);
    expect(p.body.y).toBe(10);
    p.pitch = -Math.PI / 2 + 0.01;
    expect(p.target()).toMatchObject({ x: 8, y: 9, z: 8, ny: 1 });
    const away = new PlayerSession(world, 40.5, 50, 0.5);
    away.step({ forward: 0, right: 0, jump: false, flying: false, descend: false, sprint: false }, 0.05);
    expect(away.body.y).toBe(50);
    p.select(-1);
    expect(p.selected).toBeGreaterThan(0);
  });
});
