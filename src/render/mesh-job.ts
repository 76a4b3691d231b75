// The message protocol between the main thread and mesh workers, and the worker-side
// handler as a pure function (the worker file only wires it to `self`), so Node tests
// and an in-process fallback run the very same code.
import { GreedyMesher, type SectionMesh } from './greedy-mesher';
import { passBuffers } from './mesh-buffers';

export interface MeshRequest {
  readonly cx: number;
  readonly cz: number;
  /** Section index, 0..15 from the bottom. */
  readonly sy: number;
  /** 18^3 padded blocks (section-padding.ts); transferred, so the caller loses it. */
  readonly padded: Uint8Array;
  readonly ambientOcclusion?: boolean;
}

export interface MeshResult {
  readonly cx: number;
  readonly cz: number;
  readonly sy: number;
  readonly mesh: SectionMesh;
  /** Time spent meshing inside the worker. */
  readonly ms: number;
}

export interface MeshJobMessage {
  readonly job: number;
  readonly request: MeshRequest;
}

export type MeshReply =
  | { readonly job: number; readonly ok: true; readonly result: MeshResult }
  | { readonly job: number; readonly ok: false; readonly error: string };

/** Buffers to move (not copy) with a reply. */
export function replyTransfer(reply: MeshReply): ArrayBuffer[] {
  if (!reply.ok) return [];
  const { opaque, transparent } = reply.result.mesh;
  return [...passBuffers(opaque), ...passBuffers(transparent)];
}

/** Worker-side state: one mesher per AO setting, reused for every job. */
export function createMeshJobHandler(now: () => number = () => performance.now()): (msg: MeshJobMessage) => MeshReply {
  const meshers = new Map<boolean, GreedyMesher>();
  return ({ job, request }) => {
    try {
      const ao = request.ambientOcclusion ?? false;
      let mesher = meshers.get(ao);
      if (!mesher) meshers.set(ao, (mesher = new GreedyMesher({ ambientOcclusion: ao })));
      const t0 = now();
      const mesh = mesher.mesh(request.padded);
      const { cx, cz, sy } = request;
      return { job, ok: true, result: { cx, cz, sy, mesh, ms: now() - t0 } };
    } catch (e) {
      return { job, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  };
}
