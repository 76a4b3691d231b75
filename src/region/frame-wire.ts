// One region channel (host-to-player or host-to-host, each with its own codec): encodes
// frames (splitting those above WIRE_MAX into PART frames), and decodes, size-checks and
// reassembles what arrives. Nothing reaches the protocol code before its schema passed;
// every drop is counted by reason.
import type { Clock } from '../core/clock';
import { CodecError, type Codec, type CodecSpec, type MessageOf } from '../core/codec';
import { Emitter } from '../core/emitter';
import { idToHex, type NodeId } from '../core/node-id';
import type { AppChannel } from '../dht/app-channels';
import { ASSEMBLED_MAX, PART, PART_BYTES, WIRE_MAX } from './frame-schemas';

/** Unfinished reassemblies kept per sender; older ones are dropped. */
const MAX_XFERS_PER_PEER = 2;
/**
 * Unfinished reassemblies kept over all senders, and the bytes they hold: throwaway sender
 * ids cannot make us hold more. Past either, the transfer that has waited longest for its
 * next part is dropped (an honest sender's parts arrive back to back, so its transfer stays
 * fresh while a flood's one-part transfers age). 8 full-size transfers at once: a player
 * attaching to several large regions, or a backup synced by several primaries.
 */
export const MAX_XFERS = 64;
export const MAX_XFER_BYTES = 8 * ASSEMBLED_MAX;
/** An unfinished reassembly is dropped after this long. */
const XFER_TIMEOUT_MS = 15_000;

export interface WireDrops {
  oversized: number;
  malformed: number;
  invalid: number;
  unknownType: number;
  parts: number;
}

/** A codec spec with the PART frame (frame-schemas.ts). */
export type PartSpec = CodecSpec & { PART: typeof PART };
/** A spec's frames about a region (every one but PART). */
export type WholeOf<S extends PartSpec> = Exclude<MessageOf<S>, { t: 'PART' }>;

export interface WireEvents<M> extends Record<string, unknown> {
  frame: { from: NodeId; fromHex: string; msg: M };
}

interface Xfer {
  fromHex: string;
  n: number;
  got: (Uint8Array | undefined)[];
  have: number;
  bytes: number;
  startedAt: number;
}

export class FrameWire<S extends PartSpec> {
  readonly events = new Emitter<WireEvents<WholeOf<S>>>();
  readonly drops: WireDrops = { oversized: 0, malformed: 0, invalid: 0, unknownType: 0, parts: 0 };
  framesIn = 0;
  framesOut = 0;
  bytesOut = 0;
  /** Frames and bytes sent, by frame type (a split frame's PARTs under its own type): what a host's upload is made of. */
  readonly outByType = new Map<string, { frames: number; bytes: number }>();
  /** Frames that could not be encoded (over the reassembly limit): dropped at the sender. */
  unsendable = 0;
  /** Unfinished reassemblies dropped to make room (per sender, or over all: MAX_XFERS, MAX_XFER_BYTES) or timed out. */
  partsEvicted = 0;
  private xferSeq = 0;
  /** Unfinished reassemblies by `${sender}/${x}`, the one waiting longest for a part first. */
  private readonly xfers = new Map<string, Xfer>();
  /** Unfinished reassemblies per sender. */
  private readonly perSender = new Map<string, number>();
  private held = 0;
  private readonly off: () => void;

  constructor(
    private readonly codec: Codec<S>,
    private readonly channel: AppChannel,
    private readonly clock: Clock,
    /** Frames nobody waits on (a beat, positions): they may wait briefly on a link for company in one write (net/link.ts). */
    private readonly mayWait: (msg: WholeOf<S>) => boolean = () => false,
  ) {
    this.off = channel.events.on('message', ({ from, body }) => this.receive(from, body));
  }

  close(): void {
    this.off();
    this.xfers.clear();
    this.perSender.clear();
    this.held = 0;
  }

  /** Bytes held by unfinished reassemblies (<= MAX_XFER_BYTES). */
  get heldBytes(): number {
    return this.held;
  }

  /** Unfinished reassemblies (<= MAX_XFERS). */
  get heldTransfers(): number {
    return this.xfers.size;
  }

  /** False when there was no route (the frame is lost; callers rely on timeouts). */
  send(to: NodeId, msg: WholeOf<S>): boolean {
    let frame: Uint8Array;
    try {
      frame = this.codec.encode(msg);
    } catch {
      // Larger than any reassembly (or not encodable): nothing is sent, and the caller's state
      // must not depend on it (states travel in bounded pieces; see docs/HOSTING.md).
      this.unsendable++;
      return false;
    }
    if (frame.length <= WIRE_MAX) return this.out(to, frame, msg.t, this.mayWait(msg));
    const n = Math.ceil(frame.length / PART_BYTES);
    const x = this.xferSeq++ >>> 0;
    let ok = true;
    for (let i = 0; i < n; i++) {
      const b = frame.subarray(i * PART_BYTES, (i + 1) * PART_BYTES);
      ok = this.out(to, this.codec.encode({ t: 'PART', x, i, n, b } as MessageOf<S>), msg.t) && ok;
    }
    return ok;
  }

