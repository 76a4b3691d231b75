// A doorway (broker connection) with no network behind it, for the tests of the doorway
// reopener (bootstrap/) and of the Peer that uses it (app/).
import { Emitter } from '../core/emitter';
import type { NodeId } from '../core/node-id';
import type { Bootstrap, BootstrapEvents } from '../net/bootstrap';

export type FakeDoorway = Bootstrap & { drop: () => void; readonly closed: boolean };

/** A fake broker connection registered as `selfId`; `drop()` ends it as a restarting relay would. */
export function fakeDoorway(selfId: NodeId): FakeDoorway {
  const events = new Emitter<BootstrapEvents>();
  let closed = false;
  const b: FakeDoorway = {
    selfId, events,
    sendSignal: () => {},
    randomPeers: async () => [],
    close: () => { closed = true; },
    drop: () => events.emit('close', { reason: 'relay restarted' }),
    get closed() { return closed; },
  };
  return b;
}
