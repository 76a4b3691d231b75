// How links get made. A Transport (WebRTC, in-memory) dials peers by node id, exchanging
// opaque signal blobs through a SignalChannel: the relay for a tab with no link yet,
// the DHT overlay (routed messages) for everything after. The core knows nothing about
// how signaling happens (docs/STYLE.md, Trystero).
import type { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import type { Link } from './link';
import { VoxelError } from '../core/errors';

/** A JSON-serialisable offer/answer/candidate blob, validated by the transport that reads it. */
export type SignalBlob = Record<string, unknown>;

export interface SignalChannel {
  /** Best effort: a lost signal makes a dial time out, nothing worse. */
  sendSignal(to: NodeId, blob: SignalBlob): void;
  /**
   * Whether a signal may be lost on the way while the far end is alive (a relay socket of
   * the far end's deaf for a few seconds): a dial then resends its unanswered offer
   * (net/offer-resend.ts). The overlay's signals ride on live links and are not resent.
   */
  readonly resendsUnanswered?: boolean;
}

export interface TransportEvents extends Record<string, unknown> {
  /** A link a remote peer dialled, now open. */
  link: Link;
  /**
   * A TURN server refused our credentials (wrong or expired: turn-refusal.ts), under the ICE
   * servers set now; the refusal's words. A busy browser's TURN exchange may end after a
   * join's verdict was said ('turn-failed'): the verdict is said again (bootstrap/peer.ts).
   * Only a transport that uses TURN emits it.
   */
  'turn-refused': string;
}

export interface Transport {
  readonly selfId: NodeId;
  /** Opens a link to remoteId; rejects with DialError on timeout or refusal. */
  dial(remoteId: NodeId, signals: SignalChannel): Promise<Link>;
  /** Feed a signal that arrived for us (from the relay or the overlay); replies go back through `signals`. */
  handleSignal(from: NodeId, blob: SignalBlob, signals: SignalChannel): void;
  readonly events: Emitter<TransportEvents>;
  close(): void;
}

export class DialError extends VoxelError {
  readonly code = 'dial-failed';
  override readonly name = 'DialError';
}
