// Overlay signaling alone: where offers and answers go.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import type { SignalBlob, SignalChannel } from '../net/transport';
import type { DhtMessage } from './messages';
import { OverlaySignaling } from './overlay-signaling';

function setup(withRelay = true) {
  const rand = seededRandom(18);
  const sent: { to: string; msg: DhtMessage; via: readonly NodeId[] }[] = [];
  const fed: { from: string; blob: SignalBlob; reply: SignalChannel }[] = [];
  const relay: SignalChannel = { sendSignal: () => {} };
  let links = 0;
  const sig = new OverlaySignaling({
    transport: { handleSignal: (from, blob, reply) => void fed.push({ from: idToHex(from), blob, reply }) },
    send: (_id, hex, msg, via = []) => (sent.push({ to: hex, msg, via }), true),
    linkCount: () => links,
    relay: withRelay ? relay : undefined,
  });
  return { rand, sent, fed, relay, sig, setLinks: (n: number) => (links = n) };
}

describe('OverlaySignaling', () => {
  it('sends a dial\'s signals as routed SIGNAL messages', () => {
    const s = setup();
    const to = randomId(s.rand);
    s.sig.channel.sendSignal(to, { type: 'offer', sdp: 'x' });
    expect(s.sent).toEqual([{ to: idToHex(to), msg: { t: 'SIGNAL', blob: { type: 'offer', sdp: 'x' } }, via: [] }]);
  });

  it('feeds a SIGNAL to the transport; the answer to its sender goes back along its reverse path', () => {
    const s = setup();
    s.sig.start();
    const [from, hop, other] = [randomId(s.rand), randomId(s.rand), randomId(s.rand)];
    s.sig.received({ type: 'offer' }, { id: from, hex: idToHex(from), via: [hop] });
    expect(s.fed.map((f) => [f.from, f.blob])).toEqual([[idToHex(from), { type: 'offer' }]]);
    s.fed[0]!.reply.sendSignal(from, { type: 'answer' });
    s.fed[0]!.reply.sendSignal(other, { type: 'candidate' });
    expect(s.sent.map((x) => [x.to, x.via])).toEqual([
      [idToHex(from), [hop]],
      [idToHex(other), []],
    ]);
  });

  it('dials through the relay only while it holds no link', () => {
    const s = setup();
    expect(s.sig.forDial()).toBe(s.relay);
    s.setLinks(1);
    expect(s.sig.forDial()).toBe(s.sig.channel);
    s.setLinks(0);
    expect(setup(false).sig.forDial()).not.toBe(s.relay);
  });

  it('ignores signals until started and once stopped', () => {
    const s = setup();
    const from = randomId(s.rand);
    s.sig.received({ type: 'offer' }, { id: from, hex: idToHex(from), via: [] });
    s.sig.start();
    s.sig.stop();
    s.sig.received({ type: 'offer' }, { id: from, hex: idToHex(from), via: [] });
    expect(s.fed).toEqual([]);
  });
});
