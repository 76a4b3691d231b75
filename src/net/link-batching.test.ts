// Batch frames (frames.ts FrameKind.Batch): small messages a link sends in one task leave
// as one data-channel write when the peer said it reads them; order holds across a large
// message; a hostile peer's malformed batch is a bad frame, never a crash or a message.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/clock';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { batchFrame, FRAME_PAYLOAD, FrameKind, FrameReader } from './frames';
import { LINK_WAIT_MS, WebRtcLink } from './webrtc-link';

const rand = seededRandom(21);
// Past the link's own next-turn work (activate's timer, the batch's setImmediate).
const afterTask = () => new Promise((r) => setTimeout(r, 5));

/** A link whose writes are kept, and one at the far end that reads them. */
function pair(batching: boolean, clock?: Clock) {
  const a = new FakeSimplePeer(), b = new FakeSimplePeer();
  const writes: Uint8Array[] = [];
  a.write = (chunk: Uint8Array) => (writes.push(chunk.slice()), true);
  const from = new WebRtcLink(a.asPeer, randomId(rand), clock ? { clock } : {});
  const to = new WebRtcLink(b.asPeer, randomId(rand));
  if (batching) from.enableBatching();
  from.activate();
  to.activate();
  const got: number[][] = [];
  to.events.on('message', (m) => void got.push([...m.subarray(0, 4)]));
  const carry = () => {
    for (const w of writes.splice(0)) b.deliver(w);
  };
  return { from, to, writes, got, carry };
}

