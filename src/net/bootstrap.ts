// A bootstrap adapter (Trystero style): connect to a broker, register our id, send
// signal blobs to a named id (so it IS a SignalChannel), hear signals for us, ask for a
// few live peer ids, close. Used only while a tab has no link; later links are signaled
// over the overlay. Implementations: relay-bootstrap.ts (our relay, the default) and
// peerjs-bootstrap.ts (a PeerJS broker, e.g. with static hosting).
import type { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import type { IceGrant } from './relay-protocol';
import type { SignalBlob, SignalChannel } from './transport';
import { VoxelError } from '../core/errors';

export interface BootstrapEvents extends Record<string, unknown> {
  /** A signal for us (blob is unvalidated: the transport checks it). */
  signal: { from: NodeId; blob: SignalBlob };
  /** The broker could not deliver a signal to this id (it is not connected). */
  undeliverable: { to: NodeId };
  /** The broker connection ended (not by close()), or could not be kept. */
  close: { reason: string };
  /** The broker granted ICE servers anew (renewed TURN credentials). */
  ice: IceGrant;
}

export interface Bootstrap extends SignalChannel {
  readonly selfId: NodeId;
  readonly events: Emitter<BootstrapEvents>;
  /** Up to n random live ids other than ours ([] when the broker cannot list). */
  randomPeers(n: number): Promise<NodeId[]>;
  /** ICE servers the broker handed out at registration, if any (our relay can; later grants come as `ice` events). */
  readonly ice?: IceGrant | undefined;
  /** Checks the broker connection is alive now (the network came back): a dead one closes soon, with a `close` event. */
  probe?(): void;
  close(): void;
}

export class BootstrapError extends VoxelError {
  readonly code = 'bootstrap-failed';
  override readonly name = 'BootstrapError';
}

/** Wires a bootstrap's incoming signals into a transport; returns the unsubscribe. */
export function feedSignals(
  b: Bootstrap,
  transport: { handleSignal(from: NodeId, blob: SignalBlob, signals: SignalChannel): void },
): () => void {
  return b.events.on('signal', ({ from, blob }) => transport.handleSignal(from, blob, b));
}
