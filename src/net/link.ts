// A Link is an ordered, reliable, message-oriented channel to one peer. Every
// implementation (WebRTC, in-memory, later BroadcastChannel) passes the shared
// compliance suite in src/testing/link-compliance.ts.
import type { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import { VoxelError } from '../core/errors';

export interface LinkEvents extends Record<string, unknown> {
  message: Uint8Array;
  close: { reason: string };
  error: Error;
}

export interface Link {
  /** The node id the remote side proved or announced when the link was made. */
  readonly remoteId: NodeId;
  /** True until close (local or remote) or a fatal error. */
  readonly open: boolean;
  /**
   * Queues one message; messages arrive whole and in order. Throws LinkClosedError when closed.
   * `mayWait`: nobody waits on this message (a beat, a position): a link that writes frames at
   * a cost may hold it up to a small bound for company (webrtc-link.ts `LINK_WAIT_MS`); a
   * message sent without it takes whatever waits along. Order holds either way.
   */
  send(data: Uint8Array, mayWait?: boolean): void;
  /** Bytes queued but not yet handed to the transport (for backpressure). */
  readonly bufferedAmount: number;
  close(reason?: string): void;
  readonly events: Emitter<LinkEvents>;
}

export class LinkClosedError extends VoxelError {
  readonly code = 'link-closed';
  override readonly name = 'LinkClosedError';
  constructor(message = 'link is closed') {
    super(message);
  }
}

/** Largest message a Link accepts; larger payloads are split by the sender (16 KiB portable frames). */
export const MAX_LINK_MESSAGE = 256 * 1024;

/** Thrown by send() for a message above MAX_LINK_MESSAGE. */
export class LinkMessageTooLargeError extends VoxelError {
  readonly code = 'link-message-too-large';
  override readonly name = 'LinkMessageTooLargeError';
  constructor(readonly size: number) {
    super(`message of ${size} bytes exceeds MAX_LINK_MESSAGE (${MAX_LINK_MESSAGE})`);
  }
}
