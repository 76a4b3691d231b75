// A first subscription's wait, subscribe to first snapshot shown, with the rank's lookup
// (a subscriber with no certificate of a region judges it against its own lookup of the key
// by disjoint paths, two at a time: dht/near-view.ts `live`). Seeds 1-5, 20 ms links, 13
// peers (testing/first-attach-sim.ts), p50 / p90 ms:
//
// |                    | before the rank (7088f90) | the rank, in turn | own region first (this) |
// |--------------------|---------------------------|-------------------|-------------------------|
// | joining, 9 regions | 86-143 / 153-310          | 399-647 / 605-947 | 473-695 / 702-905       |
// | own region         | 76-143                    | 227-436           | 223-290                 |
// | border crossing    | 77-101 / 120-148          | 212-272 / 289-430 | 209-258 / 323-414       |
import { describe, expect, it } from 'vitest';
import { firstAttach } from '../testing/first-attach-sim';

describe('a first subscription\'s wait with the rank\'s lookup (simulated)', () => {
  it('a joining player\'s own region is shown first of its 9', async () => {
    const f = await firstAttach({ seed: 3 });
    expect(f.unready).toBe(0);
    expect(f.join.n).toBe(9);
    expect(f.own, 'own region (ms)').toBeLessThanOrEqual(f.join.p10);
  }, 120_000);
});
