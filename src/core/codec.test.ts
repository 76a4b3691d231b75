import { encode as pack } from '@msgpack/msgpack';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { dhtCodec, MAX_FRAME, type DhtMessage } from '../dht/messages';
import { bytes, CodecError, defineCodec, u32 } from './codec';

const id = (n: number) => new Uint8Array(20).fill(n);

function reason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    expect((e as CodecError).name).toBe('CodecError');
    return (e as CodecError).reason;
  }
  throw new Error('did not throw');
}

describe('codec', () => {
  const samples: DhtMessage[] = [
    { t: 'PING', r: 1 },
    { t: 'PONG', r: 0xffffffff },
    { t: 'FIND_NODE', r: 2, target: id(1) },
    { t: 'NODES', r: 3, nodes: [id(1), id(2), id(3)] },
    { t: 'FIND_VALUE', r: 4, ns: 'chunk', key: id(9) },
    { t: 'VALUE', r: 5, nodes: [] , rec: { v: new Uint8Array([1, 2, 3]), pub: id(4), seq: 7, ttl: 1000 } },
    { t: 'VALUE', r: 6, nodes: [id(5)] },
    { t: 'STORE', r: 7, ns: 'player', key: id(2), rec: { v: new Uint8Array(10), pub: id(3), seq: 1, ttl: 5 } },
    { t: 'STORED', r: 8, ok: true },
    { t: 'SIGNAL', blob: { type: 'offer', sdp: 'v=0', n: 3, nested: { a: [1, 2] } } },
    { t: 'DATA', body: new Uint8Array([9, 9]) },
  ];

  it('round-trips every DHT message type', () => {
    for (const m of samples) expect(dhtCodec.decode(dhtCodec.encode(m))).toEqual(m);
  });

  it('decoded bytes are copies, not views into the frame', () => {
    const frame = dhtCodec.encode({ t: 'FIND_NODE', r: 1, target: id(7) });
    const m = dhtCodec.decode(frame) as Extract<DhtMessage, { t: 'FIND_NODE' }>;
    frame.fill(0);
    expect(m.target).toEqual(id(7));
    expect(m.target.buffer.byteLength).toBe(20);
  });

  it('rejects oversized frames, both ways', () => {
    expect(reason(() => dhtCodec.decode(new Uint8Array(MAX_FRAME + 1)))).toBe('oversized');
    expect(reason(() => dhtCodec.encode({ t: 'DATA', body: new Uint8Array(MAX_FRAME) }))).toBe('oversized');
  });

  it('rejects malformed frames', () => {
    expect(reason(() => dhtCodec.decode(new Uint8Array([0xc1])))).toBe('malformed'); // never-used msgpack byte
    expect(reason(() => dhtCodec.decode(new Uint8Array([0x92, 0x01])))).toBe('malformed'); // truncated array
    expect(reason(() => dhtCodec.decode(pack({ t: 'PING', r: 1 })))).toBe('malformed'); // not [code, body]
    expect(reason(() => dhtCodec.decode(new Uint8Array(0)))).toBe('malformed');
  });

  it('rejects unknown types', () => {
    expect(reason(() => dhtCodec.decode(pack([99, { r: 1 }])))).toBe('unknown-type');
    expect(reason(() => dhtCodec.encode({ t: 'NOPE' } as unknown as DhtMessage))).toBe('unknown-type');
  });

  it('rejects schema violations', () => {
    expect(reason(() => dhtCodec.decode(pack([1, { r: -1 }])))).toBe('invalid');
    expect(reason(() => dhtCodec.decode(pack([3, { r: 1, target: new Uint8Array(19) }])))).toBe('invalid');
    expect(reason(() => dhtCodec.decode(pack([5, { r: 1, ns: 'nope', key: id(1) }])))).toBe('invalid');
    expect(reason(() => dhtCodec.decode(pack([4, { r: 1, nodes: Array.from({ length: 65 }, () => id(1)) }])))).toBe('invalid');
  });

  it('strips unknown fields; a custom codec refuses duplicate codes', () => {
    const m = dhtCodec.decode(pack([1, { r: 5, extra: 'x' }]));
    expect(m).toEqual({ t: 'PING', r: 5 });
    expect(() => defineCodec({ A: [1, v.object({})], B: [1, v.object({})] })).toThrow(/duplicate/);
    const c = defineCodec({ X: [1, v.object({ n: u32, b: bytes(4) })] }, { maxFrame: 32 });
    expect(c.decode(c.encode({ t: 'X', n: 3, b: new Uint8Array(4) }))).toEqual({ t: 'X', n: 3, b: new Uint8Array(4) });
    expect(reason(() => c.decode(pack([1, { n: 3, b: new Uint8Array(5) }])))).toBe('invalid');
  });

  describe('positional bodies', () => {
    const spec = { P: [1, v.object({ a: u32, b: bytes(8), c: v.optional(u32), d: v.optional(v.literal(true)) })], Q: [2, v.object({ a: u32 })] } as const;
    const c = defineCodec(spec, { positional: { P: ['a', 'b', 'c', 'd'] } });
    const mapped = defineCodec(spec);

    it('travel as their values in order, without names: nil for a field left out, none for trailing ones', () => {
      const m = { t: 'P', a: 7, b: new Uint8Array([1, 2]) } as const;
      expect(c.encode(m)).toEqual(pack([1, [7, new Uint8Array([1, 2])]]));
      expect(c.encode(m).length).toBeLessThan(mapped.encode(m).length);
      expect(c.encode({ ...m, d: true })).toEqual(pack([1, [7, new Uint8Array([1, 2]), null, true]]));
      for (const x of [m, { ...m, c: 0 }, { ...m, d: true } as const, { ...m, c: 9, d: true } as const]) expect(c.decode(c.encode(x))).toEqual(x);
      // Other types keep their maps.
      expect(c.encode({ t: 'Q', a: 1 })).toEqual(pack([2, { a: 1 }]));
    });

    it('are checked as the map they stand for: a map, too many fields, a bad value or a required nil is invalid', () => {
      expect(reason(() => c.decode(pack([1, { a: 7, b: new Uint8Array(1) }])))).toBe('invalid');
      expect(reason(() => c.decode(pack([1, [7, new Uint8Array(1), 1, true, 5]])))).toBe('invalid');
      expect(reason(() => c.decode(pack([1, [-7, new Uint8Array(1)]])))).toBe('invalid');
      expect(reason(() => c.decode(pack([1, [7, new Uint8Array(9)]])))).toBe('invalid');
      expect(reason(() => c.decode(pack([1, [null, new Uint8Array(1)]])))).toBe('invalid');
      expect(reason(() => c.decode(pack([1, [7, new Uint8Array(1), null, false]])))).toBe('invalid');
      expect(reason(() => c.decode(pack([1, 'x'])))).toBe('invalid');
    });

    it('name every field of the schema once', () => {
      expect(() => defineCodec(spec, { positional: { P: ['a', 'b', 'c'] } })).toThrow(/positional/);
      expect(() => defineCodec(spec, { positional: { P: ['a', 'b', 'c', 'c'] } })).toThrow(/positional/);
      expect(() => defineCodec(spec, { positional: { P: ['a', 'b', 'c', 'e'] } })).toThrow(/positional/);
    });
  });
});
