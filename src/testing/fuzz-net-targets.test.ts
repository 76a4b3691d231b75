// The link layer under the fuzzer (fixed seed, small budget; the long campaign is `npm run bench -- fuzz`).
import { describe, expect, it } from 'vitest';
import { runCampaign } from './fuzz-campaign';
import { handshakeTarget, relayClientTarget, signalTarget, webRtcLinkTarget } from './fuzz-net-targets';

describe('fuzzed link layer', () => {
  it('link frames, handshake tampering, WebRTC signals and relay frames: no escaped throw, refused input has no effect and is counted by reason', async () => {
    const targets = [webRtcLinkTarget(), await handshakeTarget(), await signalTarget(), await relayClientTarget()];
    const r = await runCampaign(targets, { seed: 13, framesPerTarget: (name) => (name === 'link handshake' ? 300 : 3000) });
    for (const [name, t] of Object.entries(r.targets)) {
      expect({ name, failures: t.failures, examples: t.examples }).toEqual({ name, failures: 0, examples: [] });
      expect(t.accepted, name).toBeGreaterThan(0);
      expect(Object.keys(t.rejected).length, name).toBeGreaterThanOrEqual(2);
    }
    expect(r.unhandledRejections).toBe(0);
  });
});
