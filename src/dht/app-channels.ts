// Application payloads travel in DhtNode.send / 'message' events. A leading channel byte
// keeps independent protocols (diagnostics, region subscription, host replication, players) apart, so each can
// schema-check its own frames and none mistakes another's bytes for its own.
import { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import type { DhtNode } from './dht-node';

export const CHANNELS = {
  /** window.voxel.net.send strings (tests, diagnostics). */
  diag: 1,
  /** Region hosts <-> players: subscribe, snapshot, deltas, edits, moves, presence. */
  region: 2,
  /** Player records and presence. */
  player: 3,
  /** Region hosts <-> hosts: claims, grants, replication, heartbeats. */
  replica: 4,
} as const;

export type ChannelName = keyof typeof CHANNELS;

export interface ChannelEvents extends Record<string, unknown> {
  message: { from: NodeId; body: Uint8Array };
}

export interface AppChannel {
  readonly name: ChannelName;
  /** Routed (or direct when linked) delivery to any node id; false when there is no first hop. */
  send(to: NodeId, body: Uint8Array): boolean;
  readonly events: Emitter<ChannelEvents>;
}

/** One demultiplexer per DhtNode; frames for unknown channels are counted and dropped. */
export class AppChannels {
  private readonly channels = new Map<number, AppChannel>();
  unknownChannel = 0;

  constructor(private readonly dht: Pick<DhtNode, 'send' | 'events'>) {
    dht.events.on('message', ({ from, body }) => {
      const ch = body.length > 0 ? this.channels.get(body[0]!) : undefined;
      if (!ch) {
        this.unknownChannel++;
        return;
      }
      ch.events.emit('message', { from, body: body.subarray(1) });
    });
  }

  open(name: ChannelName): AppChannel {
    const tag = CHANNELS[name];
    let ch = this.channels.get(tag);
    if (!ch) {
      const events = new Emitter<ChannelEvents>();
      ch = {
        name,
        events,
        send: (to, body) => {
          const framed = new Uint8Array(body.length + 1);
          framed[0] = tag;
          framed.set(body, 1);
          return this.dht.send(to, framed);
        },
      };
      this.channels.set(tag, ch);
    }
    return ch;
  }
}
