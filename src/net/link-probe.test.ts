// Transport probes (frames.ts FrameKind.Probe, sent by WebRtcLink.watchTransport): the far
// end reads each as nothing, never as a message or a bad frame, so a link watched for as long
// as a silent primary lasts stays open. An empty Batch frame, the first probe, was a bad
// frame, and MAX_BAD_FRAMES of them (1.6 s of watching) closed the link being watched. A
// probe goes only to a peer whose hello said it reads them; a malformed one is bad.
import { describe, expect, it } from 'vitest';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { handshakePipe } from '../testing/handshake-pipe';
import { testNodeIdentity } from '../testing/node-identities';
import { FrameKind, FrameReader, probeFrame, splitMessage } from './frames';
import { runHandshake } from './link-handshake';
import { MAX_BAD_FRAMES, WebRtcLink } from './webrtc-link';
import { TRANSPORT_POLL_MS, TRANSPORT_PROBE_MS } from './transport-watch';

const rand = seededRandom(29);
const FPS = 'sha-256 aa:bb|sha-256 cc:dd';

/** A watched link (`from`, its path and transport watched as in a browser) whose writes reach a far link (`to`) as its peer would read them. */
function pair(probes: boolean) {
  const clock = new VirtualClock();
  const a = new FakeSimplePeer(), b = new FakeSimplePeer();
  const writes: Uint8Array[] = [];
  let acked = 0;
  a.write = (chunk: Uint8Array) => {
    writes.push(chunk.slice());
    b.deliver(chunk.slice());
    return true;
  };
  // The far browser's network thread acknowledges what it got: the counters grow with it.
  (a as unknown as { getStats: (cb: (err: Error | null, r: unknown[]) => void) => void }).getStats = (cb) =>
    cb(null, [{ type: 'transport', bytesReceived: 50 * acked, bytesSent: 0 }]);
  const from = new WebRtcLink(a.asPeer, randomId(rand), { clock, pathDeadMs: 5000 });
  const to = new WebRtcLink(b.asPeer, randomId(rand), { clock, pathDeadMs: 5000 });
  from.enableBatching();
  to.enableBatching();
  if (probes) from.enableProbes();
  from.activate();
  to.activate();
  clock.advanceSync(0);
  const closed: string[] = [];
  for (const l of [from, to]) l.events.on('close', ({ reason }) => void closed.push(reason));
  const got: Uint8Array[] = [];
  to.events.on('message', (m) => void got.push(m));
  return { clock, from, to, writes, closed, got, ack: () => acked++ };
}

describe('transport probes', () => {
  it('a peer that receives 100 probes counts 0 bad frames and no message, and both ends keep the link', async () => {
    const p = pair(true);
    // A probe at every second reading (TRANSPORT_POLL_MS 125, TRANSPORT_PROBE_MS 200 apart at least): 250 ms apart.
    const watchMs = 100 * 2 * TRANSPORT_POLL_MS + 1000;
    expect(p.from.watchTransport(p.clock.now() + watchMs)).toBe(true);
    for (let t = 0; t < watchMs; t += 25) {
      p.clock.advanceSync(25);
      if (t % TRANSPORT_PROBE_MS === 0) p.ack();
    }
    const probes = p.writes.filter((w) => w[0] === FrameKind.Probe);
    expect(probes.length).toBeGreaterThanOrEqual(100);
    expect(TRANSPORT_PROBE_MS).toBeLessThanOrEqual(2 * TRANSPORT_POLL_MS);
    expect(probes.every((w) => w.length === 1)).toBe(true);
    expect(p.to.stats.badFrames).toBe(0);
    expect(p.to.stats.messagesIn).toBe(0);
    expect(p.got).toEqual([]);
    expect(p.closed).toEqual([]);
    expect(p.to.open && p.from.open).toBe(true);
    // The watch heard the acknowledgements, and the link still carries messages both ways.
    expect(p.from.transportHeardAt()).toBeGreaterThan(0);
    p.from.send(new Uint8Array([7, 7]));
    await new Promise((r) => setTimeout(r, 5)); // the batch leaves after this task
    expect(p.got.map((m) => [...m])).toEqual([[7, 7]]);
  });

  it('a peer that did not say it reads probes gets none: the link cannot be watched', () => {
    const p = pair(false);
    expect(p.from.watchTransport(p.clock.now() + 2000)).toBe(false);
    p.clock.advanceSync(2000);
    expect(p.writes).toEqual([]);
  });

  it('the reader drops a probe anywhere, even inside a fragmented message; a probe with a body is a bad frame, and enough of them close the link', () => {
    const r = new FrameReader();
    expect(r.push(probeFrame())).toEqual({ kind: 'probe' });
    const frames = splitMessage(new Uint8Array(40_000).fill(3));
    expect(r.push(frames[0]!)).toEqual({ kind: 'partial' });
    expect(r.push(probeFrame())).toEqual({ kind: 'probe' });
    for (const f of frames.slice(1, -1)) r.push(f);
    const last = r.push(frames.at(-1)!);
    expect(last.kind === 'message' && last.data.length).toBe(40_000);
    expect(r.push(new Uint8Array([FrameKind.Probe, 0]))).toEqual({ kind: 'bad', why: 'malformed probe' });
    const p = pair(false);
    const b = (p.to as unknown as { peer: FakeSimplePeer }).peer;
    for (let i = 0; i < MAX_BAD_FRAMES; i++) b.deliver(new Uint8Array([FrameKind.Probe, 1, 2]));
    expect(p.to.stats.badBy['malformed probe']).toBe(MAX_BAD_FRAMES);
    expect(p.closed[0]).toContain('protocol violation');
  });

  it('the handshake tells each side that the other reads probes', async () => {
    const [us, them] = [await testNodeIdentity(), await testNodeIdentity()];
    const [a, b] = handshakePipe();
    const [ours, theirs] = await Promise.all([runHandshake(a, us, them.id, FPS, 0), runHandshake(b, them, us.id, FPS, 0)]);
    expect(ours).toEqual({ batch: true, probe: true });
    expect(theirs).toEqual({ batch: true, probe: true });
  });
});
