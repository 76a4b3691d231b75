import { describe, expect, it } from 'vitest';
import { STONE } from '../world/blocks';
import { CHUNK_VOLUME, blockIndex } from '../world/coords';
import { createMeshJobHandler, type MeshJobMessage } from './mesh-job';
import { createInProcessWorker, defaultPoolSize, MeshJobCancelled, MesherPool, type WorkerLike } from './mesher-pool';
import { padSection } from './section-padding';

function padded(): Uint8Array {
  const col = new Uint8Array(CHUNK_VOLUME);
  col[blockIndex(3, 3, 3)] = STONE;
  const empty = new Uint8Array(CHUNK_VOLUME);
  return padSection((dx, dz) => (dx || dz ? empty : col), 0);
}

/** A worker that holds its jobs until the test releases them. */
function heldWorker(): WorkerLike & { release(): void; posted: MeshJobMessage[] } {
  const handle = createMeshJobHandler();
  const posted: MeshJobMessage[] = [];
  const w = {
    posted,
    onmessage: null as WorkerLike['onmessage'],
    onerror: null as WorkerLike['onerror'],
    postMessage(m: MeshJobMessage) {
      posted.push(m);
    },
    terminate() {},
    release() {
      const m = posted.shift();
      if (m) w.onmessage?.({ data: handle(m) });
    },
  };
  return w;
}

describe('mesher pool', () => {
  it('sizes itself to the cores minus one, between 1 and 4', () => {
    expect(defaultPoolSize(1)).toBe(1);
    expect(defaultPoolSize(2)).toBe(1);
    expect(defaultPoolSize(4)).toBe(3);
    expect(defaultPoolSize(16)).toBe(4);
  });

  it('meshes sections and resolves with the mesh', async () => {
    const pool = new MesherPool({ size: 2, createWorker: createInProcessWorker });
    const results = await Promise.all([0, 1, 2].map((i) => pool.meshSection({ cx: i, cz: 0, sy: 0, padded: padded() })));
    expect(results.map((r) => r.cx)).toEqual([0, 1, 2]);
    expect(results.every((r) => r.mesh.opaque.quads === 6)).toBe(true);
    expect(pool.stats.completed).toBe(3);
    pool.terminate();
  });

  it('drops queued and running jobs of an unloaded chunk', async () => {
    const worker = heldWorker();
    const pool = new MesherPool({ size: 1, createWorker: () => worker });
    const running = pool.meshSection({ cx: 5, cz: 5, sy: 0, padded: padded() });
    const queued = pool.meshSection({ cx: 5, cz: 5, sy: 1, padded: padded() });
    const other = pool.meshSection({ cx: 6, cz: 5, sy: 0, padded: padded() });
    expect(pool.cancelChunk(5, 5)).toBe(2);
    await expect(running).rejects.toBeInstanceOf(MeshJobCancelled);
    await expect(queued).rejects.toMatchObject({ name: 'MeshJobCancelled' });
    worker.release(); // the running job's late reply is ignored, the next job starts
    expect(worker.posted.map((m) => m.request.cx)).toEqual([6]);
    worker.release();
    expect((await other).cx).toBe(6);
    expect(pool.stats).toMatchObject({ completed: 1, cancelled: 2, queued: 0, running: 0 });
  });
});
