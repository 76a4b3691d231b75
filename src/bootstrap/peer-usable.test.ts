// Peer.start resolves once the peer is usable (a link, its own id looked up), not once its
// whole join has ended: the real relay in this process and real node-datachannel links,
// loopback only (run inside scripts/netns.sh). A listed peer that never answers holds the
// rest of the join for the 15 s dial timeout; the joining peer is in use long before. Peers
// that have just left, still named by the one that stayed, hold its self-lookup no longer
// than the DHT's lookups wait for a silent candidate (dht/lookup.ts `giveUpMs`), not their
// RPC timeout.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../signaling/serve';
import type { Bootstrap } from '../net/bootstrap';
import { idToHex } from '../core/node-id';
import { networkId } from '../net/network-id';
import { connectRelay, type WebSocketCtor } from '../net/relay-bootstrap';
import { WEBRTC_DEFAULTS } from '../net/webrtc-transport';
import { testNodeIdentity } from '../testing/node-identities';
import { nodeDatachannelIceServers } from './headless-ice';
import { Peer, type JoinStage } from './peer';
import { DHT_DEFAULTS } from '../dht/dht-options';

const WS = WebSocket as unknown as WebSocketCtor;
const NETWORK = networkId('peer-usable', 'peer-usable');
let server: RunningServer;
const peers: Peer[] = [];
let silent: Bootstrap | undefined;

beforeAll(async () => {
  server = await startServer({ port: 0, relayOnly: true });
});
afterAll(async () => {
  for (const p of peers) p.stop();
  silent?.close();
  await server.close();
});

/**
 * The join's deadline, under the silent peer's dial timeout but well past the 4 s default: on
 * a loaded 2-core machine (load 18-20) B's link to A took longer than 4 s once, and B ended
 * its join alone; what is tested is that the start ends at the link, not at the silent dial.
 */
const JOIN_DEADLINE_MS = WEBRTC_DEFAULTS.dialTimeoutMs - 3000;

async function start(network = NETWORK): Promise<{ peer: Peer; ms: number; stages: Partial<Record<JoinStage, number>> }> {
  const t0 = performance.now();
  const stages: Partial<Record<JoinStage, number>> = {};
  const peer = await Peer.start({
    onStage: (stage) => (stages[stage] = performance.now()),
    identity: await testNodeIdentity(),
    network,
    records: {},
    doorways: [{ kind: 'relay', url: server.relayUrl }],
    WebSocket: WS,
    rtcConfig: { bindAddress: '127.0.0.1' },
    iceServersForRtc: nodeDatachannelIceServers,
    options: { joinDeadlineMs: JOIN_DEADLINE_MS },
  });
  peers.push(peer);
  return { peer, ms: performance.now() - t0, stages };
}

describe('Peer.start', () => {
  it('resolves at the first link and a self-lookup while a listed peer that never answers is still being dialled', { timeout: 40_000 }, async () => {
    const { peer: a } = await start();
    expect(a.failure?.kind).toBe('nobody-here');
    // Registered at the relay, so it is listed and dialled, but it answers no offer: its dial
    // ends only at the dial timeout.
    silent = await connectRelay({ url: server.relayUrl, identity: await testNodeIdentity(), network: NETWORK, WebSocket: WS });
    let offers = 0;
    silent.events.on('signal', () => offers++);
    const { peer: b, ms } = await start();
    expect(b.status, `${b.failure?.kind}: ${b.failure?.detail}`).toBe('online');
    expect(b.failure).toBeUndefined();
    expect(b.dht.linkInfo().map((l) => l.hex)).toEqual([a.id]);
    // B dials the silent peer beside A; its offer reaches the silent socket through the relay
    // on its own time, which a loaded machine may put after B's link to A.
    await vi.waitFor(() => expect(offers).toBeGreaterThan(0), { timeout: 5000, interval: 20 });
    // Before the silent peer's dial could have ended, so before the whole join could have.
    expect(ms).toBeLessThan(WEBRTC_DEFAULTS.dialTimeoutMs);
    const joining = await Promise.race([b.joined.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 0))]);
    expect(joining).toBe(true); // the rest of the join runs on
    // Usable: a lookup through the link names the other peer.
    expect((await b.dht.findNode(a.dht.selfId)).closest.map((c) => c.hex)).toContain(a.id);
    console.log(`Peer.start beside a listed peer that never answers: ${Math.round(ms)} ms (its dial times out at ${WEBRTC_DEFAULTS.dialTimeoutMs} ms)`);
  });

  it('is usable soon after its first link when peers the one it links to still names have just left', { timeout: 90_000 }, async () => {
    const world = networkId('peer-usable', 'left');
    const { peer: a } = await start(world);
    const namedByA = () => a.dht.closestContacts(a.dht.selfId, 20).map(idToHex);
    // Two peers a knows. Not the case under test: on a loaded machine a join's one dial
    // failed now and then (node-datachannel: 'Got a remote candidate without ICE transport'),
    // so a peer a has not come to name within 5 s is stopped and another one started.
    const gone: Peer[] = [];
    for (let tries = 0; gone.length < 2 && tries < 6; tries++) {
      const { peer: p } = await start(world);
      const known = await vi.waitFor(() => expect(namedByA()).toContain(p.id), { timeout: 5000 }).then(() => true, () => false);
      if (known) gone.push(p);
      else p.stop();
    }
    expect(gone).toHaveLength(2);
    // They leave (closed pages): a keeps them in its table, and names them, until it finds
    // them dead (the heartbeat timeout). The relay lists them no more once it has read their
    // sockets' closes (before, the newcomer could draw them instead of a, as in bdf2b24).
    const registered = server.relay.stats.registered;
    for (const p of gone) p.stop();
    await vi.waitFor(() => expect(server.relay.stats.registered).toBe(registered - 2), { timeout: 5000 });
    const named = namedByA();
    for (const p of gone) expect(named).toContain(p.id);
    // The newcomer: as above, a join whose one dial failed at once (node-datachannel) is
    // another case than this one, so it starts again (a names the gone ones for 15 s).
    let joined = await start(world);
    for (let tries = 1; joined.peer.status !== 'online' && tries < 3; tries++) {
      joined.peer.stop();
      joined = await start(world);
    }
    const { peer: d, stages } = joined;
    expect(d.status).toBe('online');
    expect(d.dht.linkInfo().map((l) => l.hex)).toContain(a.id);
    const afterLink = stages['dht-ready']! - stages['first-link']!;
    console.log(`Peer.start beside 2 peers that just left: usable ${Math.round(afterLink)} ms after its first link (RPC timeout ${DHT_DEFAULTS.rpcTimeoutMs} ms)`);
    // Waiting on the gone ones' RPC timeout, this was over 4 s.
    expect(afterLink).toBeLessThan(DHT_DEFAULTS.rpcTimeoutMs - 500);
  });
});
