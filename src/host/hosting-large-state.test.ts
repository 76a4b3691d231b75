// A region with more edited blocks than one frame holds (2 MiB reassembly, ~174k entries):
// SYNC, SNAPSHOT and GRANT carry it in pieces, so a new subscriber gets all of it and the
// next primary after a failover holds all of it, and no frame is ever too big to send.
import { describe, expect, it } from 'vitest';
import { HostSim } from '../testing/host-sim';
import { idToHex } from '../core/node-id';
import type { Entry } from '../region/region-state';
import { CHUNK_SIZE, CHUNK_VOLUME } from '../world/coords';

const R = { rx: 0, rz: 0 };
const N = 200_000;

describe('a region larger than one frame (simulated)', () => {
  it('travels in pieces to subscribers, backups and the next primary', async () => {
    const sim = new HostSim({ seed: 6 });
    await sim.grow(6);
    const [player, other] = sim.live();
    await sim.settle(player!.client.subscribe(R));
    const stamp = await sim.settle(player!.client.submit(1, 100, 1, 9, { x: 1, y: 100, z: 3 }));
    const primary = sim.primaryOf('0,0')!;
    const region = primary.host.regionState(R)!;
    // Stored state of an old epoch, as a big restored region would hold: blocks above the
    // unbreakable floor (y = 0, the first CHUNK_SIZE^2 blocks of each column), which no entry may set.
    const big: Entry[] = [];
    const above = CHUNK_VOLUME - CHUNK_SIZE * CHUNK_SIZE;
    for (let i = 0; i < N; i++) big.push({ key: (2 + Math.floor(i / above)) * CHUNK_VOLUME + CHUNK_SIZE * CHUNK_SIZE + (i % above), id: 3, e: stamp.e - 1 || 0, s: i + 1 });
    region.state.merge(big);
    for (const b of region.duty!.backups()) region.duty!.syncBackup(b, idToHex(b));
    await sim.run(3000);
    const late = other === primary ? sim.live()[2]! : other!;
    await sim.settle(late.client.subscribe(R), 30_000);
    expect(late.client.state(R)!.size).toBeGreaterThanOrEqual(N);
    for (const b of region.duty!.backups()) expect(sim.peers.get(idToHex(b))!.host.regionState(R)!.state.size).toBeGreaterThanOrEqual(N);
    if (primary !== player) {
      sim.kill(primary.hex);
      let ok = false;
      for (let i = 0; i < 10 && !ok; i++) ok = await sim.settle(player!.client.submit(2, 100, 2, 9, { x: 2, y: 100, z: 4 }).then(() => true, () => false), 20_000);
      expect(ok).toBe(true);
      const next = sim.primaryOf('0,0')!;
      expect(next.host.regionState(R)!.state.size).toBeGreaterThanOrEqual(N);
    }
    for (const p of sim.live()) expect(p.wire.unsendable).toBe(0);
    sim.stopAll();
  }, 60_000);
});
