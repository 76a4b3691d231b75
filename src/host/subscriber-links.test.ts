// A primary keeps a direct link to each subscriber it serves (pinned as the host's): edits
// come to it and its PENDINGs go out over one hop, not routed through the overlay. Before,
// only the subscriber pinned its end, and the primary's link budget refused or retired the
// link when other peers dialled it (docs/BENCHMARKS.md "Edit to visible", session 15).
import { describe, expect, it } from 'vitest';
import { idToHex } from '../core/node-id';
import type { RegionCoord } from '../region/region-key';
import { HostSim } from '../testing/host-sim';

const R: RegionCoord = { rx: 0, rz: 0 };

describe('links between a primary and its subscribers (simulated)', () => {
  it('a primary at a budget of 6 links keeps a pinned link to each of 12 subscribers, and unpins one that left', async () => {
    const sim = new HostSim({ seed: 4, dht: { maxLinks: 6, softLinks: 5 } });
    await sim.grow(18);
    const name = `${R.rx},${R.rz}`;
    const first = sim.live()[0]!;
    await sim.settle(first.client.subscribe(R));
    const primary = sim.primaryOf(name)!;
    const players = sim.live().filter((p) => p !== primary && !primary.host.regionState(R)?.hosts.some((h) => idToHex(h) === p.hex)).slice(0, 12);
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
});
