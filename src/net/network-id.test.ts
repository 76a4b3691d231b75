// A world is its own network: its peers link only to each other. The handshake refuses a
// peer of another network (or of none, a client from before networks were named) on both
// ends, and the in-memory network the simulations run on refuses such a dial as well.
import { describe, expect, it } from 'vitest';
import { randomId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { VirtualClock } from '../core/virtual-clock';
import { testNodeIdentity } from '../testing/node-identities';
import { runHandshake } from './link-handshake';
import type { Link } from './link';
import { MemoryNetwork } from './memory-network';
import { networkId } from './network-id';
import { handshakePipe } from '../testing/handshake-pipe';

const FPS = 'sha-256 aa:bb|sha-256 cc:dd';
// Written out, not computed, so the tests say the same on code that has no network ids.
const WORLD_A = 'a'.repeat(32);
const WORLD_B = 'b'.repeat(32);


describe('network ids', () => {
  it('one per world and seed: 32 hex digits, another for another world or another seed', () => {
    const alps = networkId('alps', 'alps');
    expect(alps).toMatch(/^[0-9a-f]{32}$/);
    expect(networkId('alps', 'alps')).toBe(alps);
    expect(networkId('alpine', 'alps')).not.toBe(alps);
    expect(networkId('alps', 'other seed')).not.toBe(alps);
    // The lab's two names that shared a relay and churned.
    expect(networkId('lab-world', 'lab-world')).not.toBe(networkId('lab-world-link', 'lab-world-link'));
  });
});

describe('the link handshake names the network', () => {
  it('links two peers of one network; refuses a peer of another, on both ends', async () => {
    const [us, them] = [await testNodeIdentity(), await testNodeIdentity()];
    let [a, b] = handshakePipe();
    await Promise.all([runHandshake(a, us, them.id, FPS, 0, WORLD_A), runHandshake(b, them, us.id, FPS, 0, WORLD_A)]);
    [a, b] = handshakePipe();
    const ours = runHandshake(a, us, them.id, FPS, 0, WORLD_A);
    const theirs = runHandshake(b, them, us.id, FPS, 0, WORLD_B);
    await expect(ours).rejects.toThrow('another network');
    await expect(theirs).rejects.toThrow('another network');
  });

  it('a peer that names no network (a client from before networks had names) is refused by one that does', async () => {
    const [us, old] = [await testNodeIdentity(), await testNodeIdentity()];
    const [a, b] = handshakePipe();
    void runHandshake(b, old, us.id, FPS, 0).catch(() => undefined); // left waiting for our AUTH
    await expect(runHandshake(a, us, old.id, FPS, 0, WORLD_A)).rejects.toThrow('another network');
  });
});

describe('two worlds on one in-memory network', () => {
  it('no link crosses (refused and counted at both ends); within each world links form', async () => {
    const clock = new VirtualClock();
    const net = new MemoryNetwork({ clock, seed: 3 });
    const r = seededRandom(11);
    const [a1, a2] = [net.addNode(randomId(r), { network: WORLD_A }), net.addNode(randomId(r), { network: WORLD_A })];
    const [b1, b2] = [net.addNode(randomId(r), { network: WORLD_B }), net.addNode(randomId(r), { network: WORLD_B })];
    const inbound: Link[] = [];
    for (const t of [a1, a2, b1, b2]) t.events.on('link', (l) => inbound.push(l));
    const outcome = (p: Promise<Link>) => p.then(() => 'linked', (e: Error) => e.message);
    const dials = [
      outcome(a1.dial(a2.selfId, net.relay(a1.selfId))),
      outcome(b1.dial(b2.selfId, net.relay(b1.selfId))),
      outcome(a1.dial(b1.selfId, net.relay(a1.selfId))),
      outcome(b2.dial(a2.selfId, net.relay(b2.selfId))),
    ];
    await clock.advance(1000);
    const got = await Promise.all(dials);
    expect(got.slice(0, 2)).toEqual(['linked', 'linked']);
    expect(got.slice(2)).toEqual(['handshake failed: the remote peer is of another network', 'handshake failed: the remote peer is of another network']);
    expect(inbound).toHaveLength(2);
    expect([a1.otherNetwork, a2.otherNetwork, b1.otherNetwork, b2.otherNetwork]).toEqual([1, 1, 1, 1]);
    expect(net.stats.otherNetwork).toBe(2);
    expect([a1, a2, b1, b2].map((t) => t.openLinks().length)).toEqual([1, 1, 1, 1]);
  });
});
