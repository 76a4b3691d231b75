// MOVE's rate end to end (region/move-rate.ts): a player walking continuously, its page's
// frames handing the chunk source its position, is shown to a watcher at MOVE's rate; and a
// primary takes a node's MOVEs only within its budget (move-budget.ts), so a flood is
// dropped and counted while an honest pace never is.
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import { NetworkChunkSource } from '../play/network-chunk-source';
import { MOVE_HZ, MOVE_LIMIT } from '../region/move-rate';
import { REGION_BLOCKS } from '../region/region-key';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { MoveBudget } from './move-budget';

const R = { rx: 0, rz: 0 };
/** A walk: 4.3 blocks a second. */
const SPEED = 4.3;

/** New positions of `of` that `watcher`'s client is told of, as they come. */
function newPositions(watcher: SimPeer, of: SimPeer): { count: number } {
  const seen = { count: 0 };
  let last = '';
  watcher.client.events.on('players', ({ players }) => {
    for (const p of players) {
      if (idToHex(p.id) !== of.hex) continue;
      const k = `${p.x},${p.z}`;
      if (k !== last) seen.count++;
      last = k;
    }
  });
  return seen;
}

describe("a player's positions at MOVE's rate (simulated)", () => {
  it(`a player walking on every page frame reaches a watcher at ${MOVE_HZ} Hz, none of its MOVEs throttled`, async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(6);
    const [walker, watcher] = sim.live();
    await sim.settle(Promise.all([walker!.client.subscribe(R), watcher!.client.subscribe(R)]));
    const source = new NetworkChunkSource({ seed: 'sim', world: sim.world, client: walker!.client, dht: walker!.dht, clock: sim.clock });
    const x0 = R.rx * REGION_BLOCKS + 10, z = R.rz * REGION_BLOCKS + 20;
    const pose = (t: number) => ({ x: x0 + (SPEED * t) / 1000, y: 100, z, yaw: 0, pitch: 0 });
    // Frames of a drawing page (60 a second), the position moved on each.
    let t = 0;
    const walk = async (ms: number) => {
      for (const end = t + ms; t < end; t += 1000 / 60) {
        source.setPosition(pose(t));
        await sim.run(1000 / 60);
      }
    };
    await walk(2000);
    const seen = newPositions(watcher!, walker!);
    const seconds = 5;
    await walk(seconds * 1000);
    const hz = seen.count / seconds;
    expect(hz).toBeGreaterThanOrEqual(MOVE_HZ * 0.9);
    expect(hz).toBeLessThanOrEqual(MOVE_HZ * 1.05);
    expect(sim.primaryOf(R)!.host.stats.movesThrottled).toBe(0);
    source.close();
    sim.stopAll();
  });

  it('MOVEs past a node\'s budget are dropped and counted; its MOVEs within it still move it', async () => {
    const sim = new HostSim({ seed: 6 });
    await sim.grow(6);
    const [flooder, watcher] = sim.live();
    await sim.settle(Promise.all([flooder!.client.subscribe(R), watcher!.client.subscribe(R)]));
    const seen = newPositions(watcher!, flooder!);
    const x0 = R.rx * REGION_BLOCKS + 10, z = R.rz * REGION_BLOCKS + 20;
    // 200 MOVEs a second for 2 s, past any pace (the client's own pace bypassed), each a new position.
    let x = x0;
    for (let i = 0; i < 400; i++) {
      flooder!.client.move({ x: (x += 0.02), y: 100, z, yaw: 0, pitch: 0 });
      await sim.run(5);
    }
    await sim.run(500);
    const throttled = sim.primaryOf(R)!.host.stats.movesThrottled;
    // Taken: the burst and MOVE_LIMIT.perSec over 2 s; the rest dropped.
    expect(throttled).toBeGreaterThanOrEqual(400 - MOVE_LIMIT.burst - 2 * MOVE_LIMIT.perSec - 5);
    expect(throttled).toBeLessThanOrEqual(400 - 2 * MOVE_LIMIT.perSec);
    // The watcher still saw it move, at no more than the host's tick (20 a second).
    expect(seen.count).toBeGreaterThan(10);
    expect(seen.count).toBeLessThanOrEqual(2.5 * 20);
    sim.stopAll();
  });
});

describe('MoveBudget', () => {
  it('takes MOVE_LIMIT per node: the burst at once, then perSec; nodes apart', () => {
    const b = new MoveBudget({ perSec: 40, burst: 40 });
    let taken = 0;
    for (let i = 0; i < 100; i++) if (b.take('a', 0)) taken++;
    expect(taken).toBe(40);
    expect(b.take('b', 0)).toBe(true);
    // An honest pace (20 a second) after the burst is spent: every one taken.
    for (let t = 50; t <= 5000; t += 50) expect(b.take('a', t)).toBe(true);
  });
});
