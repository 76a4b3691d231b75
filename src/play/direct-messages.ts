// Direct messages, both ways (the frame and its signature: direct-message.ts). Sending: the
// message is signed by the player key and sent to the receiver's node on the 'player'
// channel (direct over a link to it, else routed: the DHT picks), sent once more if no
// DM_ACK came by `RETRY_MS`, and "not delivered" when none came by `GIVE_UP_MS` or there was
// no route at all. Receiving: every check that costs nothing comes before the signature
// (it is for this node, it came from the node it names, that node's rate, a time near our
// clock, later than the player's last message, the rate of all senders together), then the
// signature, then the player's own rate; a message that passes is shown and acknowledged,
// any other is dropped and counted by reason and shown nowhere. The same message twice
// (the sender's retry after a lost ack) is acknowledged again, not shown twice.
import type { Clock, TimerHandle } from '../core/clock';
import { CodecError } from '../core/codec';
import { Emitter } from '../core/emitter';
import { hexToId, idEquals, idToHex, type NodeId } from '../core/node-id';
import type { Signer, Verifier } from '../core/signer';
import { TokenBucket } from '../core/token-bucket';
import { KeyedRateLimit } from '../core/keyed-rate-limit';
import { LruMap } from '../core/lru-map';
import type { AppChannel } from '../dht/app-channels';
import { MAX_CHAT_CHARS, normaliseChatText } from '../region/chat-line';
import { ChatError } from './chat-client';
import { directMessageCodec, makeDirectMessage, MAX_DM_FRAME, verifyDirectMessage, type DirectFrame, type DirectMessage } from './direct-message';

export const DIRECT_MESSAGE_DEFAULTS = {
  /** Messages this player may send at once, then per second: within every receiver's rates, so none is sent in vain. */
  sendBurst: 5,
  sendPerSecond: 1,
};

/** Messages kept in the tab's history (both ways). */
const MAX_LINES = 100;
/** Messages taken from one sending node at once, then per second, before any signature is checked. */
export const NODE_BURST = 5;
const NODE_PER_SECOND = 1;
/** Messages taken from all senders together at once, then per second, before any signature is checked: what a crowd of minted nodes can make us verify and show. */
export const ALL_BURST = 30;
const ALL_PER_SECOND = 10;
/** Messages shown from one player at once, then per second (after the signature: a forger cannot spend a player's rate). */
export const PLAYER_BURST = 5;
const PLAYER_PER_SECOND = 1;
/** A message stamped this much before our wall clock, or this much after, is dropped (a replay; a stamp that would pin the sender's next ones out). */
const MAX_AGE_MS = 120_000;
const MAX_AHEAD_MS = 30_000;
/** Sending nodes and players whose rates and last message are remembered (least recently heard forgotten). */
const MAX_SENDERS = 512;
/** No DM_ACK by then: the message is sent once more (a routed frame can be lost at a dead end). */
export const RETRY_MS = 1500;
/** No DM_ACK by then: not delivered. */
export const GIVE_UP_MS = 5000;

export type DirectMessageOptions = typeof DIRECT_MESSAGE_DEFAULTS;

export type DeliveryStatus = 'sending' | 'delivered' | 'not-delivered';

/** A direct message as the player sees it. */
export interface DirectEntry {
  /** This tab's number for it (the chat box updates the row by it). */
  n: number;
  /** Received ('in') or sent ('out'). */
  dir: 'in' | 'out';
  /** The other player's node (hex): what a reply is sent to. */
  node: string;
  /** The sending player's id (hex). */
  player: string;
  /** The other player's name: the sender's as it signed it, or the receiver's as the who list showed it. */
  name: string;
  /** The sender's colour (palette index) as it signed it: the other player's for one received, ours for one sent. */
  colour: number;
  text: string;
  /** When the sender sent it (epoch ms, the sender's clock). */
  at: number;
  /** A received message is 'delivered'. */
  status: DeliveryStatus;
}

export type DirectDrop = 'oversized' | 'invalid' | 'not-for-us' | 'wrong-node' | 'node-rate' | 'stale' | 'replay' | 'rate' | 'signature' | 'player-rate';

export interface DirectMessageEvents extends Record<string, unknown> {
  /** A message sent or shown. */
  message: DirectEntry;
  /** A sent message's status changed. */
  status: DirectEntry;
}

