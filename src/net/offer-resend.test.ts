// A dial's unanswered offer resent through a channel that may lose signals (a relay whose
// socket to the far end is deaf for a while), and the far end taking the copies as nothing:
// the real WebRtcTransport on stand-in peer connections and a virtual clock.
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import type { SignalBlob } from './transport';
import { WebRtcTransport } from './webrtc-transport';

const rand = seededRandom(30);
const sdp = (fp: string) => ['v=0', 'o=- 1 2 IN IP4 127.0.0.1', `a=fingerprint:${fp}`, 'm=application 9 UDP/DTLS/SCTP webrtc-datachannel', ''].join('\r\n');
const candidate = (port: number) => ({ type: 'candidate', candidate: { candidate: `candidate:1 1 udp 1 127.0.0.1 ${port} typ host`, sdpMLineIndex: 0, sdpMid: '0' } });

async function transport(clock: VirtualClock) {
  const peers: FakeSimplePeer[] = [];
  const t = new WebRtcTransport({
    identity: await generateNodeIdentity({ bits: 0 }), clock, idWorkBits: 0, offerResendMs: 3000, offerResends: 4,
    createPeer: (o) => {
      const p = new FakeSimplePeer(o);
      peers.push(p);
      return p.asPeer;
    },
  });
  return { t, peers };
}

/** A channel that records what it carries; `lossy`: it says signals may be lost on the way (as Doorways does). */
function channel(lossy: boolean) {
  const sent: SignalBlob[] = [];
  return { sent, ch: { sendSignal: (_to: Uint8Array, b: SignalBlob) => void sent.push(b), ...(lossy ? { resendsUnanswered: true } : {}) } };
}

describe('an unanswered offer', () => {
  it('is resent with its candidates every offerResendMs through a lossy channel, at most offerResends times, until the answer; never through the overlay', async () => {
    const clock = new VirtualClock();
    const { t, peers } = await transport(clock);
    const relay = channel(true), overlay = channel(false);
    const far = randomId(rand);
    void t.dial(far, relay.ch).catch(() => {});
    void t.dial(randomId(rand), overlay.ch).catch(() => {});
    for (const p of peers) {
      p.emit('signal', { type: 'offer', sdp: sdp('sha-256 AA:BB') });
      p.emit('signal', candidate(5000));
      p.emit('signal', candidate(5001));
    }
    expect([relay.sent.length, overlay.sent.length]).toEqual([3, 3]);
    clock.advanceSync(1999);
    expect(t.unanswered()).toEqual({ dials: 2, oldestMs: 1999 });
    clock.advanceSync(1001);
    // The same three signals again (one dial's copy), through the relay only.
    expect(relay.sent.length).toBe(6);
    expect(relay.sent.slice(3)).toEqual(relay.sent.slice(0, 3));
    expect(overlay.sent.length).toBe(3);
    clock.advanceSync(3000);
    expect([relay.sent.length, t.stats.offersResent]).toEqual([9, 2]);
    // The answer: nothing more is resent.
    const cid = (relay.sent[0] as { cid: string }).cid;
    t.handleSignal(far, { t: 'rtc', v: 1, cid, s: { type: 'answer', sdp: sdp('sha-256 CC:DD') } }, relay.ch);
    expect(t.stats.dialsAnswered).toBe(1);
    expect(t.unanswered().dials).toBe(1); // the overlay's dial still waits
    clock.advanceSync(9000);
    expect(relay.sent.length).toBe(9);
    // A dial never answered: resent offerResends times, then it times out (15 s).
    const { t: t2, peers: peers2 } = await transport(clock);
    const lonely = channel(true);
    const ended = t2.dial(randomId(rand), lonely.ch).then(() => 'open', (e: Error) => e.message);
    peers2[0]!.emit('signal', { type: 'offer', sdp: sdp('sha-256 AA:BB') });
    peers2[0]!.emit('signal', candidate(5000));
    clock.advanceSync(20_000);
    expect(await ended).toBe('dial timed out');
    expect([lonely.sent.length, t2.stats.offersResent, t2.stats.dialsAnswered]).toEqual([2 + 4 * 2, 4, 0]);
    t.close();
    t2.close();
  });

  it('copies reaching the far end cost nothing: the same offer is no new connection, a candidate taken is not taken again, nothing counted bad', async () => {
    const clock = new VirtualClock();
    const { t, peers } = await transport(clock);
    const from = randomId(rand);
    const back = channel(false);
    const offer = { t: 'rtc', v: 1, cid: 'abcdef0123456789', s: { type: 'offer', sdp: sdp('sha-256 AA:BB') } };
    const cand = { t: 'rtc', v: 1, cid: 'abcdef0123456789', s: candidate(5000) };
    // Before our answer is made (candidates held), then after it (passed to the connection).
    t.handleSignal(from, offer, back.ch);
    t.handleSignal(from, cand, back.ch);
    t.handleSignal(from, offer, back.ch);
    t.handleSignal(from, cand, back.ch);
    expect(peers.length).toBe(1);
    peers[0]!.emit('signal', { type: 'answer', sdp: sdp('sha-256 CC:DD') });
    t.handleSignal(from, offer, back.ch);
    t.handleSignal(from, cand, back.ch);
    t.handleSignal(from, { ...cand, s: candidate(5001) }, back.ch);
    expect(peers.length).toBe(1);
    expect(peers[0]!.signals.map((s) => s.type)).toEqual(['offer', 'candidate', 'candidate']);
    expect(t.stats.badSignals).toBe(0);
    t.close();
  });
});
