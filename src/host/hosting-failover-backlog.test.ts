// A player who keeps building while its region's primary dies silently: its edits sent to
// the dead primary, and those made while the region had no primary, wait for the next one
// and go to it when the region attaches. The new primary judges each under the player's
// rate (host/edit-validator.ts: 20 a second, a burst of 20); a backlog sent in one burst
// went past it and the edits beyond the burst were refused 'rate', blocks the player had
// placed at its ordinary rate taken back. Every such edit must land, once.
import { describe, expect, it } from 'vitest';
import { PLACEABLE } from '../world/blocks';
import { HostSim } from '../testing/host-sim';
import { columnIndex, REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { entryKey, type Stamp } from '../region/region-state';
import { chunkOf, localOf } from '../world/coords';

const R: RegionCoord = { rx: 0, rz: 0 };
/** The player's ordinary pace: a block every 100 ms (the failover_crash bench's). */
const EVERY_MS = 100;
/** Edits submitted: 2 s of building before the death, 5 s through and after the failover. */
const EDITS = 70;
const DEATH_AT = 20;

describe('edits queued through a silent failover', () => {
  it.each([1, 2, 3])('all land at the new primary, none refused for rate, seed %i', async (seed) => {
    // A failover of about 2 s (the bench saw 1.3-2.3 s under load; a backup waits up to
    // slowPrimaryMaxMs for a primary it has seen slow): 20 edits and more wait for the next
    // primary. The tab's DHT timeout: lookups past the dead primary stall.
    const sim = new HostSim({ seed, dht: { rpcTimeoutMs: 4000 }, host: { failoverMs: 2000 } });
    await sim.grow(5);
    for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
    const primary = sim.primaryOf(R)!;
    const editor = sim.live().find((p) => p !== primary)!;
    // Distinct blocks around one stand, all within reach of it.
    const stand = { x: R.rx * REGION_BLOCKS + 32, y: 120, z: R.rz * REGION_BLOCKS + 32 };
    const spot = (i: number) => ({ x: stand.x - 4 + (i % 9), y: 118 + Math.floor(i / 81), z: stand.z - 4 + Math.floor(i / 9) % 9 });
    const idOf = (i: number) => PLACEABLE[i % PLACEABLE.length]!;
    const outcome: (Stamp | Error | undefined)[] = [];
    for (let i = 0; i < EDITS; i++) {
      if (i === DEATH_AT) sim.kill(primary.hex);
      const { x, y, z } = spot(i);
      editor.client.submit(x, y, z, idOf(i), stand).then((s) => (outcome[i] = s), (e: Error) => (outcome[i] = e));
      await sim.run(EVERY_MS);
    }
    await sim.run(8000);
    const errors = outcome.flatMap((o, i) => (o instanceof Error ? [`${i}: ${o.message}`] : []));
    expect(errors).toEqual([]);
    const stamps = outcome.flatMap((o) => (o && !(o instanceof Error) ? [`e${o.e}s${o.s}`] : []));
    expect(stamps).toHaveLength(EDITS);
    expect(new Set(stamps).size, 'each edit ordered once').toBe(EDITS);
    expect(sim.primaryOf(R)).not.toBe(primary);
    for (const p of sim.live()) {
      for (let i = 0; i < EDITS; i++) {
        const b = spot(i);
        expect(p.client.state(R)!.get(entryKey(columnIndex(chunkOf(b.x), chunkOf(b.z)), localOf(b.x), b.y, localOf(b.z)))?.id, `${p.hex.slice(0, 6)} edit ${i}`).toBe(idOf(i));
      }
    }
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
