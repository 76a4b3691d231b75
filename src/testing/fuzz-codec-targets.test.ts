// The decoders under the fuzzer (fixed seed, small budget; the long campaign is `npm run bench -- fuzz`).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { dhtCodecTarget, frameReaderTarget, itemWireCodecTarget, positionCodeTarget, routeFrameTarget, voteCodecTarget, voteEngineTarget } from './fuzz-codec-targets';

describe('fuzzed decoders', () => {
  it('the DHT, vote and items codecs, the ROUTE reader, link frame reassembly and the compact positions: no escaped throw, every rejection typed by reason', async () => {
    const r = await runCampaign([dhtCodecTarget(), voteCodecTarget(), itemWireCodecTarget(), routeFrameTarget(), frameReaderTarget(), positionCodeTarget()], { seed: 13, framesPerTarget: 4000 });
    for (const [name, t] of Object.entries(r.targets)) {
      expect({ name, failures: t.failures, examples: t.examples }).toEqual({ name, failures: 0, examples: [] });
      // The generator reaches both sides of each decoder: some frames pass, several reasons refuse.
      expect(t.accepted, name).toBeGreaterThan(100);
      expect(Object.keys(t.rejected).length, name).toBeGreaterThanOrEqual(2);
    }
    expect(r.unhandledRejections).toBe(0);
    expect(r.frames).toBe(24_000);
  });
});

describe('fuzzed vote engine', () => {
  it('vote frames from voters and strangers: a refused frame does not move the vote, a decision never changes, refusals counted by reason', async () => {
    const r = await runCampaign([voteEngineTarget()], { seed: 13, framesPerTarget: 6000 });
    const t = r.targets['vote engine']!;
    expect({ failures: t.failures, examples: t.examples }).toEqual({ failures: 0, examples: [] });
    for (const reason of ['nonVoter', 'wrongVote', 'forgedDecision', 'duplicate', 'equivocation']) expect(t.rejected[reason], reason).toBeGreaterThan(0);
    expect(t.accepted).toBeGreaterThan(300);
  });
});
