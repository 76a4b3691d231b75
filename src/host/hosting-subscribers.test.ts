// Subscribers per region are bounded (`maxSubscribers`, 512): throwaway ids that SUBSCRIBE
// and never come back cannot make a primary (or a claimant) keep more, the players already
// subscribed keep being served, and a new player past the cap hears `full` and backs off
// instead of spinning, then attaches once the throwaway ones expired.
import { describe, expect, it } from 'vitest';
import { randomId, type NodeId } from '../core/node-id';
import { seededRandom } from '../core/seeded-random';
import { CHANNELS } from '../dht/app-channels';
import { subscriptionCodec } from '../region/subscription-messages';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { STONE } from '../world/blocks';
import { HOST_DEFAULTS } from './host-options';
import { SUBSCRIBER_TTL_MS } from './primary-heartbeat';

const CAP = HOST_DEFAULTS.maxSubscribers;
/**
 * The primary's test runs with a lower cap: every subscriber gets a HEARTBEAT 10 times a
 * second, and 512 throwaway ones (routed, unlinked) in an 8-node network made the
 * primary's neighbours close its links for flooding (docs/BOUNDS.md, "subscriber beats").
 */
const SMALL_CAP = 48;

/** SUBSCRIBEs from `n` throwaway ids, as they arrive at `to`'s region channel. */
function flood(to: SimPeer, region: { rx: number; rz: number }, n: number, seed: number, host: boolean): void {
  const rand = seededRandom(seed);
  const frame = subscriptionCodec.encode({ t: 'SUBSCRIBE', ...region, host });
  const body = new Uint8Array(frame.length + 1);
  body[0] = CHANNELS.region;
  body.set(frame, 1);
  for (let i = 0; i < n; i++) {
    const from: NodeId = randomId(rand);
    to.dht.events.emit('message', { from, body });
  }
}

/** Lets the region's frame dispatch (after the region key's promise) run, without moving the clock. */
const dispatched = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('subscribers per region (simulated)', () => {
  it('a primary keeps at most maxSubscribers; its players are still served; a new one backs off, then attaches once the throwaway ones expired', async () => {
    const sim = new HostSim({ seed: 11, host: { maxSubscribers: SMALL_CAP } });
    await sim.grow(8);
    const [a, b] = [sim.pick(), sim.pick()];
    const R = { rx: 0, rz: 0 };
    await sim.settle(Promise.all([a.client.subscribe(R), b.client.subscribe(R)]));
    await sim.run(10_000); // the host set settled (a new epoch over other hosts starts with no subscribers)
    const p = sim.primaryOf('0,0')!;
    const duty = () => p.host.regionState(R)!.duty!;
    const before = duty().subscribers.size;
    const epoch = p.host.regionState(R)!.epoch;

    flood(p, R, SMALL_CAP + 300, 5, false);
    await dispatched();
    expect(duty().subscribers.size).toBe(SMALL_CAP);
    expect(p.host.stats.subscribersRefused).toBe(before + 300);

    // The players subscribed before the flood keep their place (keepalives) and get edits.
    const stamp = await sim.settle(a.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
    await sim.run(500);
    expect(b.client.state(R)!.get(b.client.state(R)!.all().find((e) => e.id === STONE)!.key)?.id).toBe(STONE);
    expect(stamp.e).toBeGreaterThan(0);

    // A new player hears `full`: it asks again every ALONE_RETRY_MS (3 s), not at once.
    const c = sim.live().find((x) => x !== a && x !== b && x !== p)!;
    const refusedBefore = p.host.stats.subscribersRefused;
    void c.client.subscribe(R);
    await sim.run(10_000);
    expect(c.client.stats.full).toBeGreaterThanOrEqual(2);
    expect(c.client.stats.full).toBeLessThanOrEqual(5);
    expect(p.host.stats.subscribersRefused - refusedBefore).toBe(c.client.stats.full);
    expect(p.host.regionState(R)!.epoch).toBe(epoch);
    expect(c.client.attachment(R)).toBeUndefined();
    expect(duty().subscribers.size).toBe(SMALL_CAP);

    // The throwaway ids never come back: after SUBSCRIBER_TTL_MS they are gone and c gets in.
    await sim.run(SUBSCRIBER_TTL_MS + 5000);
    expect(c.client.attachment(R)).toBeDefined();
    expect(duty().subscribers.size).toBe(before + 1);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });

  it('a claimant keeps at most maxSubscribers (512) waiting for its claim', async () => {
    expect(CAP).toBeGreaterThanOrEqual(200); // the crowd target: 200 players in one region
    const sim = new HostSim({ seed: 12 });
    await sim.grow(6);
    const q = sim.pick();
    const R = { rx: 7, rz: -3 };
    flood(q, R, CAP + 200, 6, true);
    await dispatched();
    const region = q.host.regionState(R)!;
    expect(region.role).toBe('claiming');
    expect(region.waiting.size).toBe(CAP);
    expect(q.host.stats.subscribersRefused).toBe(200);
    sim.stopAll();
  });
});
