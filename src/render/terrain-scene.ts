// The terrain part of the scene: chunk columns handed in by the app, their sections
// meshed in the worker pool, one three.js Mesh per (column, section, pass). Knows nothing
// of the network (the app calls setChunk / removeChunk / markBlockChanged) nor of WebGL,
// so it runs under Node tests.
import { Group, Mesh, type Material } from 'three';
import { CHUNK_SIZE, SECTION_HEIGHT, SECTIONS, chunkKey, chunkOf, localOf } from '../world/coords';
import type { MeshResult } from './mesh-job';
import { MeshJobCancelled, type MesherPool } from './mesher-pool';
import { RemeshQueue, sectionKey, type Focus, type SectionRef } from './remesh-queue';
import { sectionGeometry } from './section-geometry';
import { padSection, sectionIsEmpty, sectionIsHidden } from './section-padding';

export interface TerrainMaterials {
  readonly opaque: Material;
  readonly transparent: Material;
}

export interface TerrainSceneOptions {
  readonly pool: Pick<MesherPool, 'meshSection' | 'cancelChunk'>;
  readonly materials: TerrainMaterials;
  /** Corner darkening in the mesher; default false (see greedy-mesher.ts). */
  readonly ambientOcclusion?: boolean;
  /**
   * Jobs handed to the pool at once; default 16. More only queues inside the pool, where
   * priorities cannot change; fewer starves the workers whenever the main thread is busy
   * drawing (replies are only read between frames: 4 gave ~20 sections/s under software GL).
   */
  readonly maxJobsInFlight?: number;
}

export interface TerrainStats {
  chunksLoaded: number;
  /** Loaded columns with nothing left to mesh. */
  chunksMeshed: number;
  sectionsMeshed: number;
  /** Worker time of the latest section meshed. */
  lastMeshMs: number;
  /** Sections waiting or being meshed. */
  meshBacklog: number;
}

interface Column {
  readonly cx: number;
  readonly cz: number;
  readonly blocks: Uint8Array;
  /** [sy * 2 + pass] */
  readonly meshes: (Mesh | undefined)[];
  /** Sections (sy) queued or in a worker. */
  readonly pending: Set<number>;
  /**
   * Of those, the ones marked because the column or a neighbour arrived: their mesh on
   * screen is missing or lacks faces toward the neighbour. The column is fully drawn when
   * empty. A re-mesh after a block edit is not here: the old mesh stays on screen until the
   * new one replaces it.
   */
  readonly unfinished: Set<number>;
}

export class TerrainScene {
  readonly group = new Group();
  readonly stats: TerrainStats = { chunksLoaded: 0, chunksMeshed: 0, sectionsMeshed: 0, lastMeshMs: 0, meshBacklog: 0 };
  private readonly columns = new Map<string, Column>();
  private readonly queue = new RemeshQueue();
  /** Section key -> job number, so a late reply of an older job cannot clear a newer one. */
  private readonly inFlight = new Map<string, number>();
  private jobs = 0;
  private focus: Focus = { x: 0, y: 64, z: 0 };
  private idleWaiters: (() => void)[] = [];
  private readonly maxJobs: number;

  constructor(private readonly options: TerrainSceneOptions) {
    this.group.name = 'terrain';
    this.maxJobs = options.maxJobsInFlight ?? 16;
  }

