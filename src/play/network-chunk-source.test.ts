import { describe, expect, it } from 'vitest';
import type { DhtNode } from '../dht/dht-node';
import type { ValueFilter } from '../dht/dht';
import type { Namespace } from '../dht/messages';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { BRICK, GLASS } from '../world/blocks';
import { localOf } from '../world/coords';
import { generateChunk } from '../world/terrain';
import { NetworkChunkSource, type BlockChange, type RemotePlayer } from './network-chunk-source';

function source(sim: HostSim, p: SimPeer, name: string): NetworkChunkSource {
  return new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: p.client, dht: p.dht, clock: sim.clock, options: { name }, signer: sim.keyring.signer(p.dht.selfId), verify: sim.keyring.verify });
}

describe('NetworkChunkSource (simulated)', () => {
  it('loads columns with the hosts\' edits, streams remote edits and players, reads far regions from the DHT', async () => {
    const sim = new HostSim({ seed: 21 });
    await sim.grow(10);
    const [pa, pb, pc] = sim.live();
    const a = source(sim, pa!, 'alice'), b = source(sim, pb!, 'bob'), c = source(sim, pc!, 'carol');
    const here = { x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 };
    a.setPosition(here);
    b.setPosition({ ...here, x: 7.5 });
    const seen: BlockChange[] = [];
    b.events.on('blocks', ({ changes }) => seen.push(...changes));
    let players: RemotePlayer[] = [];
    b.events.on('players', (e) => (players = e.players));

    await sim.settle(b.load(0, 0));
    const outcome = await sim.settle(a.submitEdit(6, 81, 7, BRICK));
    await sim.run(500);
    // The other player's change carries the stamp the editor's CONFIRM named (what the
    // edit_visible bench pairs them by).
    expect(outcome.confirmed).toBe(true);
    expect(outcome.stamp).toBeDefined();
    expect(seen).toContainEqual({ x: 6, y: 81, z: 7, id: BRICK, stamp: outcome.stamp });
    const col = await sim.settle(b.load(0, 0));
    expect(col.get(6, 81, 7)).toBe(BRICK);
    expect(b.liveRegions().length).toBeLessThanOrEqual(9);

    // Movement reaches the other player through the region's primary.
    for (let i = 0; i < 10; i++) {
      a.setPosition({ ...here, x: here.x + i * 0.1 });
      await sim.run(100);
    }
    const alice = players.find((p) => p.name === 'alice');
    // Positions travel quantised to 1/32 block (region/position-code.ts).
    expect(Math.abs(alice!.x - (here.x + 0.9))).toBeLessThanOrEqual(1 / 64);

    // A far region (not subscribed by b): its edits come from the DHT's stored log.
    const fx = 20 * 64 + 3, fz = -20 * 64 + 4;
    c.setPosition({ x: fx + 0.5, y: 90, z: fz + 0.5, yaw: 0, pitch: 0 });
    await sim.settle(c.commitEdit(fx, 91, fz, GLASS));
    await sim.run(4000); // the primary publishes the log (debounced)
    const far = await sim.settle(b.load(Math.floor(fx / 16), Math.floor(fz / 16)));
    expect(far.get(localOf(fx), 91, localOf(fz))).toBe(GLASS);
    expect(b.liveRegions().some((r) => r.rx === 20)).toBe(false);
    expect(generateChunk('seed-1', Math.floor(fx / 16), Math.floor(fz / 16)).get(localOf(fx), 91, localOf(fz))).not.toBe(GLASS);
    a.close(); b.close(); c.close();
    sim.stopAll();
  });

  it('a column whose snapshot comes while it is loaded from the stored log carries the snapshot\'s edits', async () => {
    const sim = new HostSim({ seed: 23 });
    await sim.grow(6);
    const [pa, pb] = sim.live();
    const a = source(sim, pa!, 'alice');
    // b gives up on the snapshot at once and reads the region's log from the DHT, which does
    // not have the edit yet (logs are published debounced): only the snapshot has it.
    // The DHT answers the log slowly (a lookup waiting on dead contacts after a restart).
    const get = pb!.dht.get.bind(pb!.dht);
    pb!.dht.get = (ns: Namespace, key: Uint8Array, accept?: ValueFilter) =>
      ns === 'edits' ? new Promise<Awaited<ReturnType<DhtNode['get']>>>((resolve, reject) => sim.clock.setTimeout(() => get(ns, key, accept).then(resolve, reject), 1000)) : get(ns, key, accept);
    const b = new NetworkChunkSource({ seed: 'seed-1', world: sim.world, client: pb!.client, dht: pb!.dht, clock: sim.clock, options: { name: 'bob', snapshotWaitMs: 0 } });
    a.setPosition({ x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 });
    await sim.settle(a.commitEdit(6, 81, 7, BRICK));
    const seen: BlockChange[] = [];
    b.events.on('blocks', ({ changes }) => seen.push(...changes));
    const col = await sim.settle(b.load(0, 0));
    expect(seen, 'the snapshot came while the column loaded').toContainEqual(expect.objectContaining({ x: 6, y: 81, z: 7, id: BRICK }));
    expect(col.get(6, 81, 7)).toBe(BRICK);
    a.close(); b.close();
    sim.stopAll();
  });

  it('draws another player\'s edit marked pending before it commits, in loaded columns too, and takes it back when it never commits', async () => {
    const sim = new HostSim({ seed: 23 });
    await sim.grow(10);
    const R = { rx: 0, rz: 0 };
    await sim.settle(sim.pick().client.subscribe(R));
    const primary = sim.primaryOf(R)!;
    const hosts = new Set([primary, ...sim.backupsOf(R)]);
    const [pa, pb] = sim.live().filter((p) => !hosts.has(p));
    const a = source(sim, pa!, 'alice'), b = source(sim, pb!, 'bob');
    const here = { x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 };
    a.setPosition(here);
    b.setPosition({ ...here, x: 7.5 });
    await sim.settle(Promise.all([a.load(0, 0), b.load(0, 0)]));
    const seen: BlockChange[] = [];
    b.events.on('blocks', ({ changes }) => seen.push(...changes));
    // The primary's REPLICATE never reaches a backup: the edit is ordered, never committed.
    const wire = primary.wire.replicas;
    const send = wire.send.bind(wire);
    wire.send = (to, msg) => (msg.t === 'REPLICATE' ? true : send(to, msg));
    void a.submitEdit(6, 81, 7, BRICK).catch(() => {});
    await sim.run(400);
    expect(seen).toContainEqual(expect.objectContaining({ x: 6, y: 81, z: 7, id: BRICK, pending: true }));
    expect((await sim.settle(b.load(0, 0))).get(6, 81, 7)).toBe(BRICK); // a column loaded now draws it too
    // The primary dies with it, and its editor (nobody re-sends it): b draws the terrain again.
    const terrain = generateChunk('seed-1', 0, 0).get(6, 81, 7);
    seen.length = 0;
    a.close();
    sim.kill(primary.hex);
    sim.kill(pa!.hex);
    await sim.run(6000);
    expect(seen).toContainEqual({ x: 6, y: 81, z: 7, id: terrain });
    expect((await sim.settle(b.load(0, 0))).get(6, 81, 7)).toBe(terrain);
    b.close();
    sim.stopAll();
  });
  it('a standing player sends MOVE only as a keep-alive (at most 2 a second), and a watcher still lists it after 10 s; its next step goes at once', async () => {
    const sim = new HostSim({ seed: 23 });
    await sim.grow(10);
    const R = { rx: 0, rz: 0 };
    await sim.settle(sim.pick().client.subscribe(R));
    const hosts = new Set([sim.primaryOf(R)!, ...sim.backupsOf(R)]);
    const [pa, pb] = sim.live().filter((p) => !hosts.has(p));
    const a = source(sim, pa!, 'alice'), b = source(sim, pb!, 'bob');
    let moves = 0;
    const move = pa!.client.move.bind(pa!.client);
    pa!.client.move = (p, look) => {
      const sent = move(p, look);
      if (sent) moves++;
      return sent;
    };
    let players: RemotePlayer[] = [];
    b.events.on('players', (e) => (players = e.players));
    const here = { x: 5.5, y: 80, z: 5.5, yaw: 0, pitch: 0 };
    b.setPosition({ ...here, x: 7.5 });
    a.setPosition(here);
    await sim.settle(Promise.all([a.load(0, 0), b.load(0, 0)]));
    // The page's frames: every 50 ms the same pose, for 10 s.
    const frames = async (ms: number, pose: typeof here) => {
      for (let t = 0; t < ms; t += 50) {
        a.setPosition(pose);
        await sim.run(50);
      }
    };
    await frames(1000, here);
    moves = 0;
    await frames(10_000, here);
    expect(moves).toBeGreaterThanOrEqual(5); // the keep-alive
    expect(moves).toBeLessThanOrEqual(20); // 200 at MOVE's rate
    expect(players.find((p) => p.name === 'alice')).toBeDefined();
    // One step, taken between two of MOVE's beats, then standing again: it reaches the watcher within a few ticks.
    await sim.run(10);
    a.setPosition({ ...here, x: 6.5 });
    await frames(300, { ...here, x: 6.5 });
    expect(Math.abs(players.find((p) => p.name === 'alice')!.x - 6.5)).toBeLessThanOrEqual(1 / 64);
    a.close(); b.close();
    sim.stopAll();
  });
});
