// Round-trip times of the live links, measured by the application (the DHT times only the
// heartbeats of idle links, and only from the lower id). Every `everyMs` each linked peer
// gets a small probe over the diagnostics channel and answers at once; the figure is the
// median of the last few samples. It includes signing and verifying the routed message at
// both ends (well under a millisecond each with Ed25519), i.e. what a message costs here.
// Probe frames start with 0xFF, which no UTF-8 text (the channel's other use) can.
import { every, type Clock } from '../core/clock';
import { idToHex, type NodeId } from '../core/node-id';
import type { AppChannel } from '../dht/app-channels';

/** Samples kept per peer; the median of them is reported. */
const SAMPLES_KEPT = 5;
/** A probe not answered in this long is forgotten (no sample). */
const PROBE_TIMEOUT_MS = 10_000;

export const RTT_PROBE_DEFAULTS = {
  /** Each linked peer is probed this often. */
  everyMs: 5000,
};

const MARK = 0xff;
const PING = 1;
const PONG = 2;
const FRAME_BYTES = 6;

/** True for a probe frame (the diagnostics channel's text messages never start with 0xFF). */
export const isProbeFrame = (body: Uint8Array): boolean => body.length > 0 && body[0] === MARK;

export interface RttProbeArgs {
  channel: Pick<AppChannel, 'send' | 'events'>;
  clock: Clock;
  /** The live links now. */
  links: () => { id: NodeId; hex: string }[];
  options?: Partial<typeof RTT_PROBE_DEFAULTS>;
}

export class RttProbe {
  readonly stats = { sent: 0, answered: 0, replied: 0, bad: 0 };
  private readonly opts: typeof RTT_PROBE_DEFAULTS;
  private readonly pending = new Map<number, { hex: string; at: number }>();
  private readonly samples = new Map<string, number[]>();
  private nonce = 0;
  private readonly stopTimer: () => void;
  private readonly offMessage: () => void;

  constructor(private readonly args: RttProbeArgs) {
    this.opts = { ...RTT_PROBE_DEFAULTS, ...args.options };
    this.offMessage = args.channel.events.on('message', ({ from, body }) => this.onFrame(from, body));
    this.stopTimer = every(args.clock, this.opts.everyMs, () => this.probeAll());
  }

  /** Median round trip to a linked peer, ms; null before its first answer. */
  rttMs(hex: string): number | null {
    const samples = this.samples.get(hex);
    if (!samples?.length) return null;
    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  probeAll(): void {
    const now = this.args.clock.now();
    for (const [nonce, asked] of this.pending) if (now - asked.at > PROBE_TIMEOUT_MS) this.pending.delete(nonce);
    const live = new Set<string>();
    for (const link of this.args.links()) {
      live.add(link.hex);
      const nonce = (this.nonce = (this.nonce + 1) >>> 0);
      this.pending.set(nonce, { hex: link.hex, at: now });
      if (this.args.channel.send(link.id, frame(PING, nonce))) this.stats.sent++;
    }
    for (const hex of this.samples.keys()) if (!live.has(hex)) this.samples.delete(hex);
  }

  stop(): void {
    this.stopTimer();
    this.offMessage();
  }

  private onFrame(from: NodeId, body: Uint8Array): void {
    if (!isProbeFrame(body)) return;
    if (body.length !== FRAME_BYTES || (body[1] !== PING && body[1] !== PONG)) {
      this.stats.bad++;
      return;
    }
    const nonce = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(2);
    if (body[1] === PING) {
      this.stats.replied++;
      this.args.channel.send(from, frame(PONG, nonce));
      return;
    }
    const asked = this.pending.get(nonce);
    const fromHex = idToHex(from);
    if (!asked || asked.hex !== fromHex) return; // late, or not the peer we asked
    this.pending.delete(nonce);
    this.stats.answered++;
    const samples = this.samples.get(asked.hex) ?? [];
    samples.push(this.args.clock.now() - asked.at);
    if (samples.length > SAMPLES_KEPT) samples.shift();
    this.samples.set(asked.hex, samples);
  }
}

function frame(type: number, nonce: number): Uint8Array {
  const b = new Uint8Array(FRAME_BYTES);
  b[0] = MARK;
  b[1] = type;
  new DataView(b.buffer).setUint32(2, nonce);
  return b;
}
