// A first subscription's wait, subscribe to first snapshot shown, with the rank's lookup
// (a subscriber with no certificate of a region judges it against its own lookup of the key
// by disjoint paths: dht/near-view.ts `live`). Seeds 1-5, 20 ms links, 13 peers
// (testing/first-attach-sim.ts; `npm run bench -- first_attach`), p50 / p90 ms:
//
// |                    | before the rank (7088f90) | own region first, two lookups at a time (7b88311) | the location read is the lookup (this) |
// |--------------------|---------------------------|---------------------------------------------------|----------------------------------------|
// | joining, 9 regions | 86-143 / 153-310          | 473-695 / 702-905                                 | 188-209 / 213-574                      |
// | own region         | 76-143                    | 223-290                                           | 175-228                                |
// | border crossing    | 77-101 / 120-148          | 209-258 / 323-414                                 | 139-178 / 167-231                      |
//
// (The join p90 of 574 ms, seed 3: one of the 9 regions mid-takeover on the hosts' side.)
import { describe, expect, it } from 'vitest';
import { firstAttach } from '../testing/first-attach-sim';

describe('a first subscription\'s wait with the rank\'s lookup (simulated)', () => {
  it('a joining player\'s 9 regions wait for one lookup each, not in turns: the location read is the rank\'s lookup', async () => {
    const f = await firstAttach({ seed: 3 });
    expect(f.unready).toBe(0);
    expect(f.join.n).toBe(9);
    // Two lookups at a time, 9 regions in ~5 turns: p50 605 ms (seed 3, 7b88311); now 209-231.
    // (Not the p90: one of the 9 may be mid-takeover on the hosts' side, 574 ms on 2e616d6.)
    expect(f.join.p50, 'the join\'s 9 regions, p50 (ms)').toBeLessThanOrEqual(300);
    expect(f.own, 'own region (ms)').toBeLessThanOrEqual(300);
    // Each first subscription's location read counted as its lookup; none run besides them.
    expect(f.adopted).toBeGreaterThanOrEqual(9);
    expect(f.sweeps).toBe(0);
  }, 120_000);
});