export interface DirectMessagesArgs {
  /** The 'player' channel (dht/app-channels.ts). */
  channel: AppChannel;
  world: string;
  /** This node's id: messages to it are ours. */
  self: NodeId;
  /** The player's key: signs what this tab sends. */
  player: Signer;
  verify: Verifier;
  /** Drives the rates and the waits for acks (virtual in tests). */
  clock: Clock;
  /** The wall clock messages are stamped with (default Date.now). */
  wallClock?: () => number;
  /** The name the player is shown by now. */
  name(): string;
  /** The colour this tab's messages are signed with (palette index; none: the one the player id gives). */
  colour?(): number;
  options?: Partial<DirectMessageOptions>;
}

interface Sender {
  bucket: TokenBucket;
  /** Stamp of its last message shown (or being checked), and that message's signature and node. */
  last: number;
  lastSig?: Uint8Array;
  lastNode?: string;
}

interface Pending {
  entry: DirectEntry;
  to: NodeId;
  frame: Uint8Array;
  timers: TimerHandle[];
}

const newDrops = (): Record<DirectDrop, number> => ({ oversized: 0, invalid: 0, 'not-for-us': 0, 'wrong-node': 0, 'node-rate': 0, stale: 0, replay: 0, rate: 0, signature: 0, 'player-rate': 0 });

export class DirectMessages {
  readonly events = new Emitter<DirectMessageEvents>();
  readonly stats = { sent: 0, resent: 0, delivered: 0, notDelivered: 0, shown: 0, acked: 0, duplicates: 0, strayAcks: 0, dropped: newDrops() };
  private readonly opts: DirectMessageOptions;
  private readonly history: DirectEntry[] = [];
  private readonly nodes: KeyedRateLimit;
  private readonly players = new LruMap<string, Sender>(MAX_SENDERS);
  private readonly all: TokenBucket;
  private readonly sendBucket: TokenBucket;
  /** Sent and not yet answered, by `${node}/${stamp}`. */
  private readonly pending = new Map<string, Pending>();
  private readonly selfHex: string;
  private lastSent = 0;
  private serial = 0;
  private readonly off: () => void;

  constructor(private readonly args: DirectMessagesArgs) {
    this.opts = { ...DIRECT_MESSAGE_DEFAULTS, ...args.options };
    this.selfHex = idToHex(args.self);
    const now = args.clock.now();
    this.nodes = new KeyedRateLimit(NODE_PER_SECOND, NODE_BURST, MAX_SENDERS);
    this.all = new TokenBucket(ALL_PER_SECOND, ALL_BURST, now);
    this.sendBucket = new TokenBucket(this.opts.sendPerSecond, this.opts.sendBurst, now);
    this.off = args.channel.events.on('message', ({ from, body }) => this.receive(from, body));
  }

  close(): void {
    this.off();
    for (const p of this.pending.values()) for (const t of p.timers) this.args.clock.clearTimeout(t);
    this.pending.clear();
  }

  /** This tab's messages, oldest first. */
  messages(): DirectEntry[] {
    return this.history.map((e) => ({ ...e }));
  }

  /**
   * Sends `typed` to the player at node `toHex` (shown as `toName`); resolves with the
   * message as shown here, status 'sending' (the 'status' event says what became of it).
   * Throws ChatError when it cannot be sent.
   */
  async send(toHex: string, toName: string, typed: string): Promise<DirectEntry> {
    const text = normaliseChatText(typed);
    if (text === undefined) {
      if (typed.trim() === '') throw new ChatError('empty', 'Nothing to say');
      throw new ChatError('too-long', `A message is at most ${MAX_CHAT_CHARS} characters, with no control characters`);
    }
    if (!/^[0-9a-f]{40}$/.test(toHex)) throw new ChatError('recipient', 'No such player');
    if (toHex === this.selfHex) throw new ChatError('recipient', 'That is you');
    if (!this.sendBucket.take(1, this.args.clock.now())) throw new ChatError('rate', 'You are writing too fast: wait a moment');
    // Stamps of one player's messages only go up (receivers drop a stamp not after the last).
    const w = Math.max(Math.floor(this.wallNow()), this.lastSent + 1);
    this.lastSent = w;
    const to = hexToId(toHex);
    const m = await makeDirectMessage(this.args.player, this.args.world, this.args.self, to, this.args.name(), text, w, this.args.colour?.());
    const entry: DirectEntry = { n: ++this.serial, dir: 'out', node: toHex, player: idToHex(this.args.player.id), name: toName, colour: m.c, text, at: w, status: 'sending' };
    this.remember(entry);
    this.stats.sent++;
    const frame = directMessageCodec.encode(m);
    const key = `${toHex}/${w}`;
    const p: Pending = { entry, to, frame, timers: [] };
    this.pending.set(key, p);
    const clock = this.args.clock;
    p.timers.push(clock.setTimeout(() => {
      if (!this.pending.has(key)) return;
      this.stats.resent++;
      this.args.channel.send(to, frame);
    }, RETRY_MS));
    p.timers.push(clock.setTimeout(() => this.settle(key, 'not-delivered'), GIVE_UP_MS));
    this.events.emit('message', { ...entry });
    // No first hop at all: the retry may find one (links come and go); the wait decides.
    this.args.channel.send(to, frame);
    return { ...entry };
  }

