// `npm run bench -- fuzz`: the long fuzz campaign (src/testing/fuzz-campaign.ts) over every
// decoder and frame handler that `npm test` fuzzes with a small budget: 1,300,000 frames,
// seeded (FUZZ_SEED, default 1). fuzz_frames: frames fed; fuzz_failures: escaped throws,
// unhandled rejections and broken invariants (a rejected frame that changed state or was
// not counted), which must be 0. Failures are printed with their frames.
import { runCampaign, type FuzzTarget } from '../src/testing/fuzz-campaign';
import { dhtCodecTarget, frameReaderTarget, positionCodeTarget, routeFrameTarget, voteCodecTarget, voteEngineTarget } from '../src/testing/fuzz-codec-targets';
import { dhtNodeTarget } from '../src/testing/fuzz-dht-target';
import { handshakeTarget, relayClientTarget, signalTarget, webRtcLinkTarget } from '../src/testing/fuzz-net-targets';
import { replicationWireTarget, subscriptionWireTarget } from '../src/testing/fuzz-region-wire-target';
import { hostingHandlersTarget, regionClientTarget } from '../src/testing/fuzz-host-targets';
import { itemHandlersTarget } from '../src/testing/fuzz-items-target';
import { directMessagesTarget } from '../src/testing/fuzz-direct-messages-target';
import { relayCoreTarget } from './fuzz-relay-target';

/** Frames per target: the slow ones (a handshake is two signatures and two checks) get fewer. */
const BUDGET: Record<string, number> = {
  'dht codec': 150_000,
  'vote codec': 80_000,
  'vote engine': 60_000,
  'route frame': 100_000,
  'link frames': 80_000,
  'dht node': 150_000,
  'webrtc link': 100_000,
  'link handshake': 10_000,
  'webrtc signals': 80_000,
  'relay client': 80_000,
  relay: 100_000,
  'region wire (host-player)': 90_000,
  'region wire (host-host)': 80_000,
  // A simulated world with a hostile peer: ~1.4 ms a frame (its 80 virtual ms run the world).
  'hosting handlers': 60_000,
  'region client handlers': 40_000,
  'items handlers': 40_000,
};

export async function benchFuzz(): Promise<Record<string, number>> {
  const seed = Number(process.env.FUZZ_SEED ?? 1);
  const targets: FuzzTarget<unknown>[] = [
    dhtCodecTarget(), voteCodecTarget(), voteEngineTarget(), routeFrameTarget(), frameReaderTarget(), positionCodeTarget(), await dhtNodeTarget(seed),
    webRtcLinkTarget(), await handshakeTarget(), await signalTarget(), await relayClientTarget(), await relayCoreTarget(),
    subscriptionWireTarget(), replicationWireTarget(), await hostingHandlersTarget(seed), await regionClientTarget(seed), await itemHandlersTarget(seed), await directMessagesTarget(),
  ] as FuzzTarget<unknown>[];
  const t0 = performance.now();
  const r = await runCampaign(targets, { seed, framesPerTarget: (name) => BUDGET[name] ?? 50_000 });
  for (const [name, t] of Object.entries(r.targets)) {
    const reasons = Object.entries(t.rejected).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
    console.error(`fuzz ${name}: ${t.frames} frames, ${t.accepted} taken, ${t.failures} failures; refused: ${reasons}`);
    for (const ex of t.examples) console.error(`  FAILURE ${ex.error}\n    frame ${ex.frame}`);
  }
  return {
    fuzz_frames: r.frames,
    fuzz_failures: r.failures,
    fuzz_targets: Object.keys(r.targets).length,
    fuzz_seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
}
