import { describe, expect, it, vi } from 'vitest';
import { Mesh, MeshBasicMaterial, type BufferGeometry } from 'three';
import { STONE, WATER } from '../world/blocks';
import { CHUNK_VOLUME, blockIndex } from '../world/coords';
import { createInProcessWorker, MesherPool } from './mesher-pool';
import { TerrainScene } from './terrain-scene';

/** A column of stone up to y = 20 with water on top up to y = 24. */
function column(): Uint8Array {
  const c = new Uint8Array(CHUNK_VOLUME);
  for (let y = 0; y <= 24; y++) for (let z = 0; z < 16; z++) for (let x = 0; x < 16; x++) c[blockIndex(x, y, z)] = y <= 20 ? STONE : WATER;
  return c;
}

function scene(): { terrain: TerrainScene; pool: MesherPool } {
  const pool = new MesherPool({ size: 1, createWorker: createInProcessWorker });
  const terrain = new TerrainScene({ pool, materials: { opaque: new MeshBasicMaterial(), transparent: new MeshBasicMaterial() } });
  return { terrain, pool };
}

const geometries = (t: TerrainScene): BufferGeometry[] => t.group.children.map((m) => (m as Mesh).geometry);
const names = (t: TerrainScene): string[] => t.group.children.map((m) => m.name).sort();

describe('terrain scene', () => {
  it('meshes the non-empty sections of a column, one mesh per pass', async () => {
    const { terrain } = scene();
    terrain.setChunk(0, 0, column());
    expect(terrain.isChunkMeshed(0, 0)).toBe(false);
    await terrain.idle();
    expect(terrain.isChunkMeshed(0, 0)).toBe(true);
    // Section 0 has only bedrock-less stone: its sides are hidden (neighbours unknown),
    // top is covered, bottom is the world's floor: nothing to draw. Section 1 holds the
    // stone top (opaque) and the water surface (transparent).
    expect(names(terrain)).toEqual(['section 0,0,1 opaque', 'section 0,0,1 transparent']);
    expect(terrain.stats).toMatchObject({ chunksLoaded: 1, chunksMeshed: 1, meshBacklog: 0 });
  });

  it('remeshes a neighbour when a column arrives, and disposes every geometry of a removed one', async () => {
    const { terrain } = scene();
    terrain.setChunk(0, 0, column());
    await terrain.idle();
    const before = geometries(terrain);
    const disposed = before.map((g) => vi.spyOn(g, 'dispose'));
    // Air column next door: column 0,0 now shows its east wall, remeshed with new geometry.
    terrain.setChunk(1, 0, new Uint8Array(CHUNK_VOLUME));
    await terrain.idle();
    expect(disposed.every((d) => d.mock.calls.length === 1)).toBe(true);
    expect(names(terrain)).toContain('section 0,0,0 opaque');
    const all = geometries(terrain);
    const spies = all.map((g) => vi.spyOn(g, 'dispose'));
    terrain.removeChunk(0, 0);
    expect(spies.every((d) => d.mock.calls.length === 1)).toBe(true);
    expect(terrain.group.children).toHaveLength(0);
    expect(terrain.stats.chunksLoaded).toBe(1);
  });

  it('drops results of a column removed while it was being meshed', async () => {
    const { terrain } = scene();
    terrain.setChunk(0, 0, column());
    terrain.removeChunk(0, 0);
    await new Promise((r) => setTimeout(r, 20));
    await terrain.idle();
    expect(terrain.group.children).toHaveLength(0);
  });

  it('on an edit at a chunk border remeshes the section and the neighbour it touches', async () => {
    const { terrain } = scene();
    const a = column(), b = column();
    terrain.setChunk(0, 0, a);
    terrain.setChunk(1, 0, b);
    await terrain.idle();
    const meshed = terrain.stats.sectionsMeshed;
    // Dig the stone at world (15, 20, 5): border with column 1,0 and top of section 1.
    a[blockIndex(15, 20, 5)] = 0;
    terrain.markBlockChanged(15, 20, 5);
    await terrain.idle();
    expect(terrain.stats.sectionsMeshed - meshed).toBe(2);
    // And an edit at a section border (y = 16) remeshes the section below too.
    a[blockIndex(4, 16, 4)] = 0;
    terrain.markBlockChanged(4, 16, 4);
    await terrain.idle();
    expect(terrain.stats.sectionsMeshed - meshed).toBe(4);
  });

  it('counts a column drawn while an edit re-meshes it, not while a neighbour\'s arrival does', async () => {
    const { terrain } = scene();
    const a = column();
    terrain.setChunk(0, 0, a);
    await terrain.idle();
    // An edit: the old mesh stays on screen until the new one is there.
    a[blockIndex(4, 20, 4)] = 0;
    terrain.markBlockChanged(4, 20, 4);
    expect(terrain.stats.meshBacklog).toBeGreaterThan(0);
    expect(terrain.isChunkMeshed(0, 0)).toBe(true);
    await terrain.idle();
    // A neighbour: column 0,0 lacks the faces toward it until it is re-meshed.
    terrain.setChunk(1, 0, new Uint8Array(CHUNK_VOLUME));
    expect(terrain.isChunkMeshed(0, 0)).toBe(false);
    await terrain.idle();
    expect(terrain.isChunkMeshed(0, 0)).toBe(true);
  });

  it('hands a worker no section whose every cell and shell hides the next: the stone under the surface', async () => {
    const { terrain, pool } = scene();
    const meshSection = vi.spyOn(pool, 'meshSection');
    const c = new Uint8Array(CHUNK_VOLUME);
    for (let y = 0; y <= 40; y++) for (let z = 0; z < 16; z++) for (let x = 0; x < 16; x++) c[blockIndex(x, y, z)] = STONE;
    terrain.setChunk(0, 0, c);
    await terrain.idle();
    // Sections 0 and 1 (y 0-31) are stone with stone above and unknown (opaque) neighbours;
    // section 2 holds the top.
    expect(meshSection.mock.calls.map(([r]) => r.sy)).toEqual([2]);
    expect(terrain.isChunkMeshed(0, 0)).toBe(true);
    expect(names(terrain)).toEqual(['section 0,0,2 opaque']);
    // An air column beside it opens section 0 and 1's east walls: they are meshed then.
    terrain.setChunk(1, 0, new Uint8Array(CHUNK_VOLUME));
    await terrain.idle();
    expect(meshSection.mock.calls.map(([r]) => r.sy).sort()).toEqual([0, 1, 2, 2]);
    expect(names(terrain)).toEqual(['section 0,0,0 opaque', 'section 0,0,1 opaque', 'section 0,0,2 opaque']);
  });

  it('clears sections that became empty when a column is replaced', async () => {
    const { terrain } = scene();
    terrain.setChunk(0, 0, column());
    await terrain.idle();
    expect(terrain.group.children.length).toBeGreaterThan(0);
    terrain.setChunk(0, 0, new Uint8Array(CHUNK_VOLUME));
    await terrain.idle();
    expect(terrain.group.children).toHaveLength(0);
  });
});
