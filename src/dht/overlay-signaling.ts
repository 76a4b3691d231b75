// A new link's offer and answer travel as routed SIGNAL messages (docs/DESIGN.md, overlay
// signaling): `channel` is the SignalChannel a dial hands them to, and an incoming SIGNAL
// is fed to the transport with a channel whose answer goes back along the offer's reverse
// path, since the dialer may be a newcomer greedy routing cannot reach yet. The relay is
// used only by a node that holds no link at all (`forDial`).
import { idEquals, idToHex, type NodeId } from '../core/node-id';
import type { SignalBlob, SignalChannel, Transport } from '../net/transport';
import type { DhtMessage } from './messages';
import type { Origin } from './overlay-router';

export interface OverlaySignalingDeps {
  transport: Pick<Transport, 'handleSignal'>;
  /** Sends a message to a node, direct or routed through `via` (dht-node.ts `sendTo`). */
  send(id: NodeId, hex: string, msg: DhtMessage, via?: readonly NodeId[]): boolean;
  /** How many live links we hold. */
  linkCount(): number;
  /** The relay, if any. */
  relay: SignalChannel | undefined;
}

export class OverlaySignaling {
  /** Signals sent as routed SIGNAL messages. */
  readonly channel: SignalChannel;
  private running = false;

  constructor(private readonly deps: OverlaySignalingDeps) {
    this.channel = { sendSignal: (to, blob) => void deps.send(to, idToHex(to), { t: 'SIGNAL', blob }) };
  }

  start(): void {
    this.running = true;
  }

  /** Incoming signals are ignored from now on. */
  stop(): void {
    this.running = false;
  }

  /**
   * Where a budget dial's offer goes: through the overlay, unless we hold no link at all
   * (our last peers closed theirs for budget, as a bootstrap does to a newcomer it admitted
   * once its buckets fill): then no offer could leave, and nothing could reach us until a
   * dormant probe, so we dial through the relay, as the join did.
   */
  forDial(): SignalChannel {
    return this.deps.linkCount() === 0 && this.deps.relay ? this.deps.relay : this.channel;
  }

  /** A SIGNAL from a node: to the transport, answers back along its reverse path. */
  received(blob: SignalBlob, from: Origin): void {
    if (!this.running) return;
    this.deps.transport.handleSignal(from.id, blob, {
      sendSignal: (to, b) => void this.deps.send(to, idToHex(to), { t: 'SIGNAL', blob: b }, idEquals(to, from.id) ? from.via : []),
    });
  }
}
