// Application payloads travel in Dht.send / 'message' events. A leading channel byte
// keeps independent protocols (diagnostics, region subscription, host replication, players) apart, so each can
// schema-check its own frames and none mistakes another's bytes for its own.
import { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import type { Dht } from './dht';
import { tally } from './frame-types';

export const CHANNELS = {
  /** window.voxel.net.send strings (tests, diagnostics). */
  diag: 1,
  /** Region hosts <-> players: subscribe, snapshot, deltas, edits, moves, presence. */
  region: 2,
  /** A player's node to another's: direct messages (play/direct-messages.ts). */
  player: 3,
  /** Region hosts <-> hosts: claims, grants, replication, heartbeats. */
  replica: 4,
  /** Region hosts <-> hosts and players: item votes, item state, clock probes (agree/item-wire.ts). */
  items: 5,
} as const;

export type ChannelName = keyof typeof CHANNELS;

export interface ChannelEvents extends Record<string, unknown> {
  message: { from: NodeId; body: Uint8Array };
}

export interface AppChannel {
  readonly name: ChannelName;
  /** Routed (or direct when linked) delivery to any node id; false when there is no first hop. `mayWait`: nobody waits on it (dht.ts send). */
  send(to: NodeId, body: Uint8Array, mayWait?: boolean): boolean;
  readonly events: Emitter<ChannelEvents>;
}

/** Most bytes held for channels not opened yet (in all); past it, such frames are dropped and counted. */
export const MAX_EARLY_BYTES = 1 << 20;

const KNOWN_TAGS = new Set<number>(Object.values(CHANNELS));
const NAME_OF_TAG = new Map<number, ChannelName>(Object.entries(CHANNELS).map(([name, tag]) => [tag, name as ChannelName]));

interface Held {
  from: NodeId;
  body: Uint8Array;
}

/**
 * One demultiplexer per DHT node; frames for unknown channels are counted and dropped.
 * Frames for a known channel nobody opened yet are held (MAX_EARLY_BYTES in all) and given
 * to it when it opens: a node joins the DHT, and peers talk to it (a claim naming it, a
 * primary's SYNC), before its hosting has started (app/net-session.ts), and those frames
 * were lost.
 */
export class AppChannels {
  private readonly channels = new Map<number, AppChannel>();
  /** Frames waiting for their channel: to be opened, or (just opened) for its listeners. */
  private readonly held = new Map<number, Held[]>();
  private heldBytes = 0;
  unknownChannel = 0;
  /** Frames for a channel not opened yet that did not fit MAX_EARLY_BYTES. */
  earlyDropped = 0;
  /**
   * Frames sent and received by channel, opened or not (the tab_cpu bench reads them: which
   * protocol costs what, and what reaches a tab that does not speak it).
   */
  readonly sent: Partial<Record<ChannelName, number>> = {};
  readonly received: Partial<Record<ChannelName, number>> = {};

  constructor(private readonly dht: Pick<Dht, 'send' | 'events'>) {
    dht.events.on('message', ({ from, body }) => {
      const tag = body.length > 0 ? body[0]! : -1;
      const name = NAME_OF_TAG.get(tag);
      if (name) tally(this.received, name);
      const waiting = this.held.get(tag);
      if (waiting || (KNOWN_TAGS.has(tag) && !this.channels.has(tag))) return this.hold(tag, { from, body: body.subarray(1) });
      const ch = this.channels.get(tag);
      if (!ch) {
        this.unknownChannel++;
        return;
      }
      ch.events.emit('message', { from, body: body.subarray(1) });
    });
  }

  private hold(tag: number, m: Held): void {
    if (this.heldBytes + m.body.length > MAX_EARLY_BYTES) return void this.earlyDropped++;
    this.heldBytes += m.body.length;
    let list = this.held.get(tag);
    if (!list) this.held.set(tag, (list = []));
    list.push(m);
  }

  open(name: ChannelName): AppChannel {
    const tag = CHANNELS[name];
    let ch = this.channels.get(tag);
    if (!ch) {
      const events = new Emitter<ChannelEvents>();
      ch = {
        name,
        events,
        send: (to, body, mayWait) => {
          const framed = new Uint8Array(body.length + 1);
          framed[0] = tag;
          framed.set(body, 1);
          tally(this.sent, name);
          return this.dht.send(to, framed, mayWait);
        },
      };
      this.channels.set(tag, ch);
      // What came before: given out once the opener has attached its listeners (frames that
      // arrive meanwhile queue behind, so the order is kept).
      if (this.held.has(tag)) {
        const opened = ch;
        queueMicrotask(() => {
          const list = this.held.get(tag) ?? [];
          this.held.delete(tag);
          for (const m of list) {
            this.heldBytes -= m.body.length;
            opened.events.emit('message', m);
          }
        });
      }
    }
    return ch;
  }
}
