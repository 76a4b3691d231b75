import { describe, expect, it } from 'vitest';
import { measureFailover } from '../testing/host-bench';
import { HostSim } from '../testing/host-sim';
import { REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { BRICK } from '../world/blocks';

describe('failover benchmark (simulated)', () => {
  it('recovers within a second or so of a primary kill and loses no confirmed edit', async () => {
    // Silent kills (nothing sent, nothing closed). Seed 2 on this code: failoverMs [884, 817,
    // 867, 800, 733], p50 817 ms, no edit lost (virtual time: the same on any machine).
    const f = await measureFailover({ seed: 2, nodes: 16, kills: 5 });
    console.log(JSON.stringify(f));
    expect(f.failoverMs.length).toBe(5);
    expect(f.lostEdits).toBe(0);
    // The browser target is 1000 ms (failover_crash_ms_p50); this small run on the virtual
    // clock sits just under it, so a little room keeps an unrelated timing change from failing it.
    expect(f.p50).toBeLessThan(1100);
    expect(f.max).toBeLessThan(3000);
    expect(f.noRecovery).toBe(0);
  });

  it('applies a re-sent edit once (the primary dedupes by editor and request id)', async () => {
    const sim = new HostSim({ seed: 3 });
    await sim.grow(6);
    const R: RegionCoord = { rx: 0, rz: 0 };
    const player = sim.pick();
    await sim.settle(player.client.subscribe(R));
    const primary = sim.primaryOf('0,0')!;
    const x = 5, z = 7, y = 120;
    const edit = { t: 'EDIT' as const, rx: 0, rz: 0, r: 77, x, y, z, id: BRICK, px: x, py: y, pz: z + 2 };
    sim.showPass(player, primary.dht.selfId);
    player.wire.players.send(primary.dht.selfId, edit);
    await sim.run(30);
    player.wire.players.send(primary.dht.selfId, edit); // re-sent while the first is unconfirmed
    await sim.run(500);
    player.wire.players.send(primary.dht.selfId, edit); // and after it was confirmed
    await sim.run(500);
    expect(primary.host.stats.editsAccepted).toBe(1);
    expect(primary.host.stats.duplicateEdits).toBe(2);
    expect(primary.host.regionState(R)!.state.size).toBe(1);
    expect(REGION_BLOCKS).toBeGreaterThan(x);
    sim.stopAll();
  });
});
