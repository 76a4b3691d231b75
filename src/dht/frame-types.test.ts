import { describe, expect, it } from 'vitest';
import { randomId } from '../core/node-id';
import { frameType, tally } from './frame-types';
import { dhtCodec, dhtSpec, type DhtMessage } from './messages';
import { encodeRoute } from './route-frame';

describe('frame types', () => {
  it('names every DHT message by its first bytes, as the codec encodes it', () => {
    const id = randomId();
    const samples: DhtMessage[] = [
      { t: 'PING', r: 1 }, { t: 'PONG', r: 1 }, { t: 'FIND_NODE', r: 2, target: id }, { t: 'NODES', r: 2, nodes: [id] },
      { t: 'FIND_VALUE', r: 3, ns: 'player', key: id }, { t: 'VALUE', r: 3, nodes: [] },
      { t: 'STORE', r: 4, ns: 'chunk', key: id, rec: { v: new Uint8Array(3), pub: id, seq: 1, ttl: 1000 } }, { t: 'STORED', r: 4, ok: true },
      { t: 'SIGNAL', blob: { sdp: 'x' } }, { t: 'DATA', body: new Uint8Array(300), ro: 1 }, { t: 'CLOSING' },
    ];
    expect(samples.map((m) => m.t).sort()).toEqual(Object.keys(dhtSpec).sort());
    for (const m of samples) expect(frameType(dhtCodec.encode(m))).toBe(m.t);
  });

  it("calls a routed envelope 'ROUTE' and anything else '?'", () => {
    const body = dhtCodec.encode({ t: 'PING', r: 9 });
    expect(frameType(encodeRoute({ id: 1, ttl: 8, src: randomId(), dst: randomId(), trace: [], via: [], body }))).toBe('ROUTE');
    expect(frameType(new Uint8Array([0x92, 99]))).toBe('?');
    expect(frameType(new Uint8Array([0x93, 1]))).toBe('?');
    expect(frameType(new Uint8Array([]))).toBe('?');
  });

  it('tallies', () => {
    const counts: Record<string, number> = {};
    tally(counts, 'PING');
    tally(counts, 'PING', 4);
    expect(counts).toEqual({ PING: 5 });
  });
});
