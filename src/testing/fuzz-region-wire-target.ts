// Fuzz target: a region channel's wire (region/frame-wire.ts, the hosting rebuild's home of
// the old host-wire.ts) with its two codecs, host-to-player and host-to-host, fed through
// its public side (the app channel's message event) by several senders: whole frames,
// PART frames of real transfers, all mutated. A rejected frame is counted by reason in
// `drops` and hands no frame to the protocol code.
import fc from 'fast-check';
import type { Codec } from '../core/codec';
import { Emitter } from '../core/emitter';
import { ID_BYTES, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import type { AppChannel, ChannelEvents } from '../dht/app-channels';
import { replicationCodec, replicationSpec } from '../host/replication-messages';
import { FrameWire, type PartSpec, type WholeOf } from '../region/frame-wire';
import { subscriptionCodec, subscriptionSpec } from '../region/subscription-messages';
import { FuzzFailure, grewCounters, type FuzzTarget, type FuzzVerdict } from './fuzz-campaign';
import { frameArb } from './fuzz-frames';
import { sampleLook } from './sample-look';

const LOOK = sampleLook();

const id = (n: number) => new Uint8Array(ID_BYTES).fill(n);
const region = { rx: 3, rz: -2 };

/** A channel whose sent frames are kept (to seed the fuzzer with real PART frames). */
function channel(): AppChannel & { sent: Uint8Array[] } {
  const sent: Uint8Array[] = [];
  return { name: 'region', events: new Emitter<ChannelEvents>(), send: (_to, body) => (sent.push(body.slice()), true), sent };
}

type WireFrame = Uint8Array | Uint8Array[];

function wireTarget<S extends PartSpec>(name: string, codec: Codec<S>, valid: WholeOf<S>[], big: WholeOf<S>): FuzzTarget<WireFrame> {
  const clock = new VirtualClock();
  // The valid frames as a real sender encodes them, the big one cut into PARTs.
  const out = channel();
  const sender = new FrameWire(codec, out, clock);
  for (const m of [...valid, big]) sender.send(id(1), m);
  const frames = out.sent;
  const parts = frames.slice(valid.length);
  const ch = channel();
  const wire = new FrameWire(codec, ch, clock);
  let got = 0;
  wire.events.on('frame', () => void got++);
  const rand = seededRandom(3);
  const senders = Array.from({ length: 4 }, () => randomId(rand));
  let n = 0;
  return {
    name,
    frames: fc.oneof(
      { weight: 4, arbitrary: frameArb({ valid: frames, codes: [...Array(24).keys()] }) as fc.Arbitrary<WireFrame> },
      // A whole transfer's PARTs in order, one of them replaced by a mutant: reassembly with a bad piece.
      { weight: 1, arbitrary: fc.tuple(fc.nat(), frameArb({ valid: parts })).map(([i, bad]): WireFrame => parts.map((p, j) => (j === i % (parts.length + 1) ? bad : p))) },
    ),
    feed(frame): FuzzVerdict {
      const bodies = Array.isArray(frame) ? frame : [frame];
      const from = senders[n++ % senders.length]!;
      // Unfinished transfers expire after 15 s: time moves 10 ms a frame.
      clock.advanceSync(10);
      const drops = { ...wire.drops };
      const before = got;
      const inBefore = wire.framesIn;
      for (const body of bodies) ch.events.emit('message', { from, body });
      const grew = grewCounters(drops, wire.drops);
      if (got - before !== wire.framesIn - inBefore) throw new FuzzFailure('frames handed on and framesIn disagree');
      if (grew.length === 0) return 'accepted';
      if (!Array.isArray(frame) && got !== before) throw new FuzzFailure(`a frame dropped as ${grew[0]} was handed on`);
      return { rejected: grew[0]! };
    },
    close: () => wire.close(),
  };
}

/** The host-to-player channel (subscription-messages.ts). */
export function subscriptionWireTarget(): FuzzTarget<WireFrame> {
  type M = WholeOf<typeof subscriptionSpec>;
  const valid: M[] = [
    { t: 'SUBSCRIBE', ...region, since: { e: 1, s: 2 }, host: false },
    { t: 'UNSUBSCRIBE', ...region },
    { t: 'DELTA', ...region, e: 2, from: 3, to: 4, entries: new Uint8Array([1, 2, 3, 4]) },
    { t: 'HEARTBEAT', ...region, e: 2, s: 9, hosts: [id(2), id(3)], idle: true },
    { t: 'NOT_PRIMARY', ...region, e: 2, primary: id(4) },
    { t: 'EDIT', ...region, r: 7, x: 1, y: 60, z: -4, id: 3, px: 1.5, py: 61, pz: -3.5 },
    { t: 'CONFIRM', ...region, r: 7, e: 2, s: 10 },
    { t: 'REJECT', ...region, r: 7, reason: 'out-of-reach' },
    { t: 'MOVE', ...region, l: LOOK, x: 1, y: 2, z: 3, yaw: 0.5, pitch: -0.1 },
    { t: 'POSITIONS', ...region, e: 2, n: 0, b: new Uint8Array([0, 31, 1, 2, 3, 4, 5, 6, 7, 8]), roster: [{ s: 0, id: id(5), l: { ...LOOK, n: 'bo', c: 11 } }], gone: [3] },
    { t: 'POSITIONS_LOST', ...region, e: 2 },
  ];
  const big: M = { t: 'DELTA', ...region, e: 2, from: 1, to: 900, entries: new Uint8Array(130 * 1024).fill(7) };
  return wireTarget('region wire (host-player)', subscriptionCodec, valid, big);
}

/** The host-to-host channel (replication-messages.ts). */
export function replicationWireTarget(): FuzzTarget<WireFrame> {
  type M = WholeOf<typeof replicationSpec>;
  const valid: M[] = [
    { t: 'HEARTBEAT', ...region, e: 3, s: 4, hosts: [id(1), id(2), id(3)], subs: [id(9)], b: 12 },
    { t: 'REFUSE', ...region, e: 3, primary: id(2) },
    { t: 'REPLICATE', ...region, e: 3, from: 4, to: 5, entries: new Uint8Array([9, 9]), hosts: [id(1), id(2)], reqs: [[id(6), 1, 4]] },
    { t: 'ACK', ...region, e: 3, to: 5, b: 12 },
    { t: 'SYNC_REQ', ...region, e: 3 },
    { t: 'FEED', ...region, e: 3, n: 4, b: new Uint8Array([0, 0]), gone: [1, 2], serve: [id(8), id(9)] },
    { t: 'FEED_LOST', ...region, e: 3 },
    { t: 'HANDOFF', ...region, e: 4, to: id(7) },
    { t: 'OFFER', ...region, entries: new Uint8Array([1]) },
    { t: 'ABANDON', ...region, e: 4 },
  ];
  const big: M = { t: 'REPLICATE', ...region, e: 3, from: 1, to: 2, entries: new Uint8Array(100 * 1024).fill(1), hosts: [id(1)], reqs: [] };
  return wireTarget('region wire (host-host)', replicationCodec, valid, big);
}
