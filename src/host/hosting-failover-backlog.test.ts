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

  it.each([1, 2, 3])('a second failover right after the first: the backlog goes to the third primary at once, none times out, seed %i', async (seed) => {
    // Slow failovers (1.5 s), the second primary killed as the editor attaches to it: the
    // backlog was sent to it and to the dead primary before, and goes to the third in full.
    // Its duty's rate for the player starts full (edit-validator.ts per duty), so the
    // client's pace starts again with it (submitted-edits.ts newDuty). Charged for the sends
    // to the two dead primaries, it let one edit go every 60 ms: the first edit made after the
    // second death was confirmed 0.6-2.1 s after the third primary's first confirmation, and
    // the edits held longest timed out (seeds 1 and 3: 7 and 2).
    const sim = new HostSim({ seed, host: { failoverMs: 1500 } });
    await sim.grow(8);
    for (const p of sim.live()) await sim.settle(p.client.subscribe(R));
    const first = sim.primaryOf(R)!;
    const editor = sim.live().find((p) => p !== first && !sim.backupsOf(R).includes(p))!;
    const stand = { x: R.rx * REGION_BLOCKS + 32, y: 120, z: R.rz * REGION_BLOCKS + 32 };
    const spot = (i: number) => ({ x: stand.x - 4 + (i % 9), y: 118 + Math.floor(i / 81), z: stand.z - 4 + Math.floor(i / 9) % 9 });
    const idOf = (i: number) => PLACEABLE[i % PLACEABLE.length]!;
    const outcome: { at: number; done?: number; stamp?: Stamp; err?: string }[] = [];
    let second: string | undefined, secondAt = Infinity;
    for (let i = 0; i < 80; i++) {
      if (i === DEATH_AT) sim.kill(first.hex);
      const att = editor.client.attachment(R);
      if (i > DEATH_AT && !second && att && att.primary !== first.hex) {
        second = att.primary;
        secondAt = sim.clock.now();
        sim.kill(second);
      }
      const o: (typeof outcome)[number] = { at: sim.clock.now() };
      outcome.push(o);
      const { x, y, z } = spot(i);
      editor.client.submit(x, y, z, idOf(i), stand).then((stamp) => Object.assign(o, { done: sim.clock.now(), stamp }), (e: Error) => Object.assign(o, { done: sim.clock.now(), err: e.message }));
      await sim.run(EVERY_MS);
    }
    await sim.run(8000);
    expect(second, 'the editor attached to a second primary').toBeDefined();
    expect(outcome.flatMap((o, i) => (o.err ? [`${i}: ${o.err}`] : []))).toEqual([]);
    // (Answers the second primary sent before it died arrive within a round trip; the third's come after its 1.5 s failover.)
    const third = outcome.filter((o) => o.stamp && o.done! > secondAt + 500).map((o) => o.done!);
    const firstAfter = outcome.find((o) => o.at > secondAt)!;
    expect(firstAfter.done! - Math.min(...third), 'the first edit after the second death, from the third primary\'s first confirmation').toBeLessThan(400);
    expect(new Set(outcome.map((o) => `e${o.stamp!.e}s${o.stamp!.s}`)).size, 'each edit ordered once').toBe(outcome.length);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
