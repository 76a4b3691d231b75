// A link closed for budget loses nothing in flight: the frame the other end sent before it
// heard of the close still arrives and is acted on; after that neither end sends on it.
import { describe, expect, it } from 'vitest';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { MemoryLink, type LinkMedium } from '../net/memory-link';
import { LINK_BUDGET_DEFAULTS } from './link-budget';
import { compareDistance } from '../core/node-id';
import { ESTABLISHED_LINK_MS, LINK_LIMIT_DEFAULTS, LinkSet, type LinkLimits } from './link-set';
import { dhtCodec, type DhtMessage } from './messages';
import { newStats } from './stats';

const LATENCY = 20;
const DRAIN = 1000;

function pair(limitsA: Partial<LinkLimits> = {}) {
  const clock = new VirtualClock();
  const medium: LinkMedium = { clock, delay: (base) => base, reachable: () => true, count: () => {}, countDrop: () => {} };
  const rand = seededRandom(3);
  const [idA, idB] = [randomId(rand), randomId(rand)];
  const a = new MemoryLink(idA, idB, medium, LATENCY);
  const b = new MemoryLink(idB, idA, medium, LATENCY);
  a.peer = b;
  b.peer = a;
  const side = (self: typeof idA, limits: Partial<LinkLimits> = {}) => {
    const got: DhtMessage[] = [];
    const closed: { reason: string; byUs: boolean }[] = [];
    const stats = newStats();
    const set = new LinkSet(self, clock, stats, { ...LINK_BUDGET_DEFAULTS, ...LINK_LIMIT_DEFAULTS, ...limits }, {
      onMessage: (m) => void got.push(m),
      onRoute: () => {},
      onOpen: () => {},
      onClose: (_pl, reason, byUs) => void closed.push({ reason, byUs }),
    }, DRAIN);
    return { set, got, closed, stats };
  };
  const A = side(idA, limitsA);
  const B = side(idB);
  expect(A.set.attach(a, true)).toBe(true);
  expect(B.set.attach(b, false)).toBe(true);
  return { clock, a, b, A, B, plA: A.set.get(A.set.map.keys().next().value!)!, plB: B.set.get(B.set.map.keys().next().value!)! };
}

describe('LinkSet budget close (retire)', () => {
  it('delivers what the other end sent before it heard of the close, then both ends stop', async () => {
    const { clock, a, b, A, B, plA, plB } = pair();
    // B sends at the very moment A decides to drop the link.
    expect(B.set.sendFrame(plB, dhtCodec.encode({ t: 'PING', r: 7 }))).toBe(true);
    A.set.retire(plA.hex, 'budget');
    expect(A.set.size).toBe(0);
    expect(A.closed).toEqual([{ reason: 'budget', byUs: true }]);
    await clock.advance(3 * LATENCY);
    // The PING in flight arrived and was handled; B heard CLOSING and stopped using the link.
    expect(A.got).toEqual([{ t: 'PING', r: 7 }]);
    expect(B.set.size).toBe(0);
    expect(B.closed).toEqual([{ reason: 'closed by peer', byUs: false }]);
    expect(B.got).toEqual([]); // CLOSING is consumed by the link set, not handed on
    expect(a.open && b.open).toBe(true); // still draining
    await clock.advance(DRAIN);
    expect(a.open || b.open).toBe(false);
    expect(A.stats.linksClosed + B.stats.linksClosed).toBe(2);
  });

  it('counts the frames and bytes each way by type', async () => {
    const { clock, A, B, plB } = pair();
    const ping = dhtCodec.encode({ t: 'PING', r: 1 }), store = dhtCodec.encode({ t: 'STORED', r: 2, ok: true });
    B.set.sendFrame(plB, ping);
    B.set.sendFrame(plB, ping);
    B.set.sendFrame(plB, store);
    await clock.advance(3 * LATENCY);
    expect(B.stats.framesOutByType).toEqual({ PING: 2, STORED: 1 });
    expect(A.stats.framesInByType).toEqual({ PING: 2, STORED: 1 });
    expect(A.stats.bytesInByType).toEqual({ PING: 2 * ping.length, STORED: store.length });
    expect(B.stats.bytesOutByType).toEqual(A.stats.bytesInByType);
  });

  it('an abrupt close (heartbeat timeout) still drops in-flight frames: the case retire exists for', async () => {
    const { clock, A, B, plA, plB } = pair();
    B.set.sendFrame(plB, dhtCodec.encode({ t: 'PING', r: 7 }));
    A.set.close(plA.hex, 'heartbeat timeout');
    await clock.advance(3 * LATENCY);
    expect(A.got).toEqual([]);
  });

  it('a CLOSING on the old link does not touch a newer link to the same peer', async () => {
    const { clock, a, b, A, B, plA } = pair();
    A.set.retire(plA.hex, 'budget');
    await clock.advance(3 * LATENCY);
    // B dials A again while the old link drains.
    const medium = (a as unknown as { medium: LinkMedium }).medium;
    const a2 = new MemoryLink(a.localId, a.remoteId, medium, LATENCY);
    const b2 = new MemoryLink(b.localId, b.remoteId, medium, LATENCY);
    a2.peer = b2;
    b2.peer = a2;
    expect(A.set.attach(a2, false)).toBe(true);
    expect(B.set.attach(b2, true)).toBe(true);
    // A repeated (or forged) CLOSING arrives on the old, draining link.
    b.send(dhtCodec.encode({ t: 'CLOSING' }));
    await clock.advance(3 * LATENCY);
    expect(A.set.get(plA.hex)?.link).toBe(a2);
    expect(a2.open).toBe(true);
    await clock.advance(3 * DRAIN);
    expect(a.open).toBe(false);
    expect(A.set.get(plA.hex)?.link).toBe(a2);
  });
});

