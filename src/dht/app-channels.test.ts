import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { randomId, type NodeId } from '../core/node-id';
import { AppChannels, CHANNELS, MAX_EARLY_BYTES } from './app-channels';
import type { DhtEvents } from './dht-node';

/** Two ends joined back to back: what one sends, the other's 'message' event gets. */
function pair() {
  const a = { events: new Emitter<DhtEvents>(), send: (_to: NodeId, body: Uint8Array) => (b.events.emit('message', { from: idA, body }), true) };
  const b = { events: new Emitter<DhtEvents>(), send: (_to: NodeId, body: Uint8Array) => (a.events.emit('message', { from: idB, body }), true) };
  const idA = randomId(), idB = randomId();
  return { a: new AppChannels(a), b: new AppChannels(b), rawB: b, idA, idB };
}

describe('app channels', () => {
  it('delivers each channel only its own frames, unprefixed', () => {
    const { a, b, idA, idB } = pair();
    const gotHost: number[][] = [], gotDiag: number[][] = [];
    b.open('region').events.on('message', (m) => { expect(m.from).toEqual(idA); gotHost.push([...m.body]); });
    b.open('diag').events.on('message', (m) => gotDiag.push([...m.body]));
    expect(a.open('region').send(idB, new Uint8Array([7, 8]))).toBe(true);
    a.open('diag').send(idB, new Uint8Array([]));
    expect(gotHost).toEqual([[7, 8]]);
    expect(gotDiag).toEqual([[]]);
  });

  it('counts the frames sent and received by channel, those of a channel never opened too', () => {
    const { a, b, idB } = pair();
    b.open('diag');
    a.open('diag').send(idB, new Uint8Array([1]));
    a.open('diag').send(idB, new Uint8Array([2]));
    a.open('replica').send(idB, new Uint8Array([3]));
    expect(a.sent).toEqual({ diag: 2, replica: 1 });
    expect(b.received).toEqual({ diag: 2, replica: 1 });
  });

  it('counts and drops frames of unknown or empty channels', () => {
    const { b, rawB, idA } = pair();
    b.open('region');
    rawB.events.emit('message', { from: idA, body: new Uint8Array([99, 1]) });
    rawB.events.emit('message', { from: idA, body: new Uint8Array([]) });
    expect(b.unknownChannel).toBe(2);
  });

  it('holds the frames of a channel not opened yet and gives them, in order, once it opens', async () => {
    const { b, rawB, idA } = pair();
    rawB.events.emit('message', { from: idA, body: new Uint8Array([CHANNELS.replica, 1]) });
    rawB.events.emit('message', { from: idA, body: new Uint8Array([CHANNELS.replica, 2]) });
    const got: number[] = [];
    b.open('replica').events.on('message', (m) => got.push(m.body[0]!));
    // One that comes after the open, before the held ones were given out, waits its turn.
    rawB.events.emit('message', { from: idA, body: new Uint8Array([CHANNELS.replica, 3]) });
    expect(got).toEqual([]);
    await Promise.resolve();
    expect(got).toEqual([1, 2, 3]);
    rawB.events.emit('message', { from: idA, body: new Uint8Array([CHANNELS.replica, 4]) });
    expect(got).toEqual([1, 2, 3, 4]);
    expect(b.unknownChannel).toBe(0);
  });

  it('holds at most MAX_EARLY_BYTES for channels nobody opened, and counts the rest', () => {
    const { b, rawB, idA } = pair();
    const big = new Uint8Array(64 * 1024 + 1);
    big[0] = CHANNELS.player;
    for (let i = 0; i < 20; i++) rawB.events.emit('message', { from: idA, body: big });
    expect(b.earlyDropped).toBe(20 - Math.floor(MAX_EARLY_BYTES / (64 * 1024)));
  });
});
