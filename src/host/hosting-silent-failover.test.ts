// A primary that dies without closing its links (a browser process killed: its WebRTC
// channels stay "open" at the other end for many seconds), with the tab's DHT timeout
// (a lookup waits on the dead contact for `rpcTimeoutMs`): the backups must still take
// over well within the client's edit timeout, so an edit submitted right after the death
// is confirmed on its first attempt and reaches every subscriber.
import { describe, expect, it } from 'vitest';
import { BRICK, PLANKS } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { columnIndex, REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { entryKey } from '../region/region-state';
import { chunkOf, localOf } from '../world/coords';

const R: RegionCoord = { rx: 0, rz: 0 };

function primaryOf(sim: HostSim): SimPeer | undefined {
  return sim.primaryOf(`${R.rx},${R.rz}`);
}

describe('failover after a silent death (simulated)', () => {
  it.each([1, 2, 3])('confirms the first edit after the primary vanished, seed %i', async (seed) => {
    // The tab's DHT timeout: a lookup past the dead primary stalls for 4 s.
    const sim = new HostSim({ seed, dht: { rpcTimeoutMs: 4000 } });
    await sim.grow(4);
    for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
    const primary = primaryOf(sim)!;
    const others = sim.live().filter((p) => p !== primary);
    const editor = others[0]!;
    const at = (i: number) => ({ x: R.rx * REGION_BLOCKS + 3 + i, y: 120, z: R.rz * REGION_BLOCKS + 5 });
    for (let i = 0; i < 5; i++) {
      const { x, y, z } = at(i);
      await sim.settle(editor.client.submit(x, y, z, PLANKS, { x, y, z: z + 3 }));
    }
    await sim.run(1000);
    sim.kill(primary.hex);
    const { x, y, z } = at(5);
    const t0 = sim.clock.now();
    // One attempt: it must not time out (EditTimeoutError after editTimeoutMs).
    const stamp = await sim.settle(editor.client.submit(x, y, z, BRICK, { x, y, z: z + 3 }));
    const took = sim.clock.now() - t0;
    expect(took).toBeLessThan(editor.client.opts.editTimeoutMs - 1500);
    await sim.run(3000);
    const now = primaryOf(sim)!;
    expect(now.host.regionState(R)!.epoch).toBe(stamp.e);
    for (const p of sim.live()) {
      for (let i = 0; i < 6; i++) {
        const b = at(i);
        expect(p.client.state(R)!.get(entryKey(columnIndex(chunkOf(b.x), chunkOf(b.z)), localOf(b.x), b.y, localOf(b.z)))?.id).toBe(i < 5 ? PLANKS : BRICK);
      }
    }
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

describe('the claim after a silent death (simulated, 20 ms links)', () => {
  const L = 20;
  it.each([1, 2, 3])('goes out as the silence runs out: its hosts were pinged ahead of it, seed %i', async (seed) => {
    const sim = new HostSim({ seed, net: { latencyMs: L, latencySpread: 0, jitterMs: 0 } });
    await sim.grow(6);
    for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
    const primary = primaryOf(sim)!;
    // An edit: a region with none reads the DHT's edit log before its new primary starts.
    const editor = sim.live().find((p) => p !== primary)!;
    await sim.settle(editor.client.submit(3, 120, 5, PLANKS, { x: 3, y: 120, z: 8 }));
    await sim.run(1000);
    sim.kill(primary.hex);
    const claims = () => sim.live().reduce((n, p) => n + p.host.stats.silenceClaims, 0);
    const before = claims();
    let claimAt = 0, primaryAt = 0;
    for (let t = 0; t < 3000 && !primaryAt; t++) {
      await sim.run(1);
      if (!claimAt && claims() > before) claimAt = sim.clock.now();
      const now = primaryOf(sim);
      if (now && now !== primary) primaryAt = sim.clock.now();
    }
    expect(claimAt).toBeGreaterThan(0);
    // The silence taken for death, then CLAIM and GRANT: one round trip. Pinging the hosts
    // named only once the silence ran out took one more.
    expect(primaryAt - claimAt).toBeLessThan(3 * L);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
