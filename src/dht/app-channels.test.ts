import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { randomId, type NodeId } from '../core/node-id';
import { AppChannels } from './app-channels';
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

  it('counts and drops frames of unknown or empty channels', () => {
    const { b, rawB, idA } = pair();
    b.open('region');
    rawB.events.emit('message', { from: idA, body: new Uint8Array([99, 1]) });
    rawB.events.emit('message', { from: idA, body: new Uint8Array([]) });
    rawB.events.emit('message', { from: idA, body: new Uint8Array([3]) }); // player: not opened
    expect(b.unknownChannel).toBe(3);
  });
});
