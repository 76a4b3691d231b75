// The relay's rules under the fuzzer (fixed seed, small budget; the long campaign is `npm run bench -- fuzz`).
import { describe, expect, it } from 'vitest';
import { runCampaign } from '../src/testing/fuzz-campaign';
import { relayCoreTarget } from './fuzz-relay-target';

describe('fuzzed relay', () => {
  it('registers, signals, peer requests and junk: no escaped throw, a refused frame changes no id and reaches nobody, refusals counted by code', async () => {
    const r = await runCampaign([await relayCoreTarget()], { seed: 13, framesPerTarget: 3000 });
    const t = r.targets.relay!;
    expect({ failures: r.failures, examples: t.examples }).toEqual({ failures: 0, examples: [] });
    expect(t.accepted).toBeGreaterThan(100);
    for (const code of ['bad-json', 'bad-message', 'bad-proof', 'too-large', 'already-registered']) expect(t.rejected[code], code).toBeGreaterThan(0);
  });
});
