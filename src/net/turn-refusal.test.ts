// A TURN server's refusal of our credentials (wrong or expired), told apart from its other
// errors, and kept by the transport until its servers are set anew (the relay's renewal).
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { turnRefusal } from './turn-refusal';
import { WebRtcTransport } from './webrtc-transport';

const URL_UDP = 'turn:203.0.113.1:3478?transport=udp';
const iceError = (errorCode: number, url: string, errorText = '') => Object.assign(new Event('icecandidateerror'), { errorCode, url, errorText });

describe('a TURN refusal of the credentials', () => {
  it('is a 401 or 441 from a turn: or turns: URL; a server that never answered, its own limits, or a STUN URL are not', () => {
    expect(turnRefusal({ errorCode: 401, url: URL_UDP, errorText: 'Unauthorized' })).toBe(`${URL_UDP} refused the credentials (401 Unauthorized)`);
    expect(turnRefusal({ errorCode: 441, url: 'turns:t.example.org:5349?transport=tcp' })).toBe('turns:t.example.org:5349?transport=tcp refused the credentials (441)');
    for (const code of [701, 403, 486, 508, 400]) expect(turnRefusal({ errorCode: code, url: URL_UDP })).toBeUndefined();
    expect(turnRefusal({ errorCode: 401, url: 'stun:203.0.113.1:3478' })).toBeUndefined();
    expect(turnRefusal({ errorCode: '401', url: URL_UDP })).toBeUndefined();
    expect(turnRefusal({})).toBeUndefined();
  });

  it("cuts the server's reason phrase short: any server may send it", () => {
    expect(turnRefusal({ errorCode: 401, url: URL_UDP, errorText: 'x'.repeat(10_000) })!.length).toBeLessThan(400);
  });

  it("is kept by the transport from its connections' events, counted, and forgotten when its servers are set anew", async () => {
    const peers: FakeSimplePeer[] = [];
    const t = new WebRtcTransport({
      identity: await generateNodeIdentity({ bits: 0 }), clock: new VirtualClock(), idWorkBits: 0, iceProbe: Promise.resolve('gathered'),
      iceServers: [{ urls: URL_UDP, username: '1:old', credential: 'x' }],
      createPeer: (o) => { const p = new FakeSimplePeer(o); peers.push(p); return p.asPeer; },
    });
    await Promise.resolve();
    const rand = seededRandom(3);
    const signals = { sendSignal: () => undefined };
    void t.dial(randomId(rand), signals).catch(() => {});
    peers[0]!._pc.dispatchEvent(iceError(701, URL_UDP, 'TURN host lookup received error.'));
    expect([t.turnRefusal, t.stats.turnRefused]).toEqual([undefined, 0]);
    peers[0]!._pc.dispatchEvent(iceError(401, URL_UDP, 'Unauthorized'));
    expect([t.turnRefusal, t.stats.turnRefused]).toEqual([`${URL_UDP} refused the credentials (401 Unauthorized)`, 1]);
    // Fresh credentials: the old refusal is no longer true of them, nor is a late one made with the old.
    t.setIceServers([{ urls: URL_UDP, username: '2:new', credential: 'y' }]);
    peers[0]!._pc.dispatchEvent(iceError(401, URL_UDP, 'Unauthorized'));
    expect([t.turnRefusal, t.stats.turnRefused]).toEqual([undefined, 2]);
    void t.dial(randomId(rand), signals).catch(() => {});
    peers[1]!._pc.dispatchEvent(iceError(401, URL_UDP));
    expect(t.turnRefusal).toBe(`${URL_UDP} refused the credentials (401)`);
    t.close();
  });
});