  /**
   * Shows a column. The renderer keeps a reference to `blocks` (no copy) and reads it
   * when meshing; after changing a block, call markBlockChanged.
   */
  setChunk(cx: number, cz: number, blocks: Uint8Array): void {
    const key = chunkKey(cx, cz);
    const old = this.columns.get(key);
    const col: Column = { cx, cz, blocks, meshes: old?.meshes ?? new Array<Mesh | undefined>(SECTIONS * 2).fill(undefined), pending: new Set(), unfinished: new Set() };
    this.columns.set(key, col);
    // A replaced column must also clear sections that became empty.
    for (let sy = 0; sy < SECTIONS; sy++) if (old || !sectionIsEmpty(blocks, sy)) this.mark(cx, cz, sy, false);
    // Neighbours drew no faces toward this column while it was unknown.
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
      const n = this.columns.get(chunkKey(cx + dx, cz + dz));
      if (!n) continue;
      for (let sy = 0; sy < SECTIONS; sy++) if (!sectionIsEmpty(n.blocks, sy)) this.mark(cx + dx, cz + dz, sy, false);
    }
    this.syncStats();
    this.pump();
  }

  /** Stops showing a column and frees its GPU geometry. */
  removeChunk(cx: number, cz: number): void {
    const key = chunkKey(cx, cz);
    const col = this.columns.get(key);
    if (!col) return;
    this.columns.delete(key);
    this.queue.dropChunk(cx, cz);
    this.options.pool.cancelChunk(cx, cz);
    for (let sy = 0; sy < SECTIONS; sy++) this.inFlight.delete(sectionKey(cx, cz, sy));
    for (let i = 0; i < col.meshes.length; i++) this.setMesh(col, i, undefined);
    this.syncStats();
    this.pump();
  }

  hasChunk(cx: number, cz: number): boolean {
    return this.columns.has(chunkKey(cx, cz));
  }

  /**
   * True once a loaded column is fully drawn: every section meshed since the column and its
   * neighbours arrived. Sections re-meshed after a block edit do not count against it (their
   * old mesh is on screen meanwhile), so a player editing nearby sees no "missing" column.
   */
  isChunkMeshed(cx: number, cz: number): boolean {
    return this.columns.get(chunkKey(cx, cz))?.unfinished.size === 0;
  }

  /** Re-meshes the section of a changed block, and the neighbours it touches on a border. */
  markBlockChanged(x: number, y: number, z: number): void {
    const cx = chunkOf(x), cz = chunkOf(z);
    const lx = localOf(x), lz = localOf(z);
    const sy = Math.floor(y / SECTION_HEIGHT), ly = y - sy * SECTION_HEIGHT;
    const dxs = lx === 0 ? [0, -1] : lx === CHUNK_SIZE - 1 ? [0, 1] : [0];
    const dzs = lz === 0 ? [0, -1] : lz === CHUNK_SIZE - 1 ? [0, 1] : [0];
    const dys = ly === 0 ? [0, -1] : ly === SECTION_HEIGHT - 1 ? [0, 1] : [0];
    // Diagonal neighbours matter only to ambient occlusion.
    const diag = this.options.ambientOcclusion ?? false;
    for (const dx of dxs) for (const dz of dzs) for (const dy of dys) {
      const axes = (dx !== 0 ? 1 : 0) + (dz !== 0 ? 1 : 0) + (dy !== 0 ? 1 : 0);
      if (axes > 1 && !diag) continue;
      if (sy + dy < 0 || sy + dy >= SECTIONS) continue;
      this.mark(cx + dx, cz + dz, sy + dy, true);
    }
    this.syncStats();
    this.pump();
  }

  /** Where the camera is: nearer sections mesh first. */
  setFocus(focus: Focus): void {
    this.focus = { x: focus.x, y: focus.y, z: focus.z };
  }

  /** Resolves when nothing is queued or being meshed. */
  idle(): Promise<void> {
    if (this.queue.size === 0 && this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Hands queued sections to the pool, nearest first, a few at a time. */
  pump(): void {
    // Empty sections finish without a worker, so keep taking until the slots are full.
    for (let free = this.maxJobs - this.inFlight.size; free > 0; free = this.maxJobs - this.inFlight.size) {
      const refs = this.queue.take(free, this.focus, (k) => this.inFlight.has(k));
      if (refs.length === 0) break;
      for (const ref of refs) this.start(ref);
    }
    this.syncStats();
    this.checkIdle();
  }

  dispose(): void {
    for (const col of [...this.columns.values()]) this.removeChunk(col.cx, col.cz);
  }

  private mark(cx: number, cz: number, sy: number, urgent: boolean): void {
    const col = this.columns.get(chunkKey(cx, cz));
    if (!col) return;
    col.pending.add(sy);
    if (!urgent) col.unfinished.add(sy);
    this.queue.mark(cx, cz, sy, urgent);
  }

  private start(ref: SectionRef): void {
    const { cx, cz, sy } = ref;
    const col = this.columns.get(chunkKey(cx, cz));
    if (!col) return;
    const padded = sectionIsEmpty(col.blocks, sy) ? undefined : padSection((dx, dz) => this.columns.get(chunkKey(cx + dx, cz + dz))?.blocks, sy);
    if (!padded || sectionIsHidden(padded)) {
      // All air, or all hidden: nothing to draw and no reason to wake a worker.
      this.setMesh(col, sy * 2, undefined);
      this.setMesh(col, sy * 2 + 1, undefined);
      this.finishSection(col, sy);
      return;
    }
    const key = sectionKey(cx, cz, sy);
    const job = ++this.jobs;
    this.inFlight.set(key, job);
    this.options.pool
      .meshSection({ cx, cz, sy, padded, ambientOcclusion: this.options.ambientOcclusion ?? false })
      .then(
        (result) => this.onMeshed(key, job, col, result),
        (err: unknown) => this.onFailed(key, job, col, sy, err),
      );
  }

  private endJob(key: string, job: number): void {
    if (this.inFlight.get(key) === job) this.inFlight.delete(key);
  }

  /** Still the column this job was started for (not removed or replaced since)? */
  private current(col: Column, cx: number, cz: number): boolean {
    return this.columns.get(chunkKey(cx, cz)) === col;
  }

  private onMeshed(key: string, job: number, col: Column, result: MeshResult): void {
    this.endJob(key, job);
    if (!this.current(col, result.cx, result.cz)) {
      this.pump();
      return;
    }
    const { sy, mesh } = result;
    const origin: [number, number, number] = [result.cx * CHUNK_SIZE, sy * SECTION_HEIGHT, result.cz * CHUNK_SIZE];
    for (const [pass, buffers] of [mesh.opaque, mesh.transparent].entries()) {
      if (buffers.quads === 0) {
        this.setMesh(col, sy * 2 + pass, undefined);
        continue;
      }
      const sectionMesh = new Mesh(sectionGeometry(buffers), pass === 0 ? this.options.materials.opaque : this.options.materials.transparent);
      sectionMesh.name = `section ${key} ${pass === 0 ? 'opaque' : 'transparent'}`;
      sectionMesh.position.set(...origin);
      sectionMesh.matrixAutoUpdate = false;
      sectionMesh.updateMatrix();
      this.setMesh(col, sy * 2 + pass, sectionMesh);
    }
    this.stats.sectionsMeshed++;
    this.stats.lastMeshMs = result.ms;
    this.finishSection(col, sy);
    this.pump();
  }

  private onFailed(key: string, job: number, col: Column, sy: number, err: unknown): void {
    this.endJob(key, job);
    if (!(err instanceof MeshJobCancelled)) {
      // A bug, not a condition to recover from; the section stays as it was drawn.
      console.error('meshing failed', key, err);
      if (this.inFlight.get(key) === undefined) this.finishSection(col, sy);
    }
    this.pump();
  }

  private finishSection(col: Column, sy: number): void {
    // Marked again while it was being meshed: it is still pending.
    if (this.queue.has(col.cx, col.cz, sy)) return;
    col.pending.delete(sy);
    col.unfinished.delete(sy);
  }

  /** Replaces one mesh slot, disposing the geometry it held (no GPU memory leak). */
  private setMesh(col: Column, slot: number, mesh: Mesh | undefined): void {
    const old = col.meshes[slot];
    if (old) {
      this.group.remove(old);
      old.geometry.dispose();
    }
    col.meshes[slot] = mesh;
    if (mesh) this.group.add(mesh);
  }

  private syncStats(): void {
    let meshed = 0;
    for (const c of this.columns.values()) if (c.pending.size === 0) meshed++;
    this.stats.chunksLoaded = this.columns.size;
    this.stats.chunksMeshed = meshed;
    this.stats.meshBacklog = this.queue.size + this.inFlight.size;
  }

  private checkIdle(): void {
    if (this.queue.size > 0 || this.inFlight.size > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
