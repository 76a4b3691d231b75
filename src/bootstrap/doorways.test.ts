import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { idToHex, randomId, type NodeId } from '../core/node-id';
import type { Bootstrap, BootstrapEvents } from '../net/bootstrap';
import { DialError, type SignalBlob, type SignalChannel, type Transport } from '../net/transport';
import { Doorways, type DoorwaySpec } from './doorways';

/** A broker that knows some ids; signals to others come back 'undeliverable'. */
function broker(self: NodeId, knows: NodeId[]) {
  const sent: { to: string; blob: SignalBlob }[] = [];
  const events = new Emitter<BootstrapEvents>();
  const b: Bootstrap = {
    selfId: self, events,
    sendSignal: (to, blob) => {
      sent.push({ to: idToHex(to), blob });
      if (!knows.some((k) => idToHex(k) === idToHex(to))) queueMicrotask(() => events.emit('undeliverable', { to }));
    },
    randomPeers: async (n) => knows.slice(0, n),
    close: () => {},
  };
  return { b, sent, events };
}

const relay: DoorwaySpec = { kind: 'relay', url: 'ws://r/relay' };
const pj: DoorwaySpec = { kind: 'peerjs', url: 'http://p/' };
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('Doorways', () => {
  it('hands a signal to the next doorway when one does not know the peer, and answers the way a peer came', async () => {
    const self = randomId(), a = randomId(), b = randomId();
    const heard: { from: string; via: SignalChannel }[] = [];
    const doors = new Doorways([relay, pj], { handleSignal: (from, _blob, via) => heard.push({ from: idToHex(from), via }) }, () => 0);
    const r = broker(self, [a]), p = broker(self, [a, b]);
    doors.attach(relay, r.b);
    doors.attach(pj, p.b);
    doors.sendSignal(b, { n: 1 });
    await tick();
    expect(r.sent.map((s) => s.to)).toEqual([idToHex(b)]);
    expect(p.sent).toEqual([{ to: idToHex(b), blob: { n: 1 } }]); // handed over
    doors.sendSignal(b, { n: 2 });
    expect(p.sent).toHaveLength(2); // the relay is not asked again
    r.events.emit('signal', { from: a, blob: { hi: 1 } });
    expect(heard).toEqual([{ from: idToHex(a), via: doors }]);
    expect(await doors.randomPeers(8)).toHaveLength(2);
  });

  it('says a peer is gone only when every open doorway said so, and fails dials to it at once', async () => {
    const self = randomId(), gone = randomId();
    const doors = new Doorways([relay, pj], { handleSignal: () => {} }, () => 0);
    doors.attach(relay, broker(self, []).b);
    doors.attach(pj, broker(self, []).b);
    let dialed = 0;
    const slow: Transport = {
      selfId: self, events: new Emitter(), handleSignal: () => {}, close: () => {},
      dial: (id, signals) => { dialed++; signals.sendSignal(id, { offer: 1 }); return new Promise(() => {}); },
    };
    const saidGone: string[] = [];
    doors.events.on('undeliverable', ({ to }) => saidGone.push(idToHex(to)));
    const t = doors.failFast(slow);
    await expect(t.dial(gone, doors)).rejects.toBeInstanceOf(DialError);
    expect(saidGone).toEqual([idToHex(gone)]);
    expect(dialed).toBe(1);
    // A dial signaled over the overlay is not the doorways' to fail.
    const overlay: SignalChannel = { sendSignal: () => {} };
    const pending = Promise.race([t.dial(gone, overlay).then(() => 'done'), tick().then(() => 'waiting')]);
    expect(await pending).toBe('waiting');
  });
});
