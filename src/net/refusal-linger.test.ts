// A connection refused as of another network lingers after our refusal until the far end
// says 'bye' or closes it, or REFUSAL_LINGER_MS pass: destroyed at once, node-datachannel
// now and then dropped our HELLO and 'bye' with it, and the far end saw its connection fail
// without the refusal (webrtc-link.test 'peers of two worlds never link' in a fresh-clone
// CI). At most MAX_LINGERING linger at once. The real WebRtcTransport over stand-in channels.
import { describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { FakeSimplePeer } from '../testing/fake-simple-peer';
import { controlFrame } from './frames';
import { MAX_LINGERING, REFUSAL_LINGER_MS, WebRtcTransport } from './webrtc-transport';

const rand = seededRandom(29);
const OURS = 'a'.repeat(32);
const THEIRS = 'b'.repeat(32);
const sdp = (fp: string) => ['v=0', 'o=- 1 2 IN IP4 127.0.0.1', `a=fingerprint:${fp}`, 'm=application 9 UDP/DTLS/SCTP webrtc-datachannel', ''].join('\r\n');
const hello = (net: string) => controlFrame({ t: 'hello', v: 1, alg: 'Ed25519', pk: 'AAAA', nonce: 'AAAAAAAAAAAAAAAAAAAAAA==', net });
const bye = controlFrame({ t: 'bye', reason: 'another network' });
const settle = () => new Promise((r) => setTimeout(r, 0));

async function transport(clock: VirtualClock) {
  const peers: FakeSimplePeer[] = [];
  const t = new WebRtcTransport({
    identity: await generateNodeIdentity({ bits: 0 }), clock, idWorkBits: 0, network: OURS, noCandidateMs: 60_000,
    createPeer: (o) => {
      const p = new FakeSimplePeer(o);
      peers.push(p);
      return p.asPeer;
    },
  });
  /** An inbound connection from a peer of `net` that opens and sends its HELLO; its stand-in channel. */
  const refused = async (net = THEIRS) => {
    t.handleSignal(randomId(rand), { t: 'rtc', v: 1, cid: `cafe${String(peers.length).padStart(4, '0')}`, s: { type: 'offer', sdp: sdp('sha-256 AA:BB') } }, { sendSignal: () => undefined });
    const p = peers.at(-1)!;
    p.emit('signal', { type: 'answer', sdp: sdp('sha-256 11:22') });
    p.emit('connect');
    p.deliver(hello(net));
    await settle();
    return p;
  };
  return { t, peers, refused };
}

describe('a connection refused as of another network', () => {
  it('is kept after the refusal until the far end says bye, closes it, or REFUSAL_LINGER_MS pass', async () => {
    const clock = new VirtualClock();
    const { t, refused } = await transport(clock);
    const [byFar, byClose, byTime] = [await refused(), await refused(), await refused()];
    expect(t.stats.otherNetwork).toBe(3);
    expect(t.stats.inboundFailures).toBe(3);
    // Our HELLO and our 'bye' were written, and the connection is still up for them to arrive.
    for (const p of [byFar, byClose, byTime]) expect([p.written > 0, p.destroyed]).toEqual([true, false]);
    byFar.deliver(bye);
    expect(byFar.destroyed).toBe(true);
    byClose.emit('close');
    clock.advanceSync(REFUSAL_LINGER_MS - 1);
    expect(byTime.destroyed).toBe(false);
    clock.advanceSync(1);
    expect(byTime.destroyed).toBe(true);
    t.close();
  });

  it('at most MAX_LINGERING linger at once; closing the transport ends them', async () => {
    const clock = new VirtualClock();
    const { t, peers, refused } = await transport(clock);
    for (let i = 0; i <= MAX_LINGERING; i++) await refused();
    expect(peers.map((p) => p.destroyed)).toEqual([...Array<boolean>(MAX_LINGERING).fill(false), true]);
    t.close();
    expect(peers.every((p) => p.destroyed)).toBe(true);
  });

  it('a peer of our network that fails the handshake otherwise is not kept', async () => {
    const clock = new VirtualClock();
    const { t, refused } = await transport(clock);
    const p = await refused(OURS); // its key does not stand for the id it dialled from
    expect(t.stats.handshakeFailures).toBe(1);
    expect(t.stats.otherNetwork).toBe(0);
    expect(p.destroyed).toBe(true);
    t.close();
  });
});
