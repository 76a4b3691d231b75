// The ROUTE header layout, and forwarding by header only: malformed or forged envelopes
// are dropped and counted at the forwarder or destination, never crash a node.
import { describe, expect, it } from 'vitest';
import { CodecError } from '../core/codec';
import { idToHex } from '../core/node-id';
import { dhtCodec, MAX_FRAME, MAX_IDS } from './messages';
import { encodeRoute, readRoute, ROUTE_TAG, type RouteEnvelope } from './route-frame';
import { SimCluster } from '../testing/sim-cluster';

const id = (n: number) => new Uint8Array(20).fill(n);
const body = dhtCodec.encode({ t: 'PING', r: 1 });
const env = (over: Partial<RouteEnvelope> = {}): RouteEnvelope => ({ id: 0xfeedbeef, ttl: 32, src: id(1), dst: id(2), trace: [id(3), id(4)], via: [id(5)], body, ...over });

function reason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return (e as CodecError).reason;
  }
  throw new Error('did not throw');
}

describe('route frame', () => {
  it('round-trips the header; the body is passed through as bytes', () => {
    const frame = encodeRoute(env());
    expect(frame[0]).toBe(ROUTE_TAG);
    const back = readRoute(frame);
    expect({ ...back, trace: back.trace.map((t) => [...t]), via: back.via.map((t) => [...t]) }).toEqual({
      ...env(),
      trace: [[...id(3)], [...id(4)]],
      via: [[...id(5)]],
      src: id(1),
      dst: id(2),
    });
    expect(dhtCodec.decode(back.body)).toEqual({ t: 'PING', r: 1 });
  });

  it('rejects truncated, empty-bodied, out-of-range and oversized frames', () => {
    const frame = encodeRoute(env());
    expect(reason(() => readRoute(frame.subarray(0, 47)))).toBe('malformed');
    expect(reason(() => readRoute(frame.subarray(0, frame.length - body.length)))).toBe('malformed');
    const lying = frame.slice();
    lying[6] = 40; // trace longer than the frame
    expect(reason(() => readRoute(lying))).toBe('malformed');
    const many = frame.slice();
    many[7] = MAX_IDS + 1;
    expect(reason(() => readRoute(many))).toBe('invalid');
    const ttl = frame.slice();
    ttl[5] = 200;
    expect(reason(() => readRoute(ttl))).toBe('invalid');
    expect(reason(() => readRoute(new Uint8Array(MAX_FRAME + 1).fill(ROUTE_TAG)))).toBe('oversized');
    expect(reason(() => encodeRoute(env({ body: new Uint8Array(MAX_FRAME) })))).toBe('oversized');
    expect(reason(() => encodeRoute(env({ ttl: 99 })))).toBe('invalid');
  });
});

describe('forwarding by header only', () => {
  it('drops and counts malformed and forged envelopes; a junk inner frame is caught by the destination', async () => {
    const c = new SimCluster({ seed: 3, dht: { heartbeatMs: 30_000, heartbeatTimeoutMs: 90_000 } });
    await c.grow(30);
    await c.clock.advance(10_000);
    const a = c.pick();
    const pl = [...a.links.map.values()][0]!;
    const b = c.nodes.get(pl.hex)!;
    // A far destination b has no link to, so b forwards.
    const far = [...c.nodes.values()].find((n) => n !== a && n !== b && !b.links.get(n.selfHex))!;
    const send = (frame: Uint8Array) => a.links.get(b.selfHex)!.link.send(frame);
    const before = { ...b.stats.dropped };
    const fwd0 = b.stats.routedForwarded;

    // Ids far above a's own (its routed messages count up from 0): a real message of a's
    // that passed b with the same id would make these duplicates at b.
    send(new Uint8Array([ROUTE_TAG, 1, 2])); // truncated header
    const forged = encodeRoute(env({ src: b.selfId, dst: far.selfId, trace: [], via: [] }));
    send(forged); // claims to come from b itself
    const bad = encodeRoute(env({ id: 3_000_000_000 + 7, src: a.selfId, dst: far.selfId, trace: [], via: [] })).slice();
    bad[5] = 250; // ttl out of range
    send(bad);
    const nested = encodeRoute(env({ id: 3_000_000_000 + 8, src: a.selfId, dst: b.selfId, trace: [], via: [], body: encodeRoute(env()) }));
    send(nested);
    const junkBody = encodeRoute(env({ id: 3_000_000_000 + 9, src: a.selfId, dst: b.selfId, trace: [], via: [], body: new Uint8Array([0x92, 1]) }));
    send(junkBody);
    // Forwarders read only the header: a junk body travels on and is caught where it is consumed.
    const farMalformed = far.stats.dropped.malformed;
    send(encodeRoute(env({ id: 3_000_000_000 + 11, src: a.selfId, dst: far.selfId, trace: [], via: [], body: new Uint8Array([0x92, 1]) })));
    const got: string[] = [];
    far.events.on('message', ({ from }) => got.push(idToHex(from)));
    const ok = encodeRoute(env({ id: 3_000_000_000 + 10, src: a.selfId, dst: far.selfId, trace: [], via: [], body: dhtCodec.encode({ t: 'DATA', body: new Uint8Array([7]) }) }));
    send(ok);
    await c.clock.advance(2_000);

    expect(b.stats.dropped.malformed - before.malformed).toBe(2); // truncated header + junk body at the destination
    expect(b.stats.dropped.invalid - before.invalid).toBe(2); // forged source + ttl
    expect(b.stats.dropped.nested - before.nested).toBe(1);
    expect(b.stats.routedForwarded).toBeGreaterThan(fwd0);
    expect(got).toEqual([a.selfHex]);
    expect(far.stats.dropped.malformed - farMalformed).toBe(1);
    expect(b.isRunning).toBe(true);
    c.stopAll();
  });
});
