// The bounds on links, so a hostile peer cannot grow our memory: what a peer can make us hold (a send queue it does not read,
// messages before the handshake, half-open inbound connections) and which SDPs the
// handshake binds. The real WebRtcLink and WebRtcTransport over a stand-in channel.
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { controlFrame, splitMessage } from './frames';
import { fromB64, HandshakeError, sdpFingerprint } from './link-handshake';
import { MAX_HELD_BYTES, WebRtcLink } from './webrtc-link';
import { NO_CANDIDATE, WebRtcTransport } from './webrtc-transport';

const rand = seededRandom(13);

function openLink(opts: { maxQueuedBytes?: number; stallMs?: number } = {}) {
  const clock = new VirtualClock();
  const peer = new FakeSimplePeer();
  let stalled = 0;
  const link = new WebRtcLink(peer.asPeer, randomId(rand), { clock, ...opts, onStalled: () => stalled++ });
  link.activate();
  clock.advanceSync(0);
  const closed: string[] = [];
  link.events.on('close', ({ reason }) => void closed.push(reason));
  return { clock, peer, link, closed, stalled: () => stalled };
}

const FP_A = 'sha-256 AA:BB:CC';
const FP_B = 'sha-256 11:22:33';
const sdp = (...fps: string[]) => ['v=0', 'o=- 1 2 IN IP4 127.0.0.1', ...fps.map((f) => `a=fingerprint:${f}`), 'm=application 9 UDP/DTLS/SCTP webrtc-datachannel', ''].join('\r\n');

describe('link send queue', () => {
  it('a peer that stops reading is disconnected once the queue passes its bound; memory stays under it, and a reading peer is served on', () => {
    const max = 256 * 1024;
    const slow = openLink({ maxQueuedBytes: max });
    const fast = openLink({ maxQueuedBytes: max });
    slow.peer.reading = false;
    const msg = new Uint8Array(1000);
    let peak = 0;
    let sent = 0;
    for (let i = 0; i < 10_000 && slow.link.open; i++) {
      slow.link.send(msg);
      fast.link.send(msg);
      sent++;
      if (slow.link.open) peak = Math.max(peak, slow.link.bufferedAmount);
    }
    expect(slow.link.open).toBe(false);
    expect(slow.closed).toEqual(['peer stopped reading (send queue full)']);
    expect(slow.stalled()).toBe(1);
    expect(peak).toBeLessThanOrEqual(max + slow.peer.highWater);
    expect(slow.link.bufferedAmount).toBe(0); // the queue is let go with the link
    expect(sent).toBeLessThan(400);
    // The other link took everything and is still open.
    expect(fast.link.open).toBe(true);
    expect(fast.peer.written).toBeGreaterThanOrEqual(sent * 1000);
    expect(() => slow.link.send(msg)).toThrow(/closed/);
  });

  it('a queue that waits for a drain longer than stallMs closes the link; a drain in time keeps it', () => {
    const a = openLink({ stallMs: 5000 });
    const b = openLink({ stallMs: 5000 });
    for (const x of [a, b]) {
      x.peer.reading = false;
      for (let i = 0; i < 100; i++) x.link.send(new Uint8Array(1000));
    }
    a.clock.advanceSync(4000);
    b.clock.advanceSync(4000);
    b.peer.drain();
    a.clock.advanceSync(1001);
    b.clock.advanceSync(1001);
    expect([a.link.open, a.closed, a.stalled()]).toEqual([false, ['peer stopped reading (no drain)'], 1]);
    expect([b.link.open, b.stalled()]).toEqual([true, 0]);
  });

  it('messages that arrive before our side of the handshake is done are held up to MAX_HELD_BYTES, then refused as bad frames', () => {
    const peer = new FakeSimplePeer();
    const link = new WebRtcLink(peer.asPeer, randomId(rand), { clock: new VirtualClock() });
    const big = new Uint8Array(200 * 1024);
    const held = Math.floor(MAX_HELD_BYTES / big.length);
    for (let i = 0; i < held + 3; i++) for (const f of splitMessage(big)) peer.deliver(f);
    expect(link.stats.badBy).toEqual({ 'too many messages before the handshake finished': 3 });
    expect(link.stats.messagesIn).toBe(held + 3);
  });
});

