// A DhtNode under a hostile peer's fuzzed frames (fixed seed, small budget; the long campaign is `npm run bench -- fuzz`).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { dhtNodeTarget } from './fuzz-dht-target';

describe('fuzzed DHT node', () => {
  it('RPCs, replies, SIGNAL, DATA and ROUTE frames (signed and not): no escaped throw or unhandled rejection, a rejected frame changes nothing and is counted by reason', async () => {
    const r = await runCampaign([await dhtNodeTarget(7)], { seed: 13, framesPerTarget: 6000 });
    const t = r.targets['dht node']!;
    expect({ failures: r.failures, examples: t.examples }).toEqual({ failures: 0, examples: [] });
    // Deep enough: frames got past decoding into every kind of handling.
    expect(t.accepted).toBeGreaterThan(1000);
    for (const reason of ['dropped.malformed', 'dropped.invalid', 'dropped.duplicate', 'dropped.unexpected', 'storeRefused.notNear']) {
      expect(t.rejected[reason], reason).toBeGreaterThan(0);
    }
  });
});