describe('LinkSet duplicate rule', () => {
  /** A second link between the pair's ends, dialled by the higher id (the one the race rule refuses). */
  function second(p: ReturnType<typeof pair>) {
    const medium = (p.a as unknown as { medium: LinkMedium }).medium;
    const aLower = compareDistance(p.a.localId, p.a.remoteId, new Uint8Array(p.a.localId.length)) < 0;
    const a2 = new MemoryLink(p.a.localId, p.a.remoteId, medium, LATENCY);
    const b2 = new MemoryLink(p.b.localId, p.b.remoteId, medium, LATENCY);
    a2.peer = b2;
    b2.peer = a2;
    // The higher id dials: at the lower end the new link is inbound.
    const [lower, higher, lowerLink, higherLink] = aLower ? [p.A, p.B, a2, b2] : [p.B, p.A, b2, a2];
    return { lower, higher, lowerLink, higherLink, hex: p.plA.hex };
  }

  it('two dials that crossed: the link the lower id dialled stays', async () => {
    const p = pair();
    await p.clock.advance(1000);
    const { lower, lowerLink, higher } = second(p);
    const keptBefore = lower.set.get([...lower.set.map.keys()][0]!)!.link;
    // The lower id refuses the higher id's link (inbound at the lower end) and keeps its own.
    expect(lower.set.attach(lowerLink, false)).toBe(false);
    expect(lower.set.get([...lower.set.map.keys()][0]!)!.link).toBe(keptBefore);
    expect(lower.stats.linksReplaced + higher.stats.linksReplaced).toBe(0);
  });

  it('a second link long after ours opened replaces ours, whoever dialled it: the peer lost ours', async () => {
    const p = pair();
    await p.clock.advance(ESTABLISHED_LINK_MS);
    const { lower, lowerLink } = second(p);
    // The old rule would refuse this one at the lower end (inbound there); the peer holds no
    // other link to it (it dialled because it lost ours), so it is taken.
    expect(lower.set.attach(lowerLink, false)).toBe(true);
    expect([...lower.set.map.values()][0]!.link).toBe(lowerLink);
    expect(lower.stats.linksReplaced).toBe(1);
  });
});

