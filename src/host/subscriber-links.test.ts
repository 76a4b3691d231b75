// A primary keeps a direct link to each subscriber it serves (pinned as the host's): edits
// come to it and its PENDINGs go out over one hop, not routed through the overlay. Before,
// only the subscriber pinned its end, and the primary's link budget refused or retired the
// link when other peers dialled it (docs/HOSTING.md "Which links are pinned").
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import type { RegionCoord } from '../region/region-key';
import { HostSim } from '../testing/host-sim';

const R: RegionCoord = { rx: 0, rz: 0 };

/** 18 peers, region R claimed by one of them, and 12 players that are none of its hosts (not subscribed yet). */
async function region0(sim: HostSim) {
  await sim.grow(18);
  const name = `${R.rx},${R.rz}`;
  await sim.settle(sim.live()[0]!.client.subscribe(R));
  const primary = sim.primaryOf(name)!;
  const players = sim.live().filter((p) => p !== primary && !primary.host.regionState(R)?.hosts.some((h) => idToHex(h) === p.hex)).slice(0, 12);
  return { sim, name, primary, players };
}

describe('links between a primary and its subscribers (simulated)', () => {
  it('a primary at a budget of 6 links keeps a pinned link to each of 12 subscribers, and unpins one that left', async () => {
    const { sim, name, primary, players } = await region0(new HostSim({ seed: 4, dht: { maxLinks: 6, softLinks: 5 } }));
    for (const p of players) await sim.settle(p.client.subscribe(R));
    await sim.run(5000);
    expect(sim.primaryOf(name)).toBe(primary);
    for (const p of players) {
      expect(p.client.attachment(R)?.primary).toBe(primary.hex);
      expect(primary.dht.links.get(p.hex)?.pinned).toBe(true);
    }
    // One leaves: once the primary no longer serves it (its sweep, every second), the link is the budget's again.
    const gone = players[0]!;
    gone.client.unsubscribe(R);
    await sim.run(2000);
    expect(primary.dht.links.pins.has(gone.hex)).toBe(false);
    sim.stopAll();
  });

  // host-pins.ts: a busy primary's pins filled first come, first pinned, and a player who then
  // walked in and edited had its EDIT routed (the 300-peer simulation: 18 of 46 slow samples).
  it('a primary whose pins are full of players looking in pins the one that walks in, in place of one of them', async () => {
    const { sim, name, primary, players } = await region0(new HostSim({ seed: 4, dht: { maxLinks: 6, softLinks: 5, maxPinnedLinks: 10 }, host: { maxHostPins: 8 } }));
    // Eleven look in from next door (their MOVEs say they stand in region 1,0), then the twelfth comes.
    const lookers = players.slice(0, 11), walker = players[11]!;
    for (const p of lookers) await sim.settle(p.client.subscribe(R));
    for (let i = 0; i < 20; i++) {
      lookers.forEach((p, j) => p.client.move({ x: 80 + j, y: 70, z: 10, yaw: 0, pitch: 0 }));
      await sim.run(100);
    }
    await sim.settle(walker.client.subscribe(R));
    for (let i = 0; i < 20; i++) {
      walker.client.move({ x: 20, y: 70, z: 20, yaw: 0, pitch: 0 });
      await sim.run(100);
    }
    expect(sim.primaryOf(name)).toBe(primary);
    expect(primary.dht.links.pins.size).toBeLessThanOrEqual(10);
    expect(primary.dht.links.get(walker.hex)?.pinned).toBe(true);
    sim.stopAll();
  });
});