  private receive(from: NodeId, body: Uint8Array): void {
    if (body.length > MAX_DM_FRAME) return void this.stats.dropped.oversized++;
    let frame: DirectFrame;
    try {
      frame = directMessageCodec.decode(body);
    } catch (e) {
      this.stats.dropped[e instanceof CodecError && e.reason === 'oversized' ? 'oversized' : 'invalid']++;
      return;
    }
    const fromHex = idToHex(from);
    if (frame.t === 'DM_ACK') return this.settle(`${fromHex}/${frame.w}`, 'delivered', true);
    void this.take(from, fromHex, frame);
  }

  private async take(from: NodeId, fromHex: string, m: DirectMessage): Promise<void> {
    const drop = (why: DirectDrop) => void this.stats.dropped[why]++;
    if (!idEquals(m.to, this.args.self)) return drop('not-for-us');
    // The routed envelope (or the link) proves which node sent it; the signature says which node the player sent it from.
    if (!idEquals(m.f, from)) return drop('wrong-node');
    const now = this.args.clock.now();
    if (!this.nodes.take(fromHex, now)) return drop('node-rate');
    const wall = this.wallNow();
    if (m.w < wall - MAX_AGE_MS || m.w > wall + MAX_AHEAD_MS) return drop('stale');
    const hex = idToHex(m.p);
    // Only a verified message makes (or refreshes) a player's entry: forgeries cannot push real players out.
    const seen = (s: Sender | undefined): 'new' | 'again' | 'replay' => {
      if (!s || m.w > s.last) return 'new';
      return m.w === s.last && this.again(s, fromHex, m) ? 'again' : 'replay';
    };
    let was = seen(this.players.peek(hex));
    if (was === 'new' && !this.all.take(1, now)) return drop('rate');
    if (was === 'new' && !(await verifyDirectMessage(m, this.args.world, this.args.verify))) return drop('signature');
    // Looked at again after the wait: another copy may have been taken meanwhile.
    was = seen(this.players.peek(hex));
    if (was === 'again') return this.ack(from, m.w, true);
    if (was === 'replay') return drop('replay');
    const sender = this.sender(hex);
    if (!sender.bucket.take(1, this.args.clock.now())) return drop('player-rate');
    sender.last = m.w;
    sender.lastSig = m.s;
    sender.lastNode = fromHex;
    const entry: DirectEntry = { n: ++this.serial, dir: 'in', node: fromHex, player: hex, name: m.n, colour: m.c, text: m.x, at: m.w, status: 'delivered' };
    this.remember(entry);
    this.stats.shown++;
    this.events.emit('message', { ...entry });
    this.ack(from, m.w);
  }

  /** The very message taken last from this player, from the same node (the sender's retry after a lost ack). */
  private again(sender: Sender, fromHex: string, m: DirectMessage): boolean {
    const sig = sender.lastSig;
    return sender.lastNode === fromHex && sig !== undefined && sig.length === m.s.length && sig.every((b, i) => b === m.s[i]);
  }

  private ack(to: NodeId, w: number, duplicate = false): void {
    if (duplicate) this.stats.duplicates++;
    this.stats.acked++;
    this.args.channel.send(to, directMessageCodec.encode({ t: 'DM_ACK', w }));
  }

  private settle(key: string, status: 'delivered' | 'not-delivered', fromAck = false): void {
    const p = this.pending.get(key);
    if (!p) {
      if (fromAck) this.stats.strayAcks++;
      return;
    }
    this.pending.delete(key);
    for (const t of p.timers) this.args.clock.clearTimeout(t);
    p.entry.status = status;
    if (status === 'delivered') this.stats.delivered++;
    else this.stats.notDelivered++;
    this.events.emit('status', { ...p.entry });
  }

  private remember(entry: DirectEntry): void {
    this.history.push(entry);
    if (this.history.length > MAX_LINES) this.history.shift();
  }

  private wallNow(): number {
    return (this.args.wallClock ?? Date.now)();
  }

  private sender(hex: string): Sender {
    return this.players.use(hex, () => ({ bucket: new TokenBucket(PLAYER_PER_SECOND, PLAYER_BURST, this.args.clock.now()), last: 0 }));
  }
}
