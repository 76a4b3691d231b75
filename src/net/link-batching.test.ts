// Batch frames (frames.ts FrameKind.Batch): small messages a link sends in one task leave
// as one data-channel write when the peer said it reads them; order holds across a large
// message; a hostile peer's malformed batch is a bad frame, never a crash or a message.
import { describe, expect, it } from 'vitest';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { batchFrame, FRAME_PAYLOAD, FrameKind, FrameReader } from './frames';
import { WebRtcLink } from './webrtc-link';

const rand = seededRandom(21);
// Past the link's own next-turn work (activate's timer, the batch's setImmediate).
const afterTask = () => new Promise((r) => setTimeout(r, 5));

/** A link whose writes are kept, and one at the far end that reads them. */
function pair(batching: boolean) {
  const a = new FakeSimplePeer(), b = new FakeSimplePeer();
  const writes: Uint8Array[] = [];
  a.write = (chunk: Uint8Array) => (writes.push(chunk.slice()), true);
  const from = new WebRtcLink(a.asPeer, randomId(rand));
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
