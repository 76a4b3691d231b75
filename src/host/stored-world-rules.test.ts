// A host's own stored copy is held to the world's rules when read back (hosting-service.ts
// restoreStored, region-state.ts obeysWorldRules): a store that holds AIR at the floor or a
// block no player may place (written before a path was checked, by hand, or by code the
// tab's owner swapped in) must not put it into the region's state, from which its SYNC,
// GRANT and SNAPSHOT would hand it on.
import { describe, expect, it } from 'vitest';
import { AIR, WATER } from '../world/blocks';
import { WORLD_FLOOR_Y } from '../world/coords';
import { encodeEntries, entryKey, type Entry } from '../region/region-state';
import { HostSim } from '../testing/host-sim';

const R = { rx: 0, rz: 0 };

describe("a host's stored copy read back within the world's rules (simulated)", () => {
  it('a restarted backup leaves out the stored entries against the rules and keeps the rest', async () => {
    const sim = new HostSim({ seed: 8 });
    await sim.grow(8);
    await sim.editedRegion(R);
    const backup = sim.backupsOf(R)[0]!;
    const id = backup.dht.selfId;
    const e = backup.host.regionState(R)!.epoch;
    const bad: Entry[] = [
      { key: entryKey(0, 3, WORLD_FLOOR_Y, 3), id: AIR, e, s: 900 },
      { key: entryKey(0, 4, 80, 4), id: WATER, e, s: 901 },
    ];
    sim.kill(backup.hex);
    const store = sim.stores.get(backup.hex)!;
    const stored = (await sim.settle(store.load(R.rx, R.rz)))!;
    expect(stored.entries.length + (stored.log?.length ?? 0)).toBeGreaterThan(0); // it held the region
    await sim.settle(store.append(R.rx, R.rz, { entries: encodeEntries(bad) }));
    const back = await sim.add(id);
    await sim.run(3000);
    const region = back.host.regionState(R)!;
    expect(region.state.size).toBeGreaterThan(0); // the rest was read back
    expect(bad.map((b) => region.state.get(b.key))).toEqual([undefined, undefined]);
    expect(back.host.stats.entriesAgainstRules).toBeGreaterThanOrEqual(2);
    sim.stopAll();
  });
});
