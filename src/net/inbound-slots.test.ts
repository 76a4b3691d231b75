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

/** The attacker's offer, made now and held: `release` delivers it to the node (whose replies go nowhere). */
function heldOffer(from: WebRtcTransport, to: WebRtcTransport): SignalChannel & { ready: () => boolean; release: () => void } {
  const nowhere: SignalChannel = { sendSignal: () => {} };
  let offer: SignalBlob | undefined;
  return {
    sendSignal(_to, blob: SignalBlob) {
      if ((blob as { s?: { type?: string } }).s?.type === 'offer') offer ??= JSON.parse(JSON.stringify(blob)) as SignalBlob;
    },
    ready: () => offer !== undefined,
    release: () => offer && to.handleSignal(from.selfId, offer, nowhere),
  };
}

/** An honest dial told of its eviction must link well within its own timeout. */
const TOLD_DIAL_MS = 8000;
const TOLD_BOUND_MS = 5000;
const BURST = 8;

describe('inbound slots under an attacker with many keys', () => {
  // The node's one half-open slot holds the honest dial's connection when 8 attacker ids'
  // offers come at once: the first evicts it (the only one), each next one the one before.
  // Told (an evicted signal back through the channel its offer came by), the dial offers
  // again within a second, evicts the last attacker's and links; untold, it waited out its
  // timeout (dial timed out after 8 s).
  it('an honest dial whose half-open connection is evicted is told and offers again', async () => {
    const node = await nodeTransport({ idWorkBits: 0, maxPendingInbound: 1, pendingInboundTimeoutMs: 60_000 });
    transports.push(node);
    const held: ReturnType<typeof heldOffer>[] = [];
    for (let i = 0; i < BURST; i++) {
      const a = await nodeTransport({ identity: { ...(await testNodeIdentity()), id: randomId() }, idWorkBits: 0, dialTimeoutMs: 30_000 });
      transports.push(a);
      const ch = heldOffer(a, node);
      held.push(ch);
      void a.dial(node.selfId, ch).catch(() => undefined);
    }
    await vi.waitFor(() => expect(held.every((h) => h.ready())).toBe(true), { timeout: 10_000 });
    const honest = await nodeTransport({ identity: await strangerIdentity(), idWorkBits: 0, dialTimeoutMs: TOLD_DIAL_MS });
    transports.push(honest);
    let struck = false;
    // The burst right after the node took the honest offer (this hook runs before the
    // offer's own delivery is queued: a turn later, it is queued behind it).
    const signals = directSignals(honest, node, (b) => {
      if (!struck && (b as { s?: { type?: string } }).s?.type === 'offer') {
        struck = true;
        setTimeout(() => setTimeout(() => held.forEach((h) => h.release()), 0), 0);
      }
      return b;
    });
    const t0 = performance.now();
    const dial = () => honest.dial(node.selfId, signals).then((l) => (l.close(), 'linked'), (e: Error) => e.message);
    let outcome = await dial();
    // libdatachannel refuses a trickled candidate now and then under load, whoever dials
    // (webrtc-test-helpers.ts linkPair): one dial again, as the DHT would, within the bound.
    if (/without ICE transport/.test(outcome)) {
      console.warn(`told: dial again after "${outcome}"`);
      outcome = await dial();
    }
    const ms = Math.round(performance.now() - t0);
    console.log(`told: ${outcome} in ${ms} ms; node evicted ${node.stats.pendingEvicted}, honest offered again ${honest.stats.evictedRedials} times`);
    expect(node.stats.pendingEvicted, 'the burst evicted the honest connection and each other').toBeGreaterThanOrEqual(BURST);
    expect(outcome).toBe('linked');
    expect(honest.stats.evictedRedials).toBeGreaterThanOrEqual(1);
    expect(ms).toBeLessThan(TOLD_BOUND_MS);
  }, 30_000);

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
    // Every slot taken before the honest stranger comes.
    await new Promise((r) => setTimeout(r, 1000));
    expect(node.stats.inbound).toBeGreaterThanOrEqual(SLOTS);

    const honest = await nodeTransport({ identity: await strangerIdentity(), idWorkBits: 0, dialTimeoutMs: HONEST_DIAL_MS });
    transports.push(honest);
    const errors: string[] = [];
    let linked = false;
    for (let i = 0; i < HONEST_TRIES && !linked; i++) {
      linked = await honest.dial(node.selfId, directSignals(honest, node)).then((l) => (l.close(), true), (e: Error) => (errors.push(e.message), false));
    }
    attacking = false;
    console.log(`honest: ${errors.length} failed dials before ${linked ? 'linking' : 'giving up'} (${errors.join('; ')}); evicted ${node.stats.pendingEvicted}`);
    await Promise.all(lanes);
    expect(linked, `honest dials failed: ${errors.join('; ')}; node refused ${node.stats.badSignalsBy.slots} offers for slots, evicted ${node.stats.pendingEvicted}`).toBe(true);
    expect(node.stats.pendingEvicted).toBeGreaterThan(0);
  }, 40_000);
});
