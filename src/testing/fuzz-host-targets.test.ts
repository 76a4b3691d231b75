// The hosting and region client handlers under the fuzzer: a hostile peer's random and
// mutated frames over the simulated network (fixed seed, small budget; the long campaign is
// `npm run bench -- fuzz`).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { hostingHandlersTarget, regionClientTarget } from './fuzz-host-targets';
import { itemHandlersTarget } from './fuzz-items-target';

describe('fuzzed hosting, region client and items handlers (simulated)', () => {
  it('no escaped throw or unhandled rejection; a refused frame changes nothing any honest peer holds and is counted by reason', async () => {
    const r = await runCampaign([await hostingHandlersTarget(7), await regionClientTarget(7), await itemHandlersTarget(7)], { seed: 13, framesPerTarget: 1500, batch: 500 });
    expect(r.unhandledRejections).toBe(0);
    for (const [name, t] of Object.entries(r.targets)) {
      expect({ name, failures: t.failures, examples: t.examples }).toEqual({ name, failures: 0, examples: [] });
      expect(Object.keys(t.rejected).length, `${name}: ${JSON.stringify(t.rejected)}`).toBeGreaterThan(2);
    }
    const host = r.targets['hosting handlers']!.rejected;
    for (const reason of ['players.malformed', 'replicas.invalid', 'staleFrames']) expect(host[reason], reason).toBeGreaterThan(0);
    expect(r.targets['region client handlers']!.rejected['client.stale']).toBeGreaterThan(0);
    const items = r.targets['items handlers']!.rejected;
    for (const reason of ['wire.malformed', 'vote.nonVoter', 'host.notFromHost']) expect(items[reason], reason).toBeGreaterThan(0);
  }, 120_000);
});
