// The claim after a silent death (a crashed tab) goes over the current hosts but the silent
// primary, with no lookup, topped up to r (region-claimant.ts `candidateHosts`). A host it
// adds must be in each granter's view of the set: its table's 2r nearest, or else a lookup
// of the key (region-granter.ts `inHostSet`). Topped up with the nearest linked node, the
// claim named a node far from the key where the claimant held no link to the nearer ones;
// with a tab's DHT timings (RPC timeout 4 s) the backup whose grant the previous set's
// majority needed looked it up for 2.4 s (the dead primary, nearest the key, waited on), past
// the claim's round, and refused it ('outsider host'); the claimant took that backup for one
// that sends nothing, left it out, and claims failed one after another (failover_crash:
// crashes of 4.9 and 6.5 s, certified 3.8 and 5.6 s after the first claim). The nodes the
// claimant's own table shows among the 2r nearest now come first (the claim's pings drop
// the dead), which the granters' tables list too. The failover simulation with a tab's DHT
// timings, seed 25, third kill: 8,614 ms before, 2,363 now. Virtual clock.
import { describe, expect, it } from 'vitest';
import { measureFailover } from '../testing/host-bench';

describe('the claim after a silent death, its set topped up (simulated, a tab\'s DHT timings)', () => {
  it('names a node its granters take at once, not one their lookup refuses after the round: seed 25', async () => {
    const f = await measureFailover({ seed: 25, nodes: 16, kills: 3, dht: { rpcTimeoutMs: 4000 } });
    expect(f.failoverMs).toHaveLength(3);
    expect(f.failoverMs[2]).toBeLessThan(3000);
  });
});
