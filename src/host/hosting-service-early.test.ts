import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter';
import { generateNodeIdentity } from '../core/identity';
import { randomId, type NodeId } from '../core/node-id';
import { webCryptoVerifier } from '../core/signer';
import { clockTicker } from '../core/ticker';
import { VirtualClock } from '../core/virtual-clock';
import { AppChannels } from '../dht/app-channels';
import type { DhtEvents } from '../dht/dht-node';
import type { StoredRegion } from '../store/host-store';
import { MemoryHostStore } from '../store/host-store-memory';
import { HostWires } from './host-wires';
import { MAX_EARLY_FRAMES, HostingService, type HostDht } from './hosting-service';

// Frames that reach a host before it has loaded its store (a tab that joined the DHT and is
// still opening IndexedDB) are held and answered once it has, not lost.
async function setup() {
  const clock = new VirtualClock();
  const hostId = randomId(), playerId = randomId();
  const hostEvents = new Emitter<DhtEvents>(), playerEvents = new Emitter<DhtEvents>();
  const hostDht = { selfId: hostId, events: hostEvents, send: (_to: NodeId, body: Uint8Array) => (playerEvents.emit('message', { from: hostId, body }), true), linkInfo: () => [] };
  const playerDht = { events: playerEvents, send: (_to: NodeId, body: Uint8Array) => (hostEvents.emit('message', { from: playerId, body }), true) };
  // The player's frames come before the host's wires exist: the channels hold them.
  const player = new HostWires(new AppChannels(playerDht), clock);
  const hostChannels = new AppChannels(hostDht);
  let release: (v: StoredRegion[]) => void = () => {};
  const store = new MemoryHostStore();
  store.loadAll = () => new Promise((resolve) => (release = resolve));
  const edit = (r: number) => player.players.send(hostId, { t: 'EDIT', rx: 9, rz: 9, r, x: 9 * 64, y: 70, z: 9 * 64, id: 1, px: 9 * 64, py: 70, pz: 9 * 64 + 2 });
  const rejects: number[] = [];
  player.players.events.on('frame', ({ msg }) => {
    if (msg.t === 'REJECT') rejects.push(msg.r);
  });
  const makeHost = async () => {
    const identity = await generateNodeIdentity({ bits: 0, alg: 'Ed25519' });
    const host = new HostingService({ dht: hostDht as unknown as HostDht, wires: new HostWires(hostChannels, clock), clock, ticker: clockTicker(clock), store, world: 'early', signer: identity, verify: webCryptoVerifier });
    return host;
  };
  return { clock, edit, rejects, makeHost, release: (v: StoredRegion[] = []) => release(v) };
}

describe('region host: frames before its store has loaded', () => {
  it('holds them and answers them, in order, once the store is loaded', async () => {
    const { edit, rejects, makeHost, release } = await setup();
    edit(1); // before the host's wires exist
    const host = await makeHost();
    const started = host.start();
    edit(2); // while the store loads
    await Promise.resolve();
    expect(rejects).toEqual([]);
    release();
    await started;
    // Not our region: each EDIT is answered 'not-primary' (and the player's client goes on looking).
    expect(rejects).toEqual([1, 2]);
    edit(3);
    expect(rejects).toEqual([1, 2, 3]);
    host.stop();
  });

  it('holds at most MAX_EARLY_FRAMES and counts the rest', async () => {
    const { edit, rejects, makeHost, release } = await setup();
    const host = await makeHost();
    const started = host.start();
    for (let r = 1; r <= MAX_EARLY_FRAMES + 10; r++) edit(r);
    release();
    await started;
    expect(rejects.length).toBe(MAX_EARLY_FRAMES);
    expect(host.stats.earlyDropped).toBe(10);
    host.stop();
  });
});
