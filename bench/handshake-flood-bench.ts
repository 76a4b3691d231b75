// handshake_flood_*: honest diallers linking to a node while an attacker floods it with
// WebRTC handshakes, each HELLO with a fresh key its claimed id does not derive from (one
// scrypt each for the node: core/key-ids.ts). Real WebRTC in Node (node-datachannel under
// simple-peer), loopback only: `npm run bench` runs inside scripts/netns.sh. The attacker is
// `lanes` transports of its own ids, each dialling the node again as soon as its last dial
// ended (one connection at a time per id: the node admits 2 half-open per source). Once the
// flood ran `warmupMs` (past any burst the node's derivations have), an honest stranger (a key
// the node never met) dials it every `everyMs`, `samples` times, each with a key of its own.
// - handshake_flood_honest_link_ms_p50 / _max: dial to link, of the honest dials that linked;
// - handshake_flood_honest_failed: honest dials that did not link (of `samples`);
// - handshake_flood_attacks_per_s: the attacker's handshakes the node ended, a second;
// - handshake_flood_derived_per_s: keys the node derived a second during the flood (its CPU
//   for them: one scrypt each);
// - handshake_flood_evicted_per_s: half-open inbound connections the node evicted a second to
//   admit new offers (every slot taken: webrtc-transport.ts evictPending).
// Run alone: `npm run bench -- handshake_flood` (~30 s), or
// `bash scripts/netns.sh npx tsx bench/handshake-flood-bench.ts`.
import { cleanup } from 'node-datachannel';
import type { Identity } from '../src/core/identity';
import { nodeIdDerivations } from '../src/core/key-ids';
import { randomId, type NodeId } from '../src/core/node-id';
import { directSignals, nodeTransport } from '../src/testing/webrtc-test-helpers';
import { strangerIdentity } from '../src/testing/stranger-identity';
import type { WebRtcTransport } from '../src/net/webrtc-transport';
import { median } from './stats';

export const HANDSHAKE_FLOOD_DEFAULTS = { lanes: 32, warmupMs: 6000, samples: 8, everyMs: 1500 };

/** The attacker's identity: its id, and a fresh random key in every HELLO (signatures junk). */
function junkKeyIdentity(id: NodeId): Identity {
  return {
    id,
    alg: 'Ed25519',
    get publicKey() {
      return crypto.getRandomValues(new Uint8Array(32));
    },
    sign: () => Promise.resolve(new Uint8Array(64)),
    toJson: () => Promise.reject(new Error('an attacker identity is not kept')),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchHandshakeFlood(o = HANDSHAKE_FLOOD_DEFAULTS): Promise<Record<string, number>> {
  if (process.env.VP_IN_NETNS !== '1') throw new Error('handshake_flood makes WebRTC connections: run it inside scripts/netns.sh (npm run bench does)');
  // Ids need no work here: the flood's price in ids is not what is measured.
  const node = await nodeTransport({ idWorkBits: 0 });
  const attackers: WebRtcTransport[] = [];
  for (let i = 0; i < o.lanes; i++) attackers.push(await nodeTransport({ identity: junkKeyIdentity(randomId()), idWorkBits: 0 }));
  let flooding = true;
  const failuresBefore = node.stats.handshakeFailures;
  const evictedBefore = node.stats.pendingEvicted;
  const lane = async (a: WebRtcTransport) => {
    while (flooding) {
      await a.dial(node.selfId, directSignals(a, node)).then((l) => l.close(), () => undefined);
      await sleep(0);
    }
  };
  const t0 = performance.now();
  const keys0 = nodeIdDerivations.keys;
  const lanes = attackers.map(lane);
  await sleep(o.warmupMs);
  const linked: number[] = [];
  let failed = 0;
  for (let i = 0; i < o.samples; i++) {
    const honest = await nodeTransport({ identity: await strangerIdentity(), idWorkBits: 0 });
    const s0 = performance.now();
    const ok = await honest.dial(node.selfId, directSignals(honest, node)).then((l) => (l.close(), true), (e: Error) => (console.error(`honest dial ${i}: ${e.message}`), false));
    if (ok) linked.push(performance.now() - s0);
    else failed++;
    honest.close();
    await sleep(Math.max(0, o.everyMs - (performance.now() - s0)));
  }
  const secs = (performance.now() - t0) / 1000;
  const attacks = node.stats.handshakeFailures - failuresBefore;
  const derived = nodeIdDerivations.keys - keys0;
  const evicted = node.stats.pendingEvicted - evictedBefore;
  flooding = false;
  await Promise.all(lanes);
  for (const t of [node, ...attackers]) t.close();
  try {
    cleanup();
  } catch {
    /* the native teardown is best effort */
  }
  return {
    handshake_flood_honest_link_ms_p50: linked.length ? median(linked) : NaN,
    handshake_flood_honest_link_ms_max: linked.length ? Math.max(...linked) : NaN,
    handshake_flood_honest_failed: failed,
    handshake_flood_attacks_per_s: attacks / secs,
    handshake_flood_derived_per_s: derived / secs,
    handshake_flood_evicted_per_s: evicted / secs,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchHandshakeFlood(), null, 2));
  process.exit(0);
}
