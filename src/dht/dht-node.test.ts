// DhtNode as the composition of its parts: their lifecycle, and the Dht interface.
import { describe, expect, it } from 'vitest';
import { idToHex, randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { MemoryNetwork } from '../net/memory-network';
import type { Dht } from './dht';
import { createDhtNode, JoinError } from './dht-node';
import { SimCluster } from '../testing/sim-cluster';

function lone(bootstrap = false) {
  const clock = new VirtualClock();
  const rand = seededRandom(24);
  const net = new MemoryNetwork({ clock, seed: 1 });
  const id = randomId(rand);
  const node = createDhtNode({
    selfId: id,
    transport: net.addNode(id),
    clock,
    bootstrap: bootstrap ? { peers: [randomId(rand)], signals: net.relay(id) } : undefined,
    options: { random: rand, idWorkBits: 0 },
  });
  return { clock, node };
}

describe('DhtNode', () => {
  it('a lone node runs one timer per periodic part (failure checks, link budget, dormant probe, refresh, empty refresh, value sweep); stop() clears them all', async () => {
    const { clock, node } = lone();
    const ready: number[] = [];
    node.events.on('ready', ({ contacts }) => void ready.push(contacts));
    await node.start();
    expect([node.isRunning, ready]).toEqual([true, [0]]);
    expect(clock.pending).toBe(6);
    await clock.advance(3_600_000);
    expect(clock.pending).toBe(6);
    node.stop();
    expect([node.isRunning, clock.pending]).toEqual([false, 0]);
  });

  it('a join that reaches no one rejects with JoinError and leaves nothing running', async () => {
    const { clock, node } = lone(true);
    const p = node.start();
    p.catch(() => {});
    await clock.advance(20_000);
    await expect(p).rejects.toBeInstanceOf(JoinError);
    expect([node.isRunning, clock.pending]).toEqual([false, 0]);
  });

  it('a running node joins again through other peers: a failed join leaves it running, alone, and a later one links', async () => {
    const clock = new VirtualClock();
    const rand = seededRandom(25);
    const net = new MemoryNetwork({ clock, seed: 2 });
    const node = (id = randomId(rand)) => createDhtNode({ selfId: id, transport: net.addNode(id), clock, bootstrap: { peers: [], signals: net.relay(id) }, options: { random: rand, idWorkBits: 0 } });
    const [a, b] = [node(), node()];
    await a.start();
    await b.start();
    const joined = a.join([b.selfId]);
    await clock.advance(5_000);
    await expect(joined).resolves.toBeUndefined();
    expect(a.linkInfo().map((l) => l.hex)).toEqual([b.selfHex]);
    const c = node();
    await c.start();
    const gone = c.join([randomId(rand)]);
    gone.catch(() => {});
    await clock.advance(20_000);
    await expect(gone).rejects.toBeInstanceOf(JoinError);
    expect([c.isRunning, c.linkInfo().length]).toEqual([true, 0]);
    const again = c.join([a.selfId]);
    await clock.advance(5_000);
    await expect(again).resolves.toBeUndefined();
    expect(c.linkInfo().length).toBeGreaterThan(0);
    c.stop();
    await expect(c.join([a.selfId])).rejects.toThrow('not running');
    a.stop();
    b.stop();
  });

  it('serves the Dht interface: contacts without reaching into the table', async () => {
    const c = new SimCluster({ seed: 3 });
    await c.grow(12);
    const node = c.pick();
    const dht: Dht = node;
    const target = randomId(c.rand);
    expect(dht.closestContacts(target, 5).map(idToHex)).toEqual(node.table.closest(target, 5).map((x) => x.hex));
    expect(dht.contacts().length).toBe(node.table.size);
    const stranger = randomId(c.rand);
    dht.addContact(stranger);
    dht.addContact(dht.selfId);
    expect(dht.contacts().map(idToHex)).toContain(idToHex(stranger));
    expect(dht.contacts().map(idToHex)).not.toContain(dht.selfHex);
    c.stopAll();
  });
});
