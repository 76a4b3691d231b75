// Request/response matching: each request carries a 32-bit id `r`; a reply resolves the
// pending request with that id only if it comes from the peer asked. Replies that match
// nothing (late, spoofed, duplicated) are reported so the node can count them.
import type { Clock, TimerHandle } from '../core/clock';
import type { NodeId } from '../core/node-id';
import type { Reply, Request } from './messages';
import { VoxelError } from '../core/errors';

/** A request without its id (the RPC table assigns one). */
export type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'r'> : never) : never;

/**
 * Sends a request to a node (over a direct link if we hold one, else routed, through
 * `via` if given) and resolves with its reply; rejects on timeout or when there is no
 * route. A failure counts against the contact (dht-node.ts `call`). `detour` n > 0 sends
 * a routed request by our n-th best first hop instead of the best (a retry by another
 * route, overlay-router.ts).
 */
export type Call = (id: NodeId, hex: string, req: RequestBody, via?: readonly NodeId[], detour?: number) => Promise<Reply>;

export class RpcTimeoutError extends VoxelError {
  readonly code = 'rpc-timeout';
  override readonly name = 'RpcTimeoutError';
}

export class RpcClosedError extends VoxelError {
  readonly code = 'rpc-closed';
  override readonly name = 'RpcClosedError';
}

interface Pending {
  peerHex: string;
  resolve: (m: Reply) => void;
  reject: (e: Error) => void;
  timer: TimerHandle;
}

export class RpcTable {
  private pending = new Map<number, Pending>();
  private next: number;

  constructor(
    private readonly clock: Clock,
    random: () => number,
  ) {
    this.next = Math.floor(random() * 0xffffffff);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Reserves a request id (`r`, as in the messages) and returns it with the promise of the reply. */
  open(peerHex: string, timeoutMs: number): { r: number; reply: Promise<Reply> } {
    let requestId = this.next;
    while (this.pending.has(requestId)) requestId = (requestId + 1) >>> 0;
    this.next = (requestId + 1) >>> 0;
    const reply = new Promise<Reply>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(requestId);
        reject(new RpcTimeoutError(`no reply from ${peerHex.slice(0, 8)} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(requestId, { peerHex, resolve, reject, timer });
    });
    return { r: requestId, reply };
  }

  /** Fails a request right away (e.g. it could not be sent). */
  abort(requestId: number, error: Error): void {
    const request = this.pending.get(requestId);
    if (!request) return;
    this.pending.delete(requestId);
    this.clock.clearTimeout(request.timer);
    request.reject(error);
  }

  /** Resolves the request the reply answers; false if none matches (unexpected reply). */
  resolve(fromHex: string, reply: Reply): boolean {
    const request = this.pending.get(reply.r);
    if (!request || request.peerHex !== fromHex) return false;
    this.pending.delete(reply.r);
    this.clock.clearTimeout(request.timer);
    request.resolve(reply);
    return true;
  }

  closeAll(): void {
    for (const [requestId, request] of this.pending) {
      this.clock.clearTimeout(request.timer);
      this.pending.delete(requestId);
      request.reject(new RpcClosedError('node stopped'));
    }
  }
}
