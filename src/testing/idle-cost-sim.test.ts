// The idle-cost simulation (idle-cost-sim.ts), short: one walker on new ground for 12
// virtual minutes on 6 peers, regions unloaded after 1 idle minute. What the hosts hold stays
// flat (at 12 minutes no more than 1.5x what they held at 6, past the unload delay) while the
// same walk with unloading off holds more than twice as much; a region read back from the
// stores shows the blocks placed before. `npm run bench -- idle_cost` runs the hours.
//
// Why 12 minutes is enough (seed 3, measured per minute over 20): from the 3rd minute on,
// unloading holds 27-51 regions (9-17 primaries) whatever the time, while the walk without
// it grows from 78 regions at 6 minutes to 108 at 12 and 150 at 20: at 12 it holds 3 times
// as many primaries (36 against 12), at 10 only 2.1 times. By then 45 regions were read back
// and 10 returns to a placed block checked. With unloading broken (never unloading), the
// "twice as much" check fails, as do the unload and reload counts.
import { describe, expect, it } from 'vitest';
import { runIdleCost } from './idle-cost-sim';
import { SIM_TIMEOUT_MS } from './sim-timeout';

describe('idle cost over a long walk (simulated)', () => {
  it('keeps regions held, ticks and lookups flat, and brings unloaded regions back with their blocks', async () => {
    const run = (unloadAfterMs: number) => runIdleCost({ peers: 6, walkers: 1, hours: 12 / 60, seed: 3, unloadAfterMs, sampleMs: 180_000 });
    const on = await run(60_000);
    const off = await run(Infinity);
    const at = (r: typeof on, min: number) => r.samples.find((s) => s.atMin === min)!;
    console.log(JSON.stringify({ on: [at(on, 6), at(on, 12)], off: at(off, 12), returns: on.returns, edits: on.edits }));
    // Flat: at 12 minutes no more regions, primaries, ticks or lookups than 1.5x at 6.
    for (const k of ['regionsHeld', 'primaries', 'ticksPerSec', 'lookupsPerMin'] as const) expect(at(on, 12)[k], k).toBeLessThanOrEqual(at(on, 6)[k] * 1.5);
    expect(at(on, 12).unloads).toBeGreaterThan(0);
    // Without unloading the same walk holds far more.
    expect(at(off, 12).primaries).toBeGreaterThan(2 * at(on, 12).primaries);
    // Regions left and come back to: read back from the stores, with what was placed.
    expect(on.returns.checked).toBeGreaterThan(0);
    expect(on.returns.wrong).toBe(0);
    expect(at(on, 12).reloads).toBeGreaterThan(0);
    expect(on.edits.failed).toBeLessThanOrEqual(on.edits.submitted * 0.1);
  }, SIM_TIMEOUT_MS);
});