describe('half-open inbound connections', () => {
  async function transport(clock: VirtualClock) {
    const peers: FakeSimplePeer[] = [];
    const t = new WebRtcTransport({
      identity: await generateNodeIdentity({ bits: 0 }),
      clock,
      idWorkBits: 0, // the sources here are drawn ids (core/id-work.ts)
      maxPendingInbound: 4,
      maxPendingPerSource: 2,
      pendingInboundTimeoutMs: 3000,
      noCandidateMs: 60_000, // the slots here are freed by pendingInboundTimeoutMs, not by this
      createPeer: (o) => {
        const p = new FakeSimplePeer(o);
        peers.push(p);
        return p.asPeer;
      },
    });
    return { t, peers };
  }
  const offer = (cid: string, s = sdp(FP_A)) => ({ t: 'rtc', v: 1, cid, s: { type: 'offer', sdp: s } });
  const nowhere = { sendSignal: () => undefined };

  it('one source holds at most maxPendingPerSource slots; offers that never prove an id free theirs after pendingInboundTimeoutMs; others are served meanwhile', async () => {
    const clock = new VirtualClock();
    const { t, peers } = await transport(clock);
    const flooder = randomId(rand);
    for (let i = 0; i < 50; i++) t.handleSignal(flooder, offer(`aaaa${String(i).padStart(4, '0')}`), nowhere);
    expect(peers.length).toBe(2);
    expect(t.stats.badSignalsBy.slots).toBe(48);
    // Two honest dialers still find slots.
    t.handleSignal(randomId(rand), offer('bbbb0001'), nowhere);
    t.handleSignal(randomId(rand), offer('bbbb0002'), nowhere);
    expect(peers.length).toBe(4);
    // Full: a new source's offer evicts one of the half-open ones, chosen at random (the
    // flood cannot keep it out by holding the slots); the source at its share is still refused.
    t.handleSignal(randomId(rand), offer('cccc0001'), nowhere);
    expect(peers.length).toBe(5);
    expect(peers.filter((p) => p.destroyed).length).toBe(1);
    expect([t.stats.pendingEvicted, t.stats.inboundFailures]).toEqual([1, 1]);
    t.handleSignal(flooder, offer('aaaa9999'), nowhere);
    expect(t.stats.badSignalsBy.slots).toBe(48 + (peers.slice(0, 2).some((p) => p.destroyed) ? 0 : 1));
    clock.advanceSync(3001);
    expect(peers.every((p) => p.destroyed)).toBe(true);
    t.handleSignal(randomId(rand), offer('cccc0002'), nowhere);
    expect(peers.at(-1)!.destroyed).toBe(false);
    expect(t.stats.pendingEvicted).toBeLessThanOrEqual(2);
    t.close();
  });

  it('an SDP with no fingerprint or more than one is refused before a connection is made; so is a second SDP for the same connection', async () => {
    const clock = new VirtualClock();
    const { t, peers } = await transport(clock);
    const from = randomId(rand);
    t.handleSignal(from, offer('dddd0001', sdp(FP_A, FP_B)), nowhere);
    t.handleSignal(from, offer('dddd0002', sdp(FP_A, FP_A)), nowhere);
    t.handleSignal(from, offer('dddd0003', sdp()), nowhere);
    expect([peers.length, t.stats.badSignalsBy.fingerprint]).toEqual([0, 3]);
    t.handleSignal(from, offer('dddd0004'), nowhere);
    expect(peers[0]!.signals.map((s) => s.sdp)).toEqual([sdp(FP_A)]);
    // The same offer again (a duplicate delivery) is ignored; another one is renegotiation, refused.
    t.handleSignal(from, offer('dddd0004'), nowhere);
    t.handleSignal(from, offer('dddd0004', sdp(FP_B)), nowhere);
    expect(peers[0]!.signals.length).toBe(1);
    expect(t.stats.badSignalsBy.renegotiation).toBe(1);
    t.close();
  });

  it("a responder takes the initiator's trickled candidates (across two NATs its checks open the hole the initiator's come through); an answer to a responder is refused", async () => {
    const clock = new VirtualClock();
    const { t, peers } = await transport(clock);
    const from = randomId(rand);
    const candidate = { t: 'rtc', v: 1, cid: 'eeee0001', s: { type: 'candidate', candidate: { candidate: 'candidate:1 1 udp 1686052607 203.0.113.12 50633 typ srflx raddr 10.0.2.2 rport 50633', sdpMid: '0', sdpMLineIndex: 0 } } };
    t.handleSignal(from, offer('eeee0001'), nowhere);
    t.handleSignal(from, candidate, nowhere);
    // Held until our answer is made (the offer applied: node-datachannel refuses a remote
    // candidate before its ICE transport exists), then handed on.
    expect(peers[0]!.signals.map((s) => s.type)).toEqual(['offer']);
    peers[0]!.emit('signal', { type: 'answer', sdp: sdp(FP_B) });
    expect(peers[0]!.signals.map((s) => s.type)).toEqual(['offer', 'candidate']);
    const another = (port: number) => ({ ...candidate, s: { ...candidate.s, candidate: { ...candidate.s.candidate, candidate: candidate.s.candidate.candidate.replace('50633 typ', `${port} typ`) } } });
    t.handleSignal(from, another(50634), nowhere); // after the answer: at once
    expect(peers[0]!.signals.map((s) => s.type)).toEqual(['offer', 'candidate', 'candidate']);
    t.handleSignal(from, { t: 'rtc', v: 1, cid: 'eeee0001', s: { type: 'answer', sdp: sdp(FP_B) } }, nowhere);
    expect(peers[0]!.signals.length).toBe(3);
    expect(t.stats.badSignalsBy.direction).toBe(1);
    // Before an answer, at most MAX_HELD_CANDIDATES (32) are kept; more are counted and dropped.
    t.handleSignal(from, offer('eeee0002'), nowhere);
    for (let i = 0; i < 40; i++) t.handleSignal(from, { ...another(51000 + i), cid: 'eeee0002' }, nowhere);
    expect(t.stats.badSignalsBy.held).toBe(8);
    t.close();
  });
});

