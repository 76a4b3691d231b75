// The doorways of a peer: the bootstrap brokers (our relay, a PeerJS broker) it registers
// with so that newcomers can reach it before any link exists. A tab may stand at several
// (its page's relay and the one an invite names, or a relay and a PeerJS broker), and one
// that is down must not leave it unreachable: signals to a peer go through the doorway
// that last carried a signal from it, else the first open one, and a doorway that says it
// does not know the peer ('undeliverable') hands the last blobs on to the next one.
// Only when every open doorway said so does `undeliverable` fire here (the peer is gone).
// DOM-free; the connectors are injected.
import { Emitter } from '../core/emitter';
import { idToHex, type NodeId } from '../core/node-id';
import type { Bootstrap, BootstrapEvents } from '../net/bootstrap';
import { DialError, type SignalBlob, type SignalChannel, type Transport } from '../net/transport';

export type DoorwaySpec =
  | { kind: 'relay'; url: string }
  /** A PeerJS broker (`peer` server): http(s)://host:port/path; `key` defaults to 'peerjs'. */
  | { kind: 'peerjs'; url: string; key?: string };

export const doorwayName = (d: DoorwaySpec): string => (d.kind === 'relay' ? d.url : `peerjs ${d.url}`);

/** Opens one doorway registered under `selfId`; rejects (BootstrapError) when unreachable. */
export type DoorwayConnector = (spec: DoorwaySpec, selfId: NodeId) => Promise<Bootstrap>;

/** Blobs kept per peer for a hand-over to the next doorway (an offer and its answer's peers). */
const KEEP_BLOBS = 4;
const KEEP_MS = 10_000;

interface Slot {
  spec: DoorwaySpec;
  current: Bootstrap | null;
  unfeed: (() => void) | undefined;
}

export interface DoorwayEvents extends Record<string, unknown> {
  /** No open doorway knows this peer. */
  undeliverable: { to: NodeId };
  /** A doorway opened (first time or again). */
  open: { spec: DoorwaySpec };
  /** A doorway's connection ended (it will be re-opened by its owner). */
  close: { spec: DoorwaySpec; reason: string };
}

