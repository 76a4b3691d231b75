// Web Worker entry: meshes sections off the main thread. Bundled by vite through
// `new Worker(new URL('./mesh-worker.ts', import.meta.url), { type: 'module' })`.
import { createMeshJobHandler, replyTransfer, type MeshJobMessage } from './mesh-job';

// The project's lib is DOM, not WebWorker; this is the slice of the worker scope we use.
interface WorkerScope {
  onmessage: ((ev: MessageEvent<MeshJobMessage>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
const runJob = createMeshJobHandler();

scope.onmessage = (ev) => {
  const reply = runJob(ev.data);
  scope.postMessage(reply, replyTransfer(reply));
};