  private out(to: NodeId, frame: Uint8Array, type: string, mayWait = false): boolean {
    this.framesOut++;
    this.bytesOut += frame.length;
    let c = this.outByType.get(type);
    if (!c) this.outByType.set(type, (c = { frames: 0, bytes: 0 }));
    c.frames++;
    c.bytes += frame.length;
    return this.channel.send(to, frame, mayWait);
  }

  private receive(from: NodeId, body: Uint8Array): void {
    if (body.length > WIRE_MAX) {
      this.drops.oversized++;
      return;
    }
    const msg = this.decode(body);
    if (!msg) return;
    const fromHex = idToHex(from);
    if (!isPart(msg)) {
      this.framesIn++;
      this.deliver({ from, fromHex, msg });
      return;
    }
    const whole = this.assemble(fromHex, msg.x, msg.i, msg.n, msg.b);
    if (!whole) return;
    const inner = this.decode(whole);
    if (!inner) return;
    if (isPart(inner)) {
      this.drops.invalid++;
      return;
    }
    this.framesIn++;
    this.deliver({ from, fromHex, msg: inner });
  }

  /** Hands a checked, whole frame on (region-wire.ts: to the side of the node it is for). */
  protected deliver(frame: WireEvents<WholeOf<S>>['frame']): void {
    this.events.emit('frame', frame);
  }

  private decode(frame: Uint8Array): MessageOf<S> | undefined {
    try {
      return this.codec.decode(frame);
    } catch (e) {
      const reason = e instanceof CodecError ? e.reason : 'malformed';
      if (reason === 'oversized') this.drops.oversized++;
      else if (reason === 'unknown-type') this.drops.unknownType++;
      else if (reason === 'invalid') this.drops.invalid++;
      else this.drops.malformed++;
      return undefined;
    }
  }

  private assemble(fromHex: string, x: number, i: number, n: number, b: Uint8Array): Uint8Array | undefined {
    const now = this.clock.now();
    // Any part sweeps every sender's stale transfers (at most MAX_XFERS to look at).
    for (const [k, xf] of this.xfers) if (now - xf.startedAt > XFER_TIMEOUT_MS) this.evict(k, xf);
    const key = `${fromHex}/${x}`;
    let xf = this.xfers.get(key);
    if (!xf) {
      if ((this.perSender.get(fromHex) ?? 0) >= MAX_XFERS_PER_PEER) this.evictOldest(fromHex);
      if (this.xfers.size >= MAX_XFERS) this.evictOldest();
      xf = { fromHex, n, got: new Array<Uint8Array | undefined>(n), have: 0, bytes: 0, startedAt: now };
      this.perSender.set(fromHex, (this.perSender.get(fromHex) ?? 0) + 1);
    }
    // Last touched goes last: the first in the map is the one waiting longest for a part.
    this.xfers.delete(key);
    this.xfers.set(key, xf);
    if (n !== xf.n || i >= n || xf.got[i] || xf.bytes + b.length > ASSEMBLED_MAX || (i < n - 1 && b.length !== PART_BYTES)) {
      this.drops.parts++;
      this.forget(key, xf);
      return undefined;
    }
    while (this.held + b.length > MAX_XFER_BYTES) this.evictOldest();
    xf.got[i] = b;
    xf.have++;
    xf.bytes += b.length;
    this.held += b.length;
    if (xf.have < n) return undefined;
    this.forget(key, xf);
    const out = new Uint8Array(xf.bytes);
    let p = 0;
    for (const part of xf.got) {
      out.set(part!, p);
      p += part!.length;
    }
    return out;
  }

  /** Drops the unfinished reassembly that has waited longest for a part (of `fromHex` when given). */
  private evictOldest(fromHex?: string): void {
    for (const [k, xf] of this.xfers) {
      if (fromHex !== undefined && xf.fromHex !== fromHex) continue;
      return this.evict(k, xf);
    }
  }

  private evict(key: string, xf: Xfer): void {
    this.partsEvicted++;
    this.forget(key, xf);
  }

  private forget(key: string, xf: Xfer): void {
    if (!this.xfers.delete(key)) return;
    this.held -= xf.bytes;
    const left = (this.perSender.get(xf.fromHex) ?? 1) - 1;
    if (left > 0) this.perSender.set(xf.fromHex, left);
    else this.perSender.delete(xf.fromHex);
  }
}

type PartFrame = { t: 'PART'; x: number; i: number; n: number; b: Uint8Array };
function isPart<M extends { t: string }>(m: M | PartFrame): m is PartFrame {
  return m.t === 'PART';
}
