// Direct messages under the fuzzer (fixed seed, small budget).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { directMessagesTarget } from './fuzz-direct-messages-target';

describe('fuzzed direct messages', () => {
  it('every frame is taken or dropped and counted, never both; a dropped one shows nothing', async () => {
    const r = await runCampaign([await directMessagesTarget()], { seed: 17, framesPerTarget: 2000 });
    const t = r.targets['direct messages']!;
    expect({ failures: t.failures, examples: t.examples }).toEqual({ failures: 0, examples: [] });
    expect(t.accepted).toBeGreaterThan(0);
    for (const reason of ['invalid', 'signature', 'wrong-node']) expect(t.rejected[reason], reason).toBeGreaterThan(0);
  });
});
