// A small pool of mesh workers behind a promise API. Jobs wait in a FIFO queue (the
// renderer already hands them over nearest-first and a few at a time); a job for a
// chunk that was unloaded is dropped from the queue, or its result is discarded when
// it comes back, and its promise rejects with MeshJobCancelled.
import { createMeshJobHandler, type MeshJobMessage, type MeshReply, type MeshRequest, type MeshResult } from './mesh-job';
import { VoxelError } from '../core/errors';

/** Workers never exceed this: meshing is bursty and each worker costs memory. */
const MAX_WORKERS = 4;
/** One core is left to the main thread (and the tab's networking). */
const RESERVED_CORES = 1;

/** The part of a Worker the pool uses; tests and the in-process fallback fake it. */
export interface WorkerLike {
  postMessage(message: MeshJobMessage, transfer: Transferable[]): void;
  onmessage: ((ev: { data: MeshReply }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  terminate(): void;
}

export interface MesherPoolOptions {
  /** Number of workers; default defaultPoolSize(). */
  readonly size?: number;
  /** Makes one worker; default a module Web Worker on mesh-worker.ts. */
  readonly createWorker?: () => WorkerLike;
}

export class MeshJobCancelled extends VoxelError {
  readonly code = 'mesh-cancelled';
  override readonly name = 'MeshJobCancelled';
  constructor(request: Pick<MeshRequest, 'cx' | 'cz' | 'sy'>) {
    super(`mesh job for section ${request.cx},${request.cz}/${request.sy} cancelled`);
  }
}

export class MeshWorkerError extends VoxelError {
  readonly code = 'mesh-worker-failed';
  override readonly name = 'MeshWorkerError';
}

export interface MesherPoolStats {
  workers: number;
  queued: number;
  running: number;
  completed: number;
  cancelled: number;
  failed: number;
}

interface Job {
  readonly id: number;
  readonly request: MeshRequest;
  readonly resolve: (r: MeshResult) => void;
  readonly reject: (e: Error) => void;
  cancelled: boolean;
}

interface Slot {
  readonly worker: WorkerLike;
  job: Job | undefined;
}

/** hardwareConcurrency - 1, at least 1, at most 4. */
export function defaultPoolSize(cores: number | undefined = globalThis.navigator?.hardwareConcurrency): number {
  const n = (cores ?? 2) - RESERVED_CORES;
  return Math.max(1, Math.min(MAX_WORKERS, n));
}

export function createModuleWorker(): WorkerLike {
  return new Worker(new URL('./mesh-worker.ts', import.meta.url), { type: 'module' }) as unknown as WorkerLike;
}

/** A worker stand-in that meshes on the calling thread, asynchronously (Node, tests). */
export function createInProcessWorker(): WorkerLike {
  const runJob = createMeshJobHandler();
  const w: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage(message) {
      setTimeout(() => w.onmessage?.({ data: runJob(message) }), 0);
    },
    terminate() {
      w.onmessage = null;
    },
  };
  return w;
}

export class MesherPool {
  readonly stats: MesherPoolStats = { workers: 0, queued: 0, running: 0, completed: 0, cancelled: 0, failed: 0 };
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: MesherPoolOptions = {}) {
    const size = options.size ?? defaultPoolSize();
    const create = options.createWorker ?? createModuleWorker;
    for (let i = 0; i < size; i++) {
      const slot: Slot = { worker: create(), job: undefined };
      slot.worker.onmessage = (ev) => this.onReply(slot, ev.data);
      slot.worker.onerror = (ev) => this.onWorkerError(slot, ev);
      this.slots.push(slot);
    }
    this.stats.workers = size;
  }

  /** Meshes one section in a worker; the request's padded buffer is transferred. */
  meshSection(request: MeshRequest): Promise<MeshResult> {
    if (this.closed) return Promise.reject(new MeshJobCancelled(request));
    return new Promise<MeshResult>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, request, resolve, reject, cancelled: false });
      this.pump();
    });
  }

  /** Drops every job (queued or running) whose request matches; returns how many. */
  cancel(match: (request: MeshRequest) => boolean): number {
    let n = 0;
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const job = this.queue[i]!;
      if (!match(job.request)) continue;
      this.queue.splice(i, 1);
      this.drop(job);
      n++;
    }
    for (const slot of this.slots) {
      const job = slot.job;
      if (job && !job.cancelled && match(job.request)) {
        // The worker cannot be interrupted mid-section; its reply will be ignored.
        this.drop(job);
        n++;
      }
    }
    this.syncStats();
    return n;
  }

  /** Drops the jobs of one chunk column (it was unloaded). */
  cancelChunk(cx: number, cz: number): number {
    return this.cancel((r) => r.cx === cx && r.cz === cz);
  }

  /** Pending jobs: queued plus running. The renderer uses it to pace submissions. */
  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.job).length;
  }

  terminate(): void {
    this.closed = true;
    this.cancel(() => true);
    for (const slot of this.slots) slot.worker.terminate();
  }

  private drop(job: Job): void {
    job.cancelled = true;
    this.stats.cancelled++;
    job.reject(new MeshJobCancelled(job.request));
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.shift();
      if (!job) break;
      slot.job = job;
      slot.worker.postMessage({ job: job.id, request: job.request }, [job.request.padded.buffer as ArrayBuffer]);
    }
    this.syncStats();
  }

  private onReply(slot: Slot, reply: MeshReply): void {
    const job = slot.job;
    slot.job = undefined;
    if (job && job.id === reply.job && !job.cancelled) {
      if (reply.ok) {
        this.stats.completed++;
        job.resolve(reply.result);
      } else {
        this.stats.failed++;
        job.reject(new MeshWorkerError(reply.error));
      }
    }
    this.pump();
  }

  private onWorkerError(slot: Slot, ev: unknown): void {
    const job = slot.job;
    slot.job = undefined;
    if (job && !job.cancelled) {
      this.stats.failed++;
      const message = ev && typeof ev === 'object' && 'message' in ev ? String(ev.message) : 'mesh worker failed';
      job.reject(new MeshWorkerError(message));
    }
    this.pump();
  }

  private syncStats(): void {
    this.stats.queued = this.queue.length;
    this.stats.running = this.slots.filter((s) => s.job).length;
  }
}