describe('LinkSet rate limits', () => {
  const limits = { linkFramesPerSec: 100, linkFrameBurst: 200, maxFloodDrops: 50 };
  /** A frame of no particular kind (PINGs and PONGs have a budget of their own past the limit). */
  const frame = (i: number) => dhtCodec.encode({ t: 'DATA', body: new Uint8Array([i & 255]) });

  it('an honest peer under the limits loses nothing', async () => {
    const { clock, A, B, plB } = pair(limits);
    for (let i = 0; i < 900; i++) {
      B.set.sendFrame(plB, frame(i));
      await clock.advance(11); // ~90 frames/s for 10 s
    }
    await clock.advance(100);
    expect(A.got.length).toBe(900);
    expect(A.stats.dropped.rateLimited).toBe(0);
  });

  it('drops and counts a flood before decoding it, then closes the link', async () => {
    const { clock, a, A, B, plB } = pair(limits);
    for (let i = 0; i < 1000; i++) B.set.sendFrame(plB, frame(i));
    await clock.advance(3 * LATENCY);
    expect(A.got.length).toBe(200); // the burst
    expect(A.stats.dropped.rateLimited).toBe(50);
    expect(A.stats.floodLinksClosed).toBe(1);
    expect(A.set.size).toBe(0);
    expect(a.open).toBe(false);
    expect(A.closed).toEqual([{ reason: 'flood', byUs: true }]);
  });

  it('a link we pinned may send pinnedFramesFactor times the frames (a crowd primary\'s backups forward its MOVEs), and no more', async () => {
    const { clock, A, B, plA, plB } = pair({ ...limits, pinnedFramesFactor: 4 });
    plA.pinned = true;
    for (let i = 0; i < 1000; i++) {
      B.set.sendFrame(plB, frame(i));
      await clock.advance(3); // ~330 frames/s for 3 s: over the limit, under 4 times it
    }
    await clock.advance(100);
    expect(A.got.length).toBe(1000);
    expect(A.stats.dropped.rateLimited).toBe(0);
    for (let i = 0; i < 2000; i++) B.set.sendFrame(plB, frame(i));
    await clock.advance(3 * LATENCY);
    expect(A.stats.dropped.rateLimited).toBeGreaterThan(0);
    expect(A.got.length).toBeLessThan(1000 + 4 * 200 + 100);
  });

  it('a link over its frame limit still passes a probe and its answer (PING, PONG), within a small budget of their own', async () => {
    const { clock, A, B, plB } = pair({ ...limits, maxFloodDrops: 10_000 });
    for (let i = 0; i < 400; i++) B.set.sendFrame(plB, frame(i));
    B.set.sendFrame(plB, dhtCodec.encode({ t: 'PING', r: 1 }));
    B.set.sendFrame(plB, dhtCodec.encode({ t: 'PONG', r: 2 }));
    await clock.advance(3 * LATENCY);
    expect(A.stats.dropped.rateLimited).toBe(200); // the frames past the burst
    expect(A.got.filter((m) => m.t === 'PING' || m.t === 'PONG').length).toBe(2);
    // A flood of PINGs is still a flood: past the burst, what the frame limit refilled (6 in
    // the 60 ms since) and the liveness budget's rest get in, no more.
    const got = A.got.length;
    for (let i = 0; i < 100; i++) B.set.sendFrame(plB, dhtCodec.encode({ t: 'PING', r: i }));
    await clock.advance(3 * LATENCY);
    expect(A.got.length - got).toBeLessThanOrEqual(10);
  });

  it('limits bytes as well as frames', async () => {
    const { clock, A, B, plB } = pair({ linkBytesPerSec: 10_000, linkByteBurst: 20_000, maxFloodDrops: 1000 });
    const big = dhtCodec.encode({ t: 'DATA', body: new Uint8Array(4000) });
    for (let i = 0; i < 10; i++) B.set.sendFrame(plB, big);
    await clock.advance(3 * LATENCY);
    expect(A.got.length).toBe(Math.floor(20_000 / big.length));
    expect(A.stats.dropped.rateLimited).toBe(10 - A.got.length);
  });
});
