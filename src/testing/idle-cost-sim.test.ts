// The idle-cost simulation (idle-cost-sim.ts), short: one walker on new ground for 20
// virtual minutes on 6 peers, regions unloaded after 1 idle minute. What the hosts hold stays
// flat (at 20 minutes no more than 1.5x what they held at 10, past the unload delay) while the
// same walk with unloading off holds more than twice as much; a region read back from the
// stores shows the blocks placed before. `npm run bench -- idle_cost` runs the hours.
import { describe, expect, it } from 'vitest';
import { runIdleCost } from './idle-cost-sim';

describe('idle cost over a long walk (simulated)', () => {
  it('keeps regions held, ticks and lookups flat, and brings unloaded regions back with their blocks', async () => {
    const run = (unloadAfterMs: number) => runIdleCost({ peers: 6, walkers: 1, hours: 20 / 60, seed: 3, unloadAfterMs, sampleMs: 300_000 });
    const on = await run(60_000);
    const off = await run(Infinity);
    const at = (r: typeof on, min: number) => r.samples.find((s) => s.atMin === min)!;
    console.log(JSON.stringify({ on: [at(on, 10), at(on, 20)], off: at(off, 20), returns: on.returns, edits: on.edits }));
    // Flat: at 20 minutes no more regions, primaries, ticks or lookups than 1.5x at 10.
    for (const k of ['regionsHeld', 'primaries', 'ticksPerSec', 'lookupsPerMin'] as const) expect(at(on, 20)[k], k).toBeLessThanOrEqual(at(on, 10)[k] * 1.5);
    expect(at(on, 20).unloads).toBeGreaterThan(0);
    // Without unloading the same walk holds far more.
    expect(at(off, 20).primaries).toBeGreaterThan(2 * at(on, 20).primaries);
    // Regions left and come back to: read back from the stores, with what was placed.
    expect(on.returns.checked).toBeGreaterThan(0);
    expect(on.returns.wrong).toBe(0);
    expect(at(on, 20).reloads).toBeGreaterThan(0);
    expect(on.edits.failed).toBeLessThanOrEqual(on.edits.submitted * 0.1);
  }, 240_000);
});
