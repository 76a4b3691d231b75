// Why a join ended alone, told apart by Peer.start with fake doorways (no WebRTC reached):
// an unreachable doorway, nobody else here, the invite's peers gone, and peers listed but
// no link by the join deadline (no direct path; TURN failed; no answer to any offer), or no ICE candidate (WebRTC blocked), each well inside the 5 s a player waits.
import { afterEach, describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { generateNodeIdentity } from '../core/identity';
import type { NodeId } from '../core/node-id';
import { BootstrapError, type Bootstrap, type BootstrapEvents } from '../net/bootstrap';
import type { DoorwayConnector } from './doorways';
import { Peer, type PeerConfig } from './peer';
import { testNodeIdentity } from '../testing/node-identities';
import { UNNAMED_NETWORK } from '../net/network-id';
import { nodeDatachannelIceServers } from './headless-ice';
import { FakeSimplePeer } from '../testing/fake-simple-peer';

const relay = { kind: 'relay', url: 'ws://127.0.0.1:1/relay' } as const;
/** Another peer's id: one that shows work (core/id-work.ts), or the dial would be refused before it starts. */
const peerId = async () => (await testNodeIdentity()).id;
const peers: Peer[] = [];
afterEach(() => { for (const p of peers.splice(0)) p.stop(); });

/** A doorway that lists `listed` and knows only `knows` (signals to others: 'undeliverable'). */
const doorway = (listed: NodeId[], knows: NodeId[] = listed): DoorwayConnector => async (_spec, selfId) => {
  const events = new Emitter<BootstrapEvents>();
  const b: Bootstrap = {
    selfId, events,
    sendSignal: (to) => { if (!knows.includes(to)) queueMicrotask(() => events.emit('undeliverable', { to })); },
    randomPeers: async (n) => listed.slice(0, n),
    close: () => {},
  };
  return b;
};

async function start(connect: DoorwayConnector, invitePeers: NodeId[] = [], more: Partial<Omit<PeerConfig, 'network'>> = {}) {
  const t0 = performance.now();
  const peer = await Peer.start({ identity: await generateNodeIdentity({ bits: 0 }), network: UNNAMED_NETWORK, records: {}, doorways: [relay], invitePeers, connect, options: { joinDeadlineMs: 300 }, ...more });
  peers.push(peer);
  return { peer, ms: performance.now() - t0 };
}

describe('Peer.start says why it is alone', () => {
  it('a doorway that cannot be reached', async () => {
    const { peer, ms } = await start(async () => { throw new BootstrapError('cannot reach the relay at ws://127.0.0.1:1/relay'); });
    expect(peer.status).toBe('alone');
    expect(peer.failure).toEqual({ kind: 'doorway-unreachable', detail: 'cannot reach the relay at ws://127.0.0.1:1/relay' });
    expect(ms).toBeLessThan(1000);
  });

  it('nobody else in the world', async () => {
    const { peer } = await start(doorway([]));
    expect(peer.failure?.kind).toBe('nobody-here');
  });

  it("the invite's peers gone, and nobody else", async () => {
    const { peer, ms } = await start(doorway([]), [await peerId(), await peerId()]);
    expect(peer.failure?.kind).toBe('inviter-gone');
    expect(ms).toBeLessThan(1000); // told by the doorway, not by a dial timeout
  });

  it('peers listed that left before they were dialed: nobody here, told at once', async () => {
    const { peer, ms } = await start(doorway([await peerId()], []));
    expect(peer.failure?.kind).toBe('nobody-here');
    expect(ms).toBeLessThan(1000);
  });

  it('peers listed but no link by the deadline, no TURN set: no direct path', async () => {
    const other = await peerId();
    const { peer, ms } = await start(doorway([other]));
    expect(peer.failure?.kind).toBe('no-direct-path');
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2000);
  });

  it('the same with a TURN server set: TURN did not carry it either', async () => {
    const other = await peerId();
    const { peer } = await start(doorway([other]), [], { iceServers: [{ urls: 'turn:127.0.0.1:1', username: 'u', credential: 'c' }] });
    expect(peer.failure?.kind).toBe('turn-failed');
  });

  it('a TURN refusal of our credentials that comes after "TURN failed" was said: said again as refused', async () => {
    const other = await peerId();
    const made: FakeSimplePeer[] = [];
    const { peer } = await start(doorway([other]), [], {
      iceServers: [{ urls: 'turn:127.0.0.1:1', username: 'u', credential: 'c' }],
      createPeer: (o) => { const p = new FakeSimplePeer(o); made.push(p); return p.asPeer; },
    });
    expect(peer.failure?.kind).toBe('turn-failed');
    const said: string[] = [];
    peer.onFailure((f) => said.push(f.kind));
    made[0]!._pc.dispatchEvent(Object.assign(new Event('icecandidateerror'), { errorCode: 701, url: 'turn:127.0.0.1:1' }));
    expect(said).toEqual([]);
    made[0]!._pc.dispatchEvent(Object.assign(new Event('icecandidateerror'), { errorCode: 401, url: 'turn:127.0.0.1:1', errorText: 'Unauthorized' }));
    expect(said).toEqual(['turn-refused']);
    expect(peer.failure?.detail).toMatch(/^turn:127\.0\.0\.1:1 refused the credentials \(401 Unauthorized\)/);
    made[0]!._pc.dispatchEvent(Object.assign(new Event('icecandidateerror'), { errorCode: 401, url: 'turn:127.0.0.1:1' }));
    expect(said).toEqual(['turn-refused']); // said once
  });

  it('peers listed and dialled, and none answers (their relay sockets deaf a moment): no answer, not "TURN failed", told by the deadline', async () => {
    const other = await peerId();
    const offers: string[] = [];
    const recording: DoorwayConnector = async (spec, selfId) => {
      const b = await doorway([other])(spec, selfId);
      return { ...b, sendSignal: (_to, blob) => void offers.push(String((blob as { s?: { type?: string } }).s?.type)) };
    };
    const { peer, ms } = await start(recording, [], {
      iceServers: [{ urls: 'turn:127.0.0.1:1', username: 'u', credential: 'c' }], iceServersForRtc: nodeDatachannelIceServers,
      rtcConfig: { bindAddress: '127.0.0.1' }, options: { joinDeadlineMs: 2500 },
    });
    expect(peer.failure?.kind, peer.failure?.detail).toBe('no-answer');
    expect(peer.failure?.detail).toMatch(/1 offers unanswered/);
    expect(offers[0]).toBe('offer');
    expect(ms).toBeLessThan(4000);
  });

  it('relay-only asked for with no TURN server: said as such, not as WebRTC blocked', async () => {
    const other = await peerId();
    const { peer } = await start(doorway([other]), [], { rtcConfig: { iceTransportPolicy: 'relay' }, iceProbe: Promise.resolve('none') });
    expect(peer.failure?.kind).toBe('relay-needs-turn');
  });

  it('peers listed, and this browser gathers no ICE candidate: WebRTC blocked, told at once', async () => {
    const other = await peerId();
    // A deadline far off, so "at once" is told apart from the deadline's verdict with room for a
    // loaded machine's timers (against a 300 ms deadline, 290 ms was the margin).
    const { peer, ms } = await start(doorway([other]), [], { iceProbe: Promise.resolve('none'), options: { joinDeadlineMs: 5000 } });
    expect(peer.failure?.kind).toBe('webrtc-blocked');
    expect(ms).toBeLessThan(2500);
  });

  it('gathering unfinished and no candidate yet (blocked, or a loaded machine): WebRTC blocked only after blockedVerdictMs', async () => {
    const other = await peerId();
    const { peer, ms } = await start(doorway([other]), [], { iceProbe: Promise.resolve('silent'), options: { joinDeadlineMs: 300, blockedVerdictMs: 600 } });
    expect(peer.failure?.kind).toBe('webrtc-blocked');
    expect(ms).toBeGreaterThanOrEqual(590);
    expect(ms).toBeLessThan(1500);
  });
});
