import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { ID_BYTES, type NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import type { AppChannel, ChannelEvents } from '../dht/app-channels';
import { ASSEMBLED_MAX, PART_BYTES } from './frame-schemas';
import { FrameWire, MAX_XFER_BYTES, MAX_XFERS } from './frame-wire';
import { subscriptionCodec, type SubscriptionMessageOf } from './subscription-messages';

const region = { rx: 1, rz: 2 };

function idOf(n: number): NodeId {
  const id = new Uint8Array(ID_BYTES);
  new DataView(id.buffer).setUint32(0, n + 1);
  return id as NodeId;
}

function channel(): AppChannel & { sent: Uint8Array[] } {
  const sent: Uint8Array[] = [];
  return { name: 'region', events: new Emitter<ChannelEvents>(), send: (_to, body) => (sent.push(body.slice()), true), sent };
}

/** A DELTA whose encoding travels as PART frames (`n` of them). */
function bigDelta(fill: number, bytes: number): SubscriptionMessageOf<'DELTA'> {
  return { t: 'DELTA', ...region, e: 1, from: 1, to: 2, entries: new Uint8Array(bytes).fill(fill) };
}

/** The PART frames a real sender makes for `msg`. */
function partsOf(msg: SubscriptionMessageOf<'DELTA'>): Uint8Array[] {
  const out = channel();
  new FrameWire(subscriptionCodec, out, new VirtualClock()).send(idOf(0), msg);
  return out.sent;
}

function receiver() {
  const clock = new VirtualClock();
  const ch = channel();
  const wire = new FrameWire(subscriptionCodec, ch, clock);
  const got: { from: NodeId; entries: Uint8Array }[] = [];
  wire.events.on('frame', ({ from, msg }) => {
    if (msg.t === 'DELTA') got.push({ from, entries: msg.entries });
  });
  let peak = 0;
  const feed = (from: NodeId, body: Uint8Array) => {
    ch.events.emit('message', { from, body });
    peak = Math.max(peak, wire.heldBytes);
    expect(wire.heldTransfers).toBeLessThanOrEqual(MAX_XFERS);
  };
  return { clock, wire, got, feed, peak: () => peak };
}

describe('FrameWire PART reassembly bounds', () => {
  it('a flood of unfinished transfers from 1,000 throwaway ids holds at most the bound, and an honest large transfer still completes', () => {
    const { wire, got, feed, peak } = receiver();
    const honestMsg = bigDelta(7, ASSEMBLED_MAX - 4096);
    const honest = partsOf(honestMsg);
    expect(honest.length).toBeGreaterThan(40);
    // Each throwaway id sends the first 3 parts of a full-size transfer and never the rest.
    const flood = partsOf(bigDelta(9, ASSEMBLED_MAX - 4096));
    let h = 0;
    for (let k = 0; k < 1000; k++) {
      for (let j = 0; j < 3; j++) feed(idOf(1000 + k), flood[j]!);
      // The honest sender's parts arrive in order among the flood's, one per 9 flood parts.
      if (k % 3 === 0 && h < honest.length) feed(idOf(1), honest[h++]!);
    }
    while (h < honest.length) feed(idOf(1), honest[h++]!);
    expect(peak()).toBeLessThanOrEqual(MAX_XFER_BYTES);
    expect(peak()).toBeGreaterThan(MAX_XFER_BYTES / 2); // the flood did fill it
    expect(wire.heldTransfers).toBeLessThanOrEqual(MAX_XFERS);
    expect(wire.partsEvicted).toBeGreaterThan(900);
    expect(got).toHaveLength(1);
    // (Buffer.equals: toEqual walks a 2 MiB array element by element for seconds.)
    expect(Buffer.from(got[0]!.entries).equals(honestMsg.entries)).toBe(true);
  });

  it('the byte bound holds when few transfers hold much: the one waiting longest goes first', () => {
    const { wire, got, feed, peak } = receiver();
    const big = partsOf(bigDelta(3, ASSEMBLED_MAX - 4096));
    // 12 senders each send all but the last part of a full-size transfer: more bytes than the bound.
    const senders = Math.ceil(MAX_XFER_BYTES / ASSEMBLED_MAX) + 4;
    for (let s = 0; s < senders; s++) for (const p of big.slice(0, -1)) feed(idOf(s), p);
    expect(peak()).toBeLessThanOrEqual(MAX_XFER_BYTES);
    expect(peak()).toBeGreaterThan(MAX_XFER_BYTES - 2 * PART_BYTES);
    expect(wire.partsEvicted).toBeGreaterThan(0);
    // The most recent sender's transfer survived, the first one's did not.
    feed(idOf(senders - 1), big.at(-1)!);
    feed(idOf(0), big.at(-1)!);
    expect(got.map((g) => g.from)).toEqual([idOf(senders - 1)]);
  });

  it('stale transfers are swept by any sender\'s part, not only their own sender\'s', () => {
    const { clock, wire, feed } = receiver();
    const big = partsOf(bigDelta(5, 200_000));
    for (let s = 0; s < 20; s++) feed(idOf(s), big[0]!);
    expect(wire.heldTransfers).toBe(20);
    expect(wire.heldBytes).toBe(20 * PART_BYTES);
    clock.advanceSync(16_000);
    feed(idOf(99), big[0]!);
    expect(wire.heldTransfers).toBe(1);
    expect(wire.heldBytes).toBe(PART_BYTES);
    expect(wire.partsEvicted).toBe(20);
  });

  it('a sender keeps at most two unfinished transfers', () => {
    const { wire, feed } = receiver();
    const a = partsOf(bigDelta(1, 200_000));
    const out = channel();
    const sender = new FrameWire(subscriptionCodec, out, new VirtualClock());
    for (let k = 0; k < 5; k++) sender.send(idOf(0), bigDelta(k, 200_000));
    // The first part of each of 5 transfers (different x) from one sender.
    const per = a.length;
    for (let k = 0; k < 5; k++) feed(idOf(4), out.sent[k * per]!);
    expect(wire.heldTransfers).toBe(2);
    expect(wire.partsEvicted).toBe(3);
  });
});
