import { idToHex } from '../core/node-id';
import { describe, expect, it } from 'vitest';
import { AIR, STONE } from '../world/blocks';
import { HostSim } from '../testing/host-sim';

describe('region hosting (simulated)', () => {
  it('locates, claims, confirms edits and streams them to subscribers', async () => {
    const sim = new HostSim({ seed: 3 });
    await sim.grow(12);
    const [a, b] = [sim.pick(), sim.pick()];
    const region = { rx: 0, rz: 0 };
    await sim.settle(Promise.all([a.client.subscribe(region), b.client.subscribe(region)]));
    const at = { x: 5, y: 70, z: 5 };
    const t0 = sim.clock.now();
    const stamp = await sim.settle(a.client.submit(6, 71, 6, STONE, at));
    const latency = sim.clock.now() - t0;
    expect(stamp.e).toBeGreaterThan(0);
    await sim.run(500);
    const fa = a.client.state(region)!.fingerprint();
    expect(fa).not.toBe('');
    expect(b.client.state(region)!.fingerprint()).toBe(fa);
    const primaries = sim.primariesOf('0,0');
    expect(primaries).toHaveLength(1);
    const backups = sim.live().filter((p) => p.host.roles().backup.includes('0,0'));
    expect(backups).toHaveLength(2);
    expect(sim.doublePrimaries()).toEqual([]);
    console.log('confirm latency', latency, 'ms');

    // What a player's client measures: snapshot latency, positions of others, failovers.
    const snap = b.client.snapshotLatency();
    expect(snap.samples).toBeGreaterThanOrEqual(1);
    expect(snap.p50).toBeGreaterThan(0);
    const pos = { x: 6.5, y: 70, z: 6.5, yaw: 0, pitch: 0 };
    for (let i = 0; i < 20; i++) {
      a.client.move({ ...pos, x: pos.x + i * 0.1 });
      await sim.run(100);
    }
    expect(b.client.stats.playerUpdates).toBeGreaterThanOrEqual(10);
    expect(a.client.stats.playerUpdates).toBe(0); // its own position is not another player's
    const victim = primaries[0]!;
    const watcher = [a, b].find((p) => p !== victim)!;
    sim.kill(victim.hex);
    await sim.run(8000);
    expect(watcher.client.stats.failovers).toBe(1);
    sim.stopAll();
  });

  it('a player who walks into the next region is listed there, and no more in the one it left', async () => {
    const sim = new HostSim({ seed: 6 });
    await sim.grow(8);
    const [a, b] = [sim.pick(), sim.pick()];
    const left = { rx: 0, rz: 0 }, right = { rx: 1, rz: 0 };
    await sim.settle(Promise.all([left, right].flatMap((r) => [a.client.subscribe(r), b.client.subscribe(r)])));
    const lists = new Map<string, string[]>();
    b.client.events.on('players', ({ region, players }) => lists.set(`${region.rx},${region.rz}`, players.map((p) => idToHex(p.id))));
    // a walks east along z = 10 from x = 60 (region 0,0) to x = 68 (region 1,0), 1 block per 100 ms.
    for (let x = 60; x <= 68; x++) {
      a.client.move({ x: x + 0.5, y: 70, z: 10.5, yaw: 0, pitch: 0 });
      await sim.run(100);
    }
    await sim.run(300); // one more tick for the lists; far less than PLAYER_TTL_MS (3 s)
    expect(lists.get('1,0')).toContain(a.hex);
    expect(lists.get('0,0') ?? []).not.toContain(a.hex);
    sim.stopAll();
  });

  it("refuses a block placed inside another player's body, and one on the bedrock floor", async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(8);
    const [a, b] = [sim.pick(), sim.pick()];
    const region = { rx: 0, rz: 0 };
    await sim.settle(Promise.all([a.client.subscribe(region), b.client.subscribe(region)]));
    // a stands at (10.5, 70, 10.5): its body fills blocks (10, 70, 10) and (10, 71, 10).
    for (let i = 0; i < 3; i++) {
      a.client.move({ x: 10.5, y: 70, z: 10.5, yaw: 0, pitch: 0 });
      await sim.run(100);
    }
    const near = { x: 12.5, y: 70, z: 12.5 };
    await expect(sim.settle(b.client.submit(10, 71, 10, STONE, near))).rejects.toMatchObject({ code: 'occupied' });
    expect((await sim.settle(b.client.submit(10, 72, 10, STONE, near))).e).toBeGreaterThan(0);
    expect((await sim.settle(b.client.submit(10, 70, 10, AIR, near))).e).toBeGreaterThan(0);
    await expect(sim.settle(b.client.submit(12, 0, 12, AIR, { x: 12.5, y: 1, z: 14.5 }))).rejects.toMatchObject({ code: 'world-floor' });
    sim.stopAll();
  });
});
