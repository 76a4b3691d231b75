// A primary cut off from every other node (a stalled tab whose links all closed: safety
// seed 39). Its backups elect a successor; the cut-off primary hears none of it, since its
// frames reach nobody. Before the fix it stayed primary for good, without a lease (so it
// confirmed nothing) but still answering SUBSCRIBE as primary, and after healing the
// region had two primaries. Now no majority answering it for backupQuietMs makes it stop
// being primary (primary-lease.ts `unanswered`) and goes idle; once the cut heals and its
// links come back, it joins the chain the others built.
import { describe, expect, it } from 'vitest';
import { PLANKS } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { REGION_BLOCKS, type RegionCoord } from '../region/region-key';

const R: RegionCoord = { rx: 0, rz: 0 };
const NAME = `${R.rx},${R.rz}`;

const primaries = (sim: HostSim): SimPeer[] => sim.primariesOf(NAME);

describe('a primary cut off from every node (simulated)', () => {
  // Seeds in which, without the rule, the cut-off primary stayed one (in others a host-set
  // re-check that found only itself happened to release it).
  it.each([1, 3, 5])('stops being primary, confirms nothing, and the region has one primary after healing (seed %i)', async (seed) => {
    const sim = new HostSim({ seed });
    await sim.grow(6);
    const first = sim.live().at(-1)!;
    await sim.settle(first.client.subscribe(R));
    const [zombie] = primaries(sim);
    expect(zombie).toBeDefined();
    const editor = sim.live().find((p) => p !== zombie)!;
    await sim.settle(editor.client.subscribe(R));
    const at = (i: number) => ({ x: R.rx * REGION_BLOCKS + 2 + i, y: 120, z: R.rz * REGION_BLOCKS + 4 });
    for (let i = 0; i < 3; i++) {
      const { x, y, z } = at(i);
      await sim.settle(editor.client.submit(x, y, z, PLANKS, { x, y, z: z + 3 }));
    }
    const zombieEpoch = zombie!.host.regionState(R)!.epoch;
    // Cut off for longer than the DHT keeps a silent link: every link of the primary closes.
    const cutAt = sim.clock.now();
    sim.net.partition([[zombie!.dht.selfId], sim.live().filter((p) => p !== zombie).map((p) => p.dht.selfId)]);
    const opts = zombie!.host.opts;
    // No majority answered it for backupQuietMs: it stopped being primary (checked every beat).
    await sim.run(opts.backupQuietMs + 3 * opts.heartbeatMs);
    expect(zombie!.host.roles().primary).not.toContain(NAME);
    await sim.run(20_000);
    expect(zombie!.dht.linkInfo().length, 'all its links closed').toBe(0);
    // The others elected a successor in a later epoch, and the cut-off node is primary no more.
    const others = primaries(sim);
    expect(others.map((p) => p.hex)).not.toContain(zombie!.hex);
    expect(others).toHaveLength(1);
    expect(others[0]!.host.regionState(R)!.epoch).toBeGreaterThan(zombieEpoch);
    // It confirmed nothing once its lease was gone.
    const late = sim.confirms.filter((c) => c.region === NAME && c.primary === zombie!.hex && c.at > cutAt + opts.leaseMs);
    expect(late).toEqual([]);
    // Healed: one primary, on the successor's chain, which the old primary joins (its links
    // come back with the DHT's dormant probe through the relay, within dormantProbeMs).
    sim.net.heal();
    await sim.run(70_000);
    expect(primaries(sim)).toHaveLength(1);
    expect(zombie!.host.regionState(R)!.epoch).toBeGreaterThan(zombieEpoch);
    expect(editor.client.state(R)!.fingerprint()).toBe(primaries(sim)[0]!.host.regionState(R)!.state.fingerprint());
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  }, 60_000);
});
