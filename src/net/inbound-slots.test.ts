// Inbound slots an attacker with many keys cannot hold against an honest dialler. Attacker
// ids send offers and never finish the connection (their signals after the offer, and the
// node's answers, go nowhere), enough of them to take every half-open inbound slot of a node
// and to keep sending fresh ones. An honest stranger still links: its offer evicts a slot
// chosen at random (webrtc-transport.ts evictPending), where refusing it kept it out for as
// long as the attacker held the slots. Real WebRTC: run under scripts/netns.sh.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomId } from '../core/node-id';
import { testNodeIdentity } from '../testing/node-identities';
import { strangerIdentity } from '../testing/stranger-identity';
import { directSignals, nodeTransport } from '../testing/webrtc-test-helpers';
import type { SignalBlob, SignalChannel } from './transport';
import type { WebRtcTransport } from './webrtc-transport';

const SLOTS = 4;
/** Attacker ids: more than the slots hold at 2 per id, so some always have an offer to send. */
const ATTACKERS = 6;
/** Each attacker id's fresh offer this often: ~3 a second into 4 slots. */
const OFFER_EVERY_MS = 2000;
const HONEST_DIAL_MS = 3000;
const HONEST_TRIES = 6;
/** Dials lost to libdatachannel's ICE race, not counted as tries (CI under load: 4 of 6 tries). */
const HONEST_ICE_REDIALS = 8;

const transports: WebRtcTransport[] = [];
afterEach(() => {
  for (const t of transports.splice(0)) t.close();
});

/** The attacker's signals: its offer reaches the node, nothing else does, and the node's replies are dropped. */
function offerOnly(from: WebRtcTransport, to: WebRtcTransport): SignalChannel {
  const nowhere: SignalChannel = { sendSignal: () => {} };
  return {
    sendSignal(_to, blob: SignalBlob) {
      if ((blob as { s?: { type?: string } }).s?.type !== 'offer') return;
      setTimeout(() => to.handleSignal(from.selfId, JSON.parse(JSON.stringify(blob)), nowhere), 0);
    },
  };
}

describe('inbound slots under an attacker with many keys', () => {
  it('an honest stranger links while attacker ids hold every half-open slot and keep offering', async () => {
    // The node's deadline for proving an id is long here: the slots are freed only by eviction.
    const node = await nodeTransport({ idWorkBits: 0, maxPendingInbound: SLOTS, pendingInboundTimeoutMs: 60_000 });
    transports.push(node);
    let attacking = true;
    const lanes: Promise<void>[] = [];
    for (let i = 0; i < ATTACKERS; i++) {
      const a = await nodeTransport({ identity: { ...(await testNodeIdentity()), id: randomId() }, idWorkBits: 0, dialTimeoutMs: OFFER_EVERY_MS + 500 });
      transports.push(a);
      lanes.push((async () => {
        while (attacking) {
          void a.dial(node.selfId, offerOnly(a, node)).catch(() => undefined);
          await new Promise((r) => setTimeout(r, OFFER_EVERY_MS));
        }
      })());
    }
    // Every slot taken before the honest stranger comes: waited for (each offer is a native
    // createOffer, slow on a loaded machine), not read once after a second.
    await vi.waitFor(() => expect(node.stats.inbound).toBeGreaterThanOrEqual(SLOTS), { timeout: 10_000, interval: 50 });

    const honest = await nodeTransport({ identity: await strangerIdentity(), idWorkBits: 0, dialTimeoutMs: HONEST_DIAL_MS });
    transports.push(honest);
    const errors: string[] = [];
    let linked = false;
    // libdatachannel now and then fails a dial under CPU load with "Got a remote candidate
    // without ICE transport" (webrtc-test-helpers.ts linkPair); the product redials such a
    // dial at once, so here it is a redial, not a try the attacker won (bounded apart).
    let iceRedials = 0;
    for (let i = 0; i < HONEST_TRIES && !linked; i++) {
      linked = await honest.dial(node.selfId, directSignals(honest, node)).then((l) => (l.close(), true), (e: Error) => (errors.push(e.message), false));
      if (!linked && /without ICE transport/.test(errors[errors.length - 1] ?? '') && iceRedials < HONEST_ICE_REDIALS) {
        iceRedials++;
        i--;
      }
    }
    attacking = false;
    console.log(`honest: ${errors.length} failed dials before ${linked ? 'linking' : 'giving up'} (${errors.join('; ')}); evicted ${node.stats.pendingEvicted}`);
    await Promise.all(lanes);
    expect(linked, `honest dials failed: ${errors.join('; ')}; node refused ${node.stats.badSignalsBy.slots} offers for slots, evicted ${node.stats.pendingEvicted}`).toBe(true);
    expect(node.stats.pendingEvicted).toBeGreaterThan(0);
  }, 40_000);
});
