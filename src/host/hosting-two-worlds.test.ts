// Two worlds whose peers meet, as tabs of two worlds at one relay did before the relay had
// rooms (or at a PeerJS broker, which has none): each newcomer of world B is handed a peer
// of world A as well as one of its own. Hosts name a region in frames by its coordinates
// alone and sign over a key that hashes the world in, so in one DHT each world took the
// other's claims for its own region 0,0, found every certificate of theirs badly signed,
// and sat in their host sets with grants that never verify (the lab: epochs 28-40 a minute).
// A world is its own network (net/network-id.ts): no link crosses, so neither can happen.
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import { STONE } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';

describe('two worlds whose peers meet', () => {
  it('never link, never sit in each other\'s host sets, and each hosts its own region 0,0 without a bad certificate', async () => {
    const sim = new HostSim({ seed: 21, world: 'alps' });
    const of = (world: string) => sim.live().filter((p) => p.world === world);
    const pickOf = (world: string): NodeId[] => {
      const ps = of(world);
      return ps.length ? [ps[Math.floor(sim.rand() * ps.length)]!.dht.selfId] : [];
    };
    for (let i = 0; i < 5; i++) await sim.add(undefined, { world: 'alps', boot: pickOf('alps') });
    // World B's first peer starts alone; each later newcomer is handed a peer of world A besides one of its own.
    await sim.add(undefined, { world: 'lab', boot: [] });
    for (let i = 0; i < 4; i++) await sim.add(undefined, { world: 'lab', boot: [...pickOf('alps'), ...pickOf('lab')] });

    const region = { rx: 0, rz: 0 };
    // An edit in each world's region 0,0, confirmed or not within the minute watched.
    const confirmed = ['alps', 'lab'].map(async (world, i) => {
      const p = of(world)[0]!;
      await p.client.subscribe(region);
      const stamp = await p.client.submit(6 + 2 * i, 71, 6, STONE, { x: 5 + 2 * i, y: 70, z: 5 });
      return stamp.e > 0;
    }).map((p) => p.catch(() => false));
    const stamps: (boolean | 'unsettled')[] = ['unsettled', 'unsettled'];
    confirmed.forEach((p, i) => void p.then((ok) => (stamps[i] = ok)));
    await sim.run(60_000);

    const worldOf = new Map(sim.live().map((p) => [p.hex, p.world]));
    const crossed = (p: SimPeer, ids: string[]) => ids.filter((h) => worldOf.has(h) && worldOf.get(h) !== p.world);
    const crossLinks = sim.live().flatMap((p) => crossed(p, p.dht.linkInfo().map((l) => l.hex)));
    const crossHosts = sim.live().flatMap((p) => p.host.knownRegions().flatMap((r) => crossed(p, r.hosts.map(idToHex))));
    const badCerts = sim.live().reduce((n, p) => n + p.host.stats.badCerts, 0);
    const epochs = ['alps', 'lab'].map((w) => Math.max(...of(w).flatMap((p) => p.host.knownRegions().map((r) => r.epoch))));
    console.log(`two worlds: edits confirmed ${stamps.join(' / ')}, links across ${crossLinks.length}, hosts across ${crossHosts.length}, bad certificates ${badCerts}, epochs of 0,0 after 60 s ${epochs.join(' / ')}, dials refused for another network ${sim.net.stats.otherNetwork}`);

    expect(stamps).toEqual([true, true]);
    expect(crossLinks).toEqual([]);
    expect(crossHosts).toEqual([]);
    expect(badCerts).toBe(0);
    for (const w of ['alps', 'lab']) expect(sim.primariesOf(region).filter((p) => p.world === w)).toHaveLength(1);
    // A quiet world claims its region once or twice, not again and again.
    expect(Math.max(...epochs)).toBeLessThanOrEqual(3);
    expect(sim.net.stats.otherNetwork).toBeGreaterThan(0);
    sim.stopAll();
  });
});
