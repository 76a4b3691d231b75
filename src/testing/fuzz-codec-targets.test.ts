// The decoders under the fuzzer (fixed seed, small budget; the long campaign is `npm run bench -- fuzz`).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { dhtCodecTarget, frameReaderTarget, routeFrameTarget, voteCodecTarget } from './fuzz-codec-targets';

describe('fuzzed decoders', () => {
  it('the DHT and vote codecs, the ROUTE reader and link frame reassembly: no escaped throw, every rejection typed by reason', async () => {
    const r = await runCampaign([dhtCodecTarget(), voteCodecTarget(), routeFrameTarget(), frameReaderTarget()], { seed: 13, framesPerTarget: 4000 });
    for (const [name, t] of Object.entries(r.targets)) {
      expect({ name, failures: t.failures, examples: t.examples }).toEqual({ name, failures: 0, examples: [] });
      // The generator reaches both sides of each decoder: some frames pass, several reasons refuse.
      expect(t.accepted, name).toBeGreaterThan(100);
      expect(Object.keys(t.rejected).length, name).toBeGreaterThanOrEqual(2);
    }
    expect(r.unhandledRejections).toBe(0);
    expect(r.frames).toBe(16_000);
  });
});
