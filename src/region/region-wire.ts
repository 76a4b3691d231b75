// The 'region' channel as each side of a node hears it: one decoder (frame-wire.ts checks
// every frame against the subscription codec once), then each frame goes to the side it is
// for (subscription-messages.ts FRAME_SIDE): what players send, to this node's host side
// (host/hosting-service.ts); what hosts send, to its player side (play/region-client.ts,
// play/chat-client.ts). Neither side sees, nor has to filter, the other's frames. A frame
// whose side nobody here listens to (a SUBSCRIBE to a node with no host side, a SNAPSHOT to
// one with no player side) is dropped and counted: a hostile peer may send either kind.
import type { Clock } from '../core/clock';
import { Emitter } from '../core/emitter';
import type { AppChannels } from '../dht/app-channels';
import { FrameWire, type WireEvents } from './frame-wire';
import { FRAME_SIDE, mayWaitOnLink, subscriptionCodec, type HostToPlayer, type PlayerToHost, type subscriptionSpec, type SubscriptionMessage } from './subscription-messages';

type Whole = Exclude<SubscriptionMessage, { t: 'PART' }>;

export class RegionWire extends FrameWire<typeof subscriptionSpec> {
  /** Frames from players, for this node's host side. */
  readonly toHost = new Emitter<WireEvents<PlayerToHost>>();
  /** Frames from hosts, for this node's player side. */
  readonly toPlayer = new Emitter<WireEvents<HostToPlayer>>();
  /** Frames dropped because no side here takes them, by the side they were for. */
  readonly unheard = { host: 0, player: 0 };

  // `events` still carries every frame, after its side took it: test taps and diagnostics
  // read the whole channel, and see each frame as the node has handled it.
  protected override deliver(frame: WireEvents<Whole>['frame']): void {
    const side = FRAME_SIDE[frame.msg.t];
    const to = side === 'host' ? this.toHost : this.toPlayer;
    if (to.has('frame')) (to as Emitter<WireEvents<Whole>>).emit('frame', frame);
    else this.unheard[side]++;
    super.deliver(frame);
  }
}

/** The host-to-player channel: players hold only this one. */
export type PlayerWire = RegionWire;

export function openPlayerWire(channels: Pick<AppChannels, 'open'>, clock: Clock): PlayerWire {
  return new RegionWire(subscriptionCodec, channels.open('region'), clock, mayWaitOnLink);
}
