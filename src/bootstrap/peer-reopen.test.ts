// A Peer re-opens its dropped relay (bootstrap/doorway-reopener.ts) and registers the tab's
// id there again, on the virtual clock with a fake doorway.
import { afterEach, describe, expect, it } from 'vitest';
import { generateNodeIdentity } from '../core/identity';
import type { NodeId } from '../core/node-id';
import { VirtualClock } from '../core/virtual-clock';
import type { DoorwayConnector, DoorwaySpec } from './doorways';
import { fakeDoorway, type FakeDoorway } from '../testing/fake-doorway';
import { Peer } from './peer';
import { UNNAMED_NETWORK } from '../net/network-id';

const relay: DoorwaySpec = { kind: 'relay', url: 'ws://127.0.0.1:1/relay' };

describe('Peer re-opens its relay after a drop', () => {
  const peers: Peer[] = [];
  afterEach(() => { for (const p of peers.splice(0)) p.stop(); });

  it('registers its own id at the relay again and is findable there', async () => {
    const clock = new VirtualClock();
    const identity = await generateNodeIdentity({ bits: 0 });
    const registered: { at: number; id: NodeId }[] = [];
    const conns: FakeDoorway[] = [];
    const connect: DoorwayConnector = async (_spec, selfId) => {
      registered.push({ at: clock.now(), id: selfId });
      const c = fakeDoorway(selfId);
      conns.push(c);
      return c;
    };
    const started = Peer.start({ identity, network: UNNAMED_NETWORK, records: {}, doorways: [relay], connect, clock, options: { joinDeadlineMs: 300 } });
    await clock.runUntil(() => false, 1000);
    const peer = await started;
    peers.push(peer);
    expect(peer.status).toBe('alone');
    expect(registered).toHaveLength(1);
    expect(peer.relayOnline).toBe(true);

    conns[0]!.drop(); // at once: the wait doubles to 2 s (x 0.75-1.25 jitter)
    expect(peer.relayOnline).toBe(false);
    await clock.advance(1400);
    expect(registered).toHaveLength(1);
    await clock.advance(1200);
    expect(registered).toHaveLength(2);
    expect(registered[1]!.id).toEqual(identity.id);
    expect(peer.relayOnline).toBe(true);
    expect(peer.relayReconnects).toBe(1);
    expect(conns[0]!.closed).toBe(false); // it dropped by itself; the new one took its slot
    peer.stop();
    expect(conns[1]!.closed).toBe(true);
  });
});
