// The region channels' wire under the fuzzer, from outside region/ and host/ (fixed seed, small budget).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { replicationWireTarget, subscriptionWireTarget } from './fuzz-region-wire-target';

describe('fuzzed region wire', () => {
  it('whole frames and PART transfers of both codecs from several senders: no escaped throw, a dropped frame is counted and handed to nobody', async () => {
    const r = await runCampaign([subscriptionWireTarget(), replicationWireTarget()], { seed: 13, framesPerTarget: 3000 });
    for (const [name, t] of Object.entries(r.targets)) {
      expect({ name, failures: t.failures, examples: t.examples }).toEqual({ name, failures: 0, examples: [] });
      expect(t.accepted, name).toBeGreaterThan(300);
      for (const reason of ['malformed', 'invalid', 'parts']) expect(t.rejected[reason], `${name} ${reason}`).toBeGreaterThan(0);
    }
  });
});