describe('a browser that gathers no ICE candidate', () => {
  it('fails its dial after noCandidateMs, not at the dial timeout; a dial that gathered one (trickled or in its SDP) waits on, and so does one without, once this browser has gathered', async () => {
    const clock = new VirtualClock();
    const peers: FakeSimplePeer[] = [];
    const transport = async () => new WebRtcTransport({
      identity: await generateNodeIdentity({ bits: 0 }), clock, dialTimeoutMs: 15_000, noCandidateMs: 2000, idWorkBits: 0,
      createPeer: (o) => {
        const p = new FakeSimplePeer(o);
        peers.push(p);
        return p.asPeer;
      },
    });
    const [blocked, t] = [await transport(), await transport()];
    const signals = { sendSignal: () => undefined };
    const outcome = (p: Promise<unknown>) => p.then(() => 'open', (e: Error) => e.message);
    const none = outcome(blocked.dial(randomId(rand), signals));
    const trickled = outcome(t.dial(randomId(rand), signals));
    const inSdp = outcome(t.dial(randomId(rand), signals));
    const late = outcome(t.dial(randomId(rand), signals));
    peers[1]!.emit('signal', { type: 'candidate', candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 5000 typ host', sdpMLineIndex: 0, sdpMid: '0' } });
    peers[2]!.emit('signal', { type: 'offer', sdp: `${sdp(FP_A)}a=candidate:1 1 udp 1 127.0.0.1 5000 typ host\r\n` });
    expect([blocked.gathered, t.gathered]).toEqual([false, true]);
    clock.advanceSync(1999);
    expect(peers.map((p) => p.destroyed)).toEqual([false, false, false, false]);
    clock.advanceSync(2);
    expect(await none).toBe(NO_CANDIDATE);
    expect(blocked.stats.noCandidate).toBe(1);
    // The fourth gathered nothing yet, but this browser gathers: it is late (a loaded machine), not blocked.
    expect(peers.map((p) => p.destroyed)).toEqual([true, false, false, false]);
    clock.advanceSync(13_000);
    expect([await trickled, await inSdp, await late]).toEqual(['dial timed out', 'dial timed out', 'dial timed out']);
    expect(t.stats.noCandidate).toBe(0);
    blocked.close();
    t.close();
  });
});

describe('a start-up probe that gathered no candidate (ice-probe.ts)', () => {
  it('fails dials at once (those begun before it answered too), without a peer connection, for iceProbeTrustMs; then dials wait noCandidateMs of their own again', async () => {
    const clock = new VirtualClock();
    let made = 0;
    const t = new WebRtcTransport({
      identity: await generateNodeIdentity({ bits: 0 }), clock, noCandidateMs: 2000, iceProbeTrustMs: 10_000, idWorkBits: 0, iceProbe: Promise.resolve('none'),
      createPeer: (o) => (made++, new FakeSimplePeer(o).asPeer),
    });
    const signals = { sendSignal: () => undefined };
    const outcome = (p: Promise<unknown>) => p.then(() => 'open', (e: Error) => e.message);
    const before = outcome(t.dial(randomId(rand), signals)); // begun before the probe answered
    await Promise.resolve();
    expect(await before).toBe(NO_CANDIDATE);
    expect(await outcome(t.dial(randomId(rand), signals))).toBe(NO_CANDIDATE);
    expect([made, t.stats.noCandidate, t.stats.dialFailures]).toEqual([1, 2, 2]);
    clock.advanceSync(10_001);
    const later = outcome(t.dial(randomId(rand), signals));
    expect(made).toBe(2); // a probe's answer is one moment's: a dial after the window tries for itself
    clock.advanceSync(2001);
    expect(await later).toBe(NO_CANDIDATE);
    expect(t.stats.noCandidate).toBe(3);
    const ok = new WebRtcTransport({ identity: await generateNodeIdentity({ bits: 0 }), clock, idWorkBits: 0, iceProbe: Promise.resolve('gathered'), createPeer: (o) => (made++, new FakeSimplePeer(o).asPeer) });
    await Promise.resolve();
    void t.dial(randomId(rand), signals).catch(() => {});
    void ok.dial(randomId(rand), signals).catch(() => {});
    expect(made).toBe(4);
    t.close();
    ok.close();
  });
});

describe('a start-up probe that has not answered (a blocked Chromium, or a loaded machine)', () => {
  it('after noCandidateMs fails dials as a probe\'s none does; its late candidate ends that at once, and the transport says it gathered', async () => {
    const clock = new VirtualClock();
    let made = 0;
    let answer!: (r: 'gathered') => void;
    const t = new WebRtcTransport({
      identity: await generateNodeIdentity({ bits: 0 }), clock, noCandidateMs: 2000, iceProbeTrustMs: 10_000, dialTimeoutMs: 15_000, idWorkBits: 0,
      iceProbe: new Promise((r) => { answer = r; }),
      createPeer: (o) => (made++, new FakeSimplePeer(o).asPeer),
    });
    let first = false;
    void t.firstCandidate.then(() => { first = true; });
    const signals = { sendSignal: () => undefined };
    const outcome = (p: Promise<unknown>) => p.then(() => 'open', (e: Error) => e.message);
    const begun = outcome(t.dial(randomId(rand), signals));
    clock.advanceSync(2000);
    expect(await begun).toBe(NO_CANDIDATE);
    expect(await outcome(t.dial(randomId(rand), signals))).toBe(NO_CANDIDATE);
    expect([made, t.gathered, t.gatheringEndedEmpty]).toEqual([1, false, false]);
    answer('gathered'); // 3 s after the start: late, but this browser gathers
    clock.advanceSync(1000);
    await new Promise((r) => setImmediate(r));
    expect([t.gathered, first]).toEqual([true, true]);
    const after = outcome(t.dial(randomId(rand), signals));
    expect(made).toBe(2); // well inside the 10 s a 'none' was trusted: the late candidate ended it
    clock.advanceSync(15_000);
    expect(await after).toBe('dial timed out'); // not failed for gathering nothing: it was only late
    t.close();
    // Relay-only: the probe's host candidates say nothing of TURN's, so a dial without one still fails at noCandidateMs.
    const relayOnly = new WebRtcTransport({ identity: await generateNodeIdentity({ bits: 0 }), clock, noCandidateMs: 2000, idWorkBits: 0, rtcConfig: { iceTransportPolicy: 'relay' }, iceProbe: Promise.resolve('gathered'), createPeer: (o) => new FakeSimplePeer(o).asPeer });
    await new Promise((r) => setImmediate(r));
    const relayDial = outcome(relayOnly.dial(randomId(rand), signals));
    clock.advanceSync(2001);
    expect([relayOnly.gathered, await relayDial]).toEqual([true, NO_CANDIDATE]);
    relayOnly.close();
  });
});

describe('handshake input', () => {
  it('sdpFingerprint binds exactly one a=fingerprint line', () => {
    expect(sdpFingerprint(sdp(FP_A))).toBe('sha-256 aa:bb:cc');
    expect(sdpFingerprint(sdp(FP_A, FP_B))).toBeUndefined();
    expect(sdpFingerprint(sdp(FP_A, FP_A))).toBeUndefined();
    expect(sdpFingerprint(sdp())).toBeUndefined();
    expect(sdpFingerprint(undefined)).toBeUndefined();
  });

  it('base64 that atob refuses is a HandshakeError, not a stray DOMException', () => {
    expect(() => fromB64('A')).toThrow(HandshakeError);
    expect(fromB64('AQI=')).toEqual(new Uint8Array([1, 2]));
  });

  it('control frames are parsed as JSON only; the rest counts as bad frames by reason', () => {
    const { peer, link } = openLink();
    peer.deliver(new Uint8Array([2, 0xff]));
    peer.deliver(controlFrame({ t: 'hello', v: 1, alg: 'Ed25519', pk: 'AA==', nonce: 'AA==' }));
    expect(link.stats.badBy).toEqual({ 'control frame is not JSON': 1, 'handshake message after handshake': 1 });
  });
});
