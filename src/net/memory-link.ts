// One end of an in-memory link. Ordered and reliable like a WebRTC data channel: each
// direction delivers in send order (a message never overtakes the previous one), after
// a seeded latency + jitter. Loss on a reliable channel shows up as retransmission
// delay, not as a missing message (see memory-network.ts). Messages are copied on send,
// so the sender may reuse its buffer. A message that may wait (link.ts `mayWait`) leaves at
// once: a simulated frame costs nothing, and the simulations keep their event order.
import type { Clock } from '../core/clock';
import { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import { Slab } from '../core/slab';
import { CLOSED, remoteClosed } from './close-reasons';
import { LinkClosedError, LinkMessageTooLargeError, MAX_LINK_MESSAGE, type Link, type LinkEvents } from './link';

/** What a link end needs from its network: delivery delays and reachability. */
export interface LinkMedium {
  readonly clock: Clock;
  /** One-way delay in ms for the next message on this link (latency + jitter + retransmits). */
  delay(base: number): number;
  /** False while a partition separates the two nodes (messages then vanish). */
  reachable(a: NodeId, b: NodeId): boolean;
  /** Until when messages from `a` to `b` are held back (a sender slow towards one peer); -Infinity for none. */
  heldUntil?(a: NodeId, b: NodeId): number;
  /** When node `to` handles a frame that reaches it at `t` (a starved tab's next turn); `t` for most. Monotone in `t`, so order holds. */
  turnOf?(to: NodeId, t: number): number;
  count(bytes: number): void;
  countDrop(): void;
}

/** Copies of sent messages: short-lived (the receiver's codec copies what it keeps). */
const copies = new Slab();

export class MemoryLink implements Link {
  readonly events = new Emitter<LinkEvents>();
  peer!: MemoryLink;
  private isOpen = true;
  private lastArrival = 0;
  private inFlight = 0;
  /** Messages in flight, oldest first: each delivery timer hands over the oldest, so order
   * holds even on a real clock whose timers may fire out of order. */
  private queue: Uint8Array[] = [];
  private head = 0;

  constructor(
    readonly localId: NodeId,
    readonly remoteId: NodeId,
    private readonly medium: LinkMedium,
    /** Base one-way latency of this link in ms. */
    readonly latency: number,
  ) {}

  get open(): boolean {
    return this.isOpen;
  }

  get bufferedAmount(): number {
    return this.inFlight;
  }

  send(data: Uint8Array): void {
    if (!this.isOpen) throw new LinkClosedError();
    if (data.length > MAX_LINK_MESSAGE) throw new LinkMessageTooLargeError(data.length);
    const copy = copies.copy(data);
    const clock = this.medium.clock;
    const reached = Math.max(clock.now() + this.medium.delay(this.latency), this.lastArrival, this.medium.heldUntil?.(this.localId, this.remoteId) ?? -Infinity);
    const arrival = this.medium.turnOf ? this.medium.turnOf(this.remoteId, reached) : reached;
    this.lastArrival = arrival;
    this.inFlight += copy.length;
    this.medium.count(copy.length);
    this.queue.push(copy);
    clock.setTimeout(() => {
      const msg = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as Uint8Array;
      if (this.head > 64 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.inFlight -= msg.length;
      const peer = this.peer;
      if (!peer.isOpen) return;
      if (!this.medium.reachable(this.localId, this.remoteId)) {
        this.medium.countDrop();
        return;
      }
      peer.events.emit('message', msg);
    }, arrival - clock.now());
  }

  close(reason = CLOSED): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.events.emit('close', { reason });
    // The remote end hears of it, and why (as WebRtcLink's 'bye' tells it), after everything
    // already sent has arrived.
    const clock = this.medium.clock;
    const at = Math.max(clock.now() + this.latency, this.lastArrival);
    clock.setTimeout(() => this.peer.remoteClosed(remoteClosed(reason)), at - clock.now());
  }

  /** Closes this end because the other end went away (remote close, node death, ICE failure). */
  remoteClosed(reason: string): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.events.emit('close', { reason });
  }

  /** Closes this end without telling the remote end (a crashed tab: only heartbeats notice). */
  vanish(): void {
    this.isOpen = false;
  }
}