describe('batch frames', () => {
  it('messages sent in one task leave in one write when the peer reads batches, one write each when not; the far end gets each, in order', async () => {
    for (const batching of [true, false]) {
      const p = pair(batching);
      await afterTask(); // activate() opens on the next turn
      for (let i = 0; i < 10; i++) p.from.send(new Uint8Array([i, 1, 2, 3]));
      await afterTask();
      expect(p.writes.length).toBe(batching ? 1 : 10);
      if (batching) expect(p.writes[0]![0]).toBe(FrameKind.Batch);
      p.carry();
      await afterTask();
      expect(p.got.map((m) => m[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(p.from.stats.messagesOut).toBe(10);
      expect(p.to.stats.messagesIn).toBe(10);
    }
  });

  it('a large message goes after what was batched before it; a batch never passes FRAME_PAYLOAD; a lone message goes as a plain frame', async () => {
    const p = pair(true);
    await afterTask();
    p.from.send(new Uint8Array([1, 0, 0, 0]));
    p.from.send(new Uint8Array(40_000).fill(2)); // split into frames, after the batched one
    p.from.send(new Uint8Array([3, 0, 0, 0]));
    for (let i = 0; i < 12; i++) p.from.send(new Uint8Array(3000).fill(4)); // 12 x 3 kB: more than one frame's worth
    await afterTask();
    expect(p.writes.every((w) => w.length <= FRAME_PAYLOAD + 1)).toBe(true);
    expect(p.writes[0]![0]).toBe(FrameKind.End);
    p.carry();
    await afterTask();
    expect(p.got.map((m) => m[0])).toEqual([1, 2, 3, ...Array(12).fill(4)]);
    expect(p.from.stats.batchesOut).toBeGreaterThanOrEqual(2);
  });

  it('a malformed batch from a hostile peer is a bad frame: no message, counted, and enough of them close the link', async () => {
    const r = new FrameReader();
    expect(r.push(new Uint8Array([FrameKind.Batch]))).toEqual({ kind: 'bad', why: 'empty batch' });
    expect(r.push(new Uint8Array([FrameKind.Batch, 0]))).toEqual({ kind: 'bad', why: 'malformed batch' });
    expect(r.push(new Uint8Array([FrameKind.Batch, 0, 9, 1, 2]))).toEqual({ kind: 'bad', why: 'malformed batch' });
    expect(r.push(new Uint8Array([FrameKind.More, 7]))).toEqual({ kind: 'partial' });
    expect(r.push(batchFrame([new Uint8Array([1])]))).toEqual({ kind: 'bad', why: 'batch inside a message' });
    const p = pair(false);
    await afterTask();
    const closed: string[] = [];
    p.to.events.on('close', ({ reason }) => void closed.push(reason));
    const b = (p.to as unknown as { peer: FakeSimplePeer }).peer;
    for (let i = 0; i < 8; i++) b.deliver(new Uint8Array([FrameKind.Batch, 0, 200, 1]));
    expect(p.got).toEqual([]);
    expect(p.to.stats.badBy['malformed batch']).toBe(8);
    expect(closed[0]).toContain('protocol violation');
  });
});

// A message nobody waits on (a beat, a position: net/link.ts `mayWait`) may wait up to
// LINK_WAIT_MS for company in one write; anything else leaves at the end of its task and
// takes what waits along. Each write is a blocking call into the browser's WebRTC thread.
describe('messages that may wait', () => {
  const m = (i: number) => new Uint8Array([i, 1, 2, 3]);
  /** A link on a virtual clock (the wait), opened; the batch's end-of-task flush is real. */
  async function waiting(batching = true) {
    const clock = new VirtualClock();
    const p = pair(batching, clock);
    clock.advanceSync(0); // activate()'s timer
    await afterTask();
    return { ...p, clock };
  }

  it('waits at most LINK_WAIT_MS from the first that waits, then leaves with those that came meanwhile, in one write', async () => {
    const p = await waiting();
    p.from.send(m(1), true);
    await afterTask();
    expect(p.writes).toHaveLength(0);
    p.clock.advanceSync(LINK_WAIT_MS - 10);
    p.from.send(m(2), true);
    await afterTask();
    p.clock.advanceSync(9);
    expect(p.writes).toHaveLength(0);
    p.clock.advanceSync(1);
    expect(p.writes).toHaveLength(1);
    expect(p.writes[0]![0]).toBe(FrameKind.Batch);
    p.carry();
    await afterTask();
    expect(p.got.map((g) => g[0])).toEqual([1, 2]);
  });

  it('a message nobody may hold leaves at the end of its task with what waited, in order; the wait ends with it', async () => {
    const p = await waiting();
    p.from.send(m(1), true);
    p.clock.advanceSync(5);
    p.from.send(m(2), true);
    p.clock.advanceSync(5);
    p.from.send(m(3));
    await afterTask();
    expect(p.writes).toHaveLength(1);
    p.clock.advanceSync(LINK_WAIT_MS);
    expect(p.writes).toHaveLength(1);
    // One that may wait, sent in the task of one that may not, leaves with it.
    p.from.send(m(4));
    p.from.send(m(5), true);
    await afterTask();
    expect(p.writes).toHaveLength(2);
    // A large message (frames of its own) goes behind what waited before it.
    p.from.send(m(6), true);
    p.from.send(new Uint8Array(40_000).fill(7), true);
    expect(p.writes.length).toBeGreaterThan(3);
    p.clock.advanceSync(LINK_WAIT_MS);
    p.carry();
    await afterTask();
    expect(p.got.map((g) => g[0])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(p.from.stats.messagesOut).toBe(7);
  });

  it('to a peer that reads no batches, a message that may wait is written at once', async () => {
    const p = await waiting(false);
    p.from.send(m(1), true);
    expect(p.writes).toHaveLength(1);
  });

  it('a link closed while messages wait writes them first, and its wait never fires after', async () => {
    const p = await waiting();
    p.from.send(m(1), true);
    p.from.close();
    expect(p.writes).toHaveLength(2); // the message, then the bye
    expect(p.writes[0]![0]).toBe(FrameKind.End);
    p.clock.advanceSync(LINK_WAIT_MS);
    expect(p.clock.pending).toBe(0);
  });
});