export class Doorways implements SignalChannel {
  readonly events = new Emitter<DoorwayEvents>();
  /** A relay's frames to a peer whose router forgot its mappings die there until it sends again: a dial through us resends its unanswered offer. */
  readonly resendsUnanswered = true;
  private readonly slots: Slot[];
  /** The doorway a peer last signaled us through (its answer goes back the same way). */
  private readonly via = new Map<string, Slot>();
  /** Doorways that said they do not know a peer. */
  private readonly unknownAt = new Map<string, Set<Slot>>();
  private readonly sent = new Map<string, { at: number; blob: SignalBlob }[]>();
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    specs: readonly DoorwaySpec[],
    private readonly transport: { handleSignal(from: NodeId, blob: SignalBlob, signals: SignalChannel): void },
    private readonly now: () => number,
  ) {
    this.slots = specs.map((spec) => ({ spec, current: null, unfeed: undefined }));
  }

  get specs(): DoorwaySpec[] {
    return this.slots.map((s) => s.spec);
  }

  /** The open doorways now. */
  get open(): DoorwaySpec[] {
    return this.slots.filter((s) => s.current).map((s) => s.spec);
  }

  /** Puts a (re)opened connection in the slot of `spec`; its signals reach the transport at once. */
  attach(spec: DoorwaySpec, b: Bootstrap): void {
    const slot = this.slots.find((s) => s.spec === spec);
    if (!slot) throw new Error(`unknown doorway ${doorwayName(spec)}`);
    slot.current?.close();
    slot.unfeed?.();
    slot.current = b;
    // Signals are answered through this object, so an answer may take another doorway if this one drops.
    slot.unfeed = b.events.on('signal', ({ from, blob }) => {
      const hex = idToHex(from);
      this.via.set(hex, slot);
      this.unknownAt.get(hex)?.delete(slot);
      this.transport.handleSignal(from, blob, this);
    });
    b.events.on('undeliverable', ({ to }) => this.onUndeliverable(slot, to));
    b.events.on('close', ({ reason }: BootstrapEvents['close']) => {
      if (slot.current !== b) return;
      slot.unfeed?.();
      slot.current = null;
      this.events.emit('close', { spec, reason });
    });
    this.events.emit('open', { spec });
  }

  sendSignal(to: NodeId, blob: SignalBlob): void {
    const hex = idToHex(to);
    const now = this.now();
    const kept = (this.sent.get(hex) ?? []).filter((s) => now - s.at < KEEP_MS);
    kept.push({ at: now, blob });
    this.sent.set(hex, kept.slice(-KEEP_BLOBS));
    if (this.sent.size > 256) this.sent.delete(this.sent.keys().next().value!);
    this.pick(hex)?.current?.sendSignal(to, blob);
  }

  /** Up to n live ids from the open doorways together. */
  async randomPeers(n: number): Promise<NodeId[]> {
    const lists = await Promise.all(this.slots.map((s) => s.current?.randomPeers(n) ?? Promise.resolve([])));
    const seen = new Set<string>();
    const out: NodeId[] = [];
    for (const id of lists.flat()) {
      const hex = idToHex(id);
      if (seen.has(hex)) continue;
      seen.add(hex);
      out.push(id);
    }
    return out.slice(0, n);
  }

  /** Resolves when every open doorway has said it does not know `id` (it left). */
  gone(id: NodeId): { promise: Promise<void>; cancel: () => void } {
    const hex = idToHex(id);
    let fn!: () => void;
    const promise = new Promise<void>((resolve) => (fn = resolve));
    let set = this.waiting.get(hex);
    if (!set) this.waiting.set(hex, (set = new Set()));
    set.add(fn);
    return { promise, cancel: () => set.delete(fn) };
  }

  /**
   * `transport` whose dials through these doorways fail as soon as the doorways say the peer
   * is gone, instead of at the dial timeout (15 s): a join waits for all its first dials,
   * and an invite's departed inviter must not hold up the join of its live contacts.
   */
  failFast(transport: Transport): Transport {
    return {
      selfId: transport.selfId,
      events: transport.events,
      handleSignal: (from, blob, signals) => transport.handleSignal(from, blob, signals),
      close: () => transport.close(),
      dial: (id, signals) => {
        const dial = transport.dial(id, signals);
        if (signals !== this) return dial;
        const gone = this.gone(id);
        return Promise.race([dial, gone.promise.then(() => { throw new DialError(`${idToHex(id).slice(0, 8)} is not at any doorway`); })]).finally(gone.cancel);
      },
    };
  }

  /** Asks every open doorway to check its connection (the network is back: one opened before may be dead). */
  probe(): void {
    for (const s of this.slots) s.current?.probe?.();
  }

  close(): void {
    for (const s of this.slots) {
      s.unfeed?.();
      s.current?.close();
      s.current = null;
    }
    this.events.removeAll();
  }

  private pick(hex: string): Slot | undefined {
    const known = this.via.get(hex);
    if (known?.current) return known;
    const refused = this.unknownAt.get(hex);
    return this.slots.find((s) => s.current && !refused?.has(s));
  }

  private onUndeliverable(slot: Slot, to: NodeId): void {
    const hex = idToHex(to);
    let refused = this.unknownAt.get(hex);
    if (!refused) this.unknownAt.set(hex, (refused = new Set()));
    refused.add(slot);
    if (this.via.get(hex) === slot) this.via.delete(hex);
    if (this.unknownAt.size > 256) this.unknownAt.delete(this.unknownAt.keys().next().value!);
    const next = this.pick(hex);
    if (!next) {
      for (const fn of this.waiting.get(hex) ?? []) fn();
      this.waiting.delete(hex);
      this.events.emit('undeliverable', { to });
      return;
    }
    for (const s of this.sent.get(hex) ?? []) next.current?.sendSignal(to, s.blob);
  }
}
