// A peer's id must show work (core/id-work.ts) before a link to it exists: the handshake
// refuses a proven id showing too little, and the transport refuses to dial one, or to
// answer its offer, before any connection is made.
import { describe, expect, it } from 'vitest';
import { idWorkOk } from '../core/id-work';
import { generateNodeIdentity, type Identity } from '../core/identity';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { testNodeIdentity } from '../testing/node-identities';
import { oldKindIdentity } from '../testing/old-node-identity';
import { NO_ID_WORK, runHandshake } from './link-handshake';
import { DialError } from './transport';
import { WebRtcTransport } from './webrtc-transport';
import { handshakePipe } from '../testing/handshake-pipe';

const FPS = 'sha-256 aa:bb|sha-256 cc:dd';


/** A node key whose id (derived as a node's) shows too little work. */
async function idleIdentity(): Promise<Identity> {
  for (;;) {
    const id = await generateNodeIdentity({ bits: 0 });
    if (!idWorkOk(id.id)) return id;
  }
}

const sdp = 'v=0\r\na=fingerprint:sha-256 AA:BB\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n';
const offer = (cid: string) => ({ t: 'rtc', v: 1, cid, s: { type: 'offer', sdp } });

describe('the link handshake', () => {
  it('proves ids that show work; refuses a proven id that shows too little', async () => {
    const [us, them, idle] = [await testNodeIdentity(), await testNodeIdentity(), await idleIdentity()];
    let [a, b] = handshakePipe();
    await Promise.all([runHandshake(a, us, them.id, FPS), runHandshake(b, them, us.id, FPS)]);
    [a, b] = handshakePipe();
    void runHandshake(b, idle, us.id, FPS).catch(() => undefined); // left waiting for our AUTH
    await expect(runHandshake(a, us, idle.id, FPS)).rejects.toThrow(NO_ID_WORK);
    // Asking nothing (a simulation's drawn ids), the same key is proven.
    [a, b] = handshakePipe();
    await Promise.all([runHandshake(a, us, idle.id, FPS, 0), runHandshake(b, idle, us.id, FPS, 0)]);
  });
});

describe('a node id not derived through scrypt', () => {
  it('is refused at the handshake though it shows the work: its key is SHA-256 of the id, as node ids were', async () => {
    const [us, old] = [await testNodeIdentity(), await oldKindIdentity()];
    expect(idWorkOk(old.id)).toBe(true);
    const [a, b] = handshakePipe();
    void runHandshake(b, old, us.id, FPS).catch(() => undefined);
    await expect(runHandshake(a, us, old.id, FPS)).rejects.toThrow(/does not match the remote id/);
    // Asking no work changes nothing: the derivation is checked whatever the bits.
    const [c, d] = handshakePipe();
    void runHandshake(d, old, us.id, FPS, 0).catch(() => undefined);
    await expect(runHandshake(c, us, old.id, FPS, 0)).rejects.toThrow(/does not match the remote id/);
  });
});

describe('the WebRTC transport', () => {
  it('refuses to dial an id showing too little work, or to answer its offer, before making a connection', async () => {
    const peers: FakeSimplePeer[] = [];
    const t = new WebRtcTransport({
      identity: await testNodeIdentity(), clock: new VirtualClock(), noCandidateMs: 60_000,
      createPeer: (o) => {
        const p = new FakeSimplePeer(o);
        peers.push(p);
        return p.asPeer;
      },
    });
    const [idle, worked] = [await idleIdentity(), await testNodeIdentity()];
    const nowhere = { sendSignal: () => undefined };
    const dial = t.dial(idle.id, nowhere);
    await expect(dial).rejects.toBeInstanceOf(DialError);
    await expect(dial).rejects.toThrow(NO_ID_WORK);
    t.handleSignal(idle.id, offer('aaaa0001'), nowhere);
    expect([peers.length, t.stats.idWorkRefused, t.stats.dials, t.stats.inbound, t.stats.badSignals]).toEqual([0, 2, 0, 0, 0]);
    t.handleSignal(worked.id, offer('aaaa0002'), nowhere);
    expect([peers.length, t.stats.inbound]).toEqual([1, 1]);
    t.close();
  });
});
