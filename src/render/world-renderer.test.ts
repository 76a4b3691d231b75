import { describe, expect, it, vi } from 'vitest';
import { STONE } from '../world/blocks';
import { CHUNK_VOLUME, blockIndex } from '../world/coords';
import { BlockHighlight } from './block-highlight';
import { createInProcessWorker, MesherPool } from './mesher-pool';
import { WorldRenderer, type Renderer } from './world-renderer';

/** WebGL is not available under Node: a renderer that only counts. */
function fakeRenderer(): Renderer {
  return {
    render: vi.fn(),
    setSize: vi.fn(),
    setPixelRatio: vi.fn(),
    dispose: vi.fn(),
    info: { render: { calls: 3, triangles: 120, frame: 1, points: 0, lines: 0 }, memory: { geometries: 7, textures: 0 }, programs: null, autoReset: true, reset: vi.fn() },
  } as unknown as Renderer;
}

describe('world renderer', () => {
  it('draws chunks handed to it and reports stats', async () => {
    const pool = new MesherPool({ size: 1, createWorker: createInProcessWorker });
    const r = new WorldRenderer({ renderer: fakeRenderer(), pool, renderDistance: 4 });
    const col = new Uint8Array(CHUNK_VOLUME);
    col[blockIndex(3, 40, 3)] = STONE;
    r.setChunk(0, 0, col);
    await r.idle();
    r.render();
    expect(r.isChunkMeshed(0, 0)).toBe(true);
    expect(r.stats()).toMatchObject({ chunksLoaded: 1, chunksMeshed: 1, sectionsMeshed: 1, drawCalls: 3, triangles: 120 });
    expect(r.scene.fog).toMatchObject({ far: 64 });
    expect(r.camera.far).toBeGreaterThan(64 * 1.2);
    r.removeChunk(0, 0);
    expect(r.stats().chunksLoaded).toBe(0);
    r.dispose();
  });
});

describe('block highlight', () => {
  it('outlines the targeted block and hides', () => {
    const h = new BlockHighlight();
    expect(h.visible).toBe(false);
    h.show(-3, 10, 7);
    expect(h.visible).toBe(true);
    expect(h.object.position.toArray()).toEqual([-2.5, 10.5, 7.5]);
    h.hide();
    expect(h.visible).toBe(false);
    h.dispose();
  });
});
