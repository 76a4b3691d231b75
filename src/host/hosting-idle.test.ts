// A region nobody watches or edits beats slowly; its backups wait for that, and it wakes
// at the first subscriber; a primary that dies while idle is still replaced.
import { describe, expect, it } from 'vitest';
import { STONE } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { CLAIM_TIMEOUT_MS } from './claim-round';
import { SUBSCRIBER_TTL_MS } from './primary-heartbeat';

const REGION = { rx: 0, rz: 0 };
const beats = (ps: SimPeer[]) => ps.reduce((n, p) => n + p.host.stats.heartbeats, 0);
const claims = (ps: SimPeer[]) => ps.reduce((n, p) => n + p.host.stats.claims, 0);

/** Ten peers; `a` subscribed to the region and one block placed; `b` another peer. */
async function editedRegion(seed: number): Promise<{ sim: HostSim; a: SimPeer; b: SimPeer }> {
  const sim = new HostSim({ seed });
  await sim.grow(10);
  const [a, b] = [sim.pick(), sim.pick()];
  await sim.settle(a.client.subscribe(REGION));
  await sim.settle(a.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
  return { sim, a, b };
}

describe('idle regions (simulated)', () => {
  it('beat slowly while idle, wake at the first subscriber, and still fail over', async () => {
    const { sim, a, b } = await editedRegion(5);
    const o = a.host.opts;

    // Busy: 2 backups x 4 beats/s.
    let t0 = beats(sim.live());
    await sim.run(10_000);
    const busyRate = (beats(sim.live()) - t0) / 10;
    expect(busyRate).toBeGreaterThanOrEqual(7);

    // Nobody subscribed: idle after idleAfterMs (plus the subscriber's TTL).
    const held = a.client.state(REGION)!.size;
    expect(held).toBeGreaterThan(0);
    a.client.unsubscribe(REGION);
    await sim.run(o.idleAfterMs + SUBSCRIBER_TTL_MS + 1000);
    t0 = beats(sim.live());
    const c0 = claims(sim.live());
    await sim.run(30_000);
    const idleRate = (beats(sim.live()) - t0) / 30;
    expect(idleRate).toBeLessThanOrEqual(2 * (1000 / o.idleHeartbeatMs) + 0.1);
    expect(claims(sim.live())).toBe(c0); // the backups did not take the slow beat for a death

    // A subscriber wakes it: its edit is confirmed and the beat is back to normal.
    await sim.settle(b.client.subscribe(REGION));
    expect(b.client.state(REGION)!.size).toBe(held);
    await sim.settle(b.client.submit(7, 71, 7, STONE, { x: 5, y: 70, z: 5 }));
    t0 = beats(sim.live());
    await sim.run(5000);
    expect((beats(sim.live()) - t0) / 5).toBeGreaterThanOrEqual(7);

    // Idle again, then its primary dies without closing its links (a killed browser): a
    // backup takes over within failover + two idle beats + stagger + one claim.
    b.client.unsubscribe(REGION);
    await sim.run(o.idleAfterMs + SUBSCRIBER_TTL_MS + 1000);
    const primary = sim.primaryOf('0,0')!;
    const primaryHex = primary.hex;
    sim.kill(primaryHex);
    const bound = o.failoverMs + 2 * o.idleHeartbeatMs + 2 * o.claimStaggerMs + CLAIM_TIMEOUT_MS + o.heartbeatMs;
    await sim.run(bound);
    const next = sim.primariesOf('0,0');
    expect(next).toHaveLength(1);
    expect(next[0]!.host.regionState(REGION)!.state.size).toBe(2);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});

describe('idle regions unload (simulated)', () => {
  const hostsOf = (ps: SimPeer[]) => ps.filter((p) => p.host.regionState(REGION)?.role === 'primary' || p.host.regionState(REGION)?.role === 'backup');

  it('are unloaded by all their hosts, cost nothing, and come back from the stores at the next subscriber', async () => {
    const { sim, a, b } = await editedRegion(7);
    await sim.settle(a.client.submit(7, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
    const o = a.host.opts;
    const hosts = hostsOf(sim.live());
    expect(hosts).toHaveLength(3);
    const e0 = hosts[0]!.host.regionState(REGION)!.epoch;
    a.client.unsubscribe(REGION);

    // Idle, then unloaded everywhere: no host remembers it, and it costs no beat, tick or claim.
    await sim.run(SUBSCRIBER_TTL_MS + o.unloadAfterMs + 30_000);
    expect(sim.live().filter((p) => p.host.regionState(REGION))).toEqual([]);
    expect(hosts.reduce((n, p) => n + p.host.stats.unloads, 0)).toBe(3);
    const [t0, c0, k0] = [beats(sim.live()), claims(sim.live()), sim.live().reduce((n, p) => n + p.host.stats.ticks, 0)];
    await sim.run(60_000);
    expect([beats(sim.live()), claims(sim.live()), sim.live().reduce((n, p) => n + p.host.stats.ticks, 0)]).toEqual([t0, c0, k0]);

    // Someone comes back: the region is read back from the hosts' stores and certified anew.
    await sim.settle(b.client.subscribe(REGION));
    expect(b.client.state(REGION)!.size).toBe(2);
    await sim.settle(b.client.submit(8, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
    const back = hostsOf(sim.live());
    expect(back.length).toBeGreaterThanOrEqual(2);
    expect(back.reduce((n, p) => n + p.host.stats.reloads, 0)).toBeGreaterThanOrEqual(2);
    expect(Math.min(...back.map((p) => p.host.regionState(REGION)!.epoch))).toBeGreaterThan(e0);
    expect(sim.doublePrimaries()).toEqual([]);

    // Unloaded again, then its last primary dies silently: the others' stores still bring it back.
    const last = back.find((p) => p.host.roles().primary.includes('0,0'))!;
    b.client.unsubscribe(REGION);
    await sim.run(SUBSCRIBER_TTL_MS + o.unloadAfterMs + 30_000);
    expect(sim.live().filter((p) => p.host.regionState(REGION))).toEqual([]);
    sim.kill(last.hex);
    const c = sim.live().find((p) => p !== a && p !== b)!;
    await sim.settle(c.client.subscribe(REGION));
    expect(c.client.state(REGION)!.size).toBe(3);
    await sim.settle(c.client.submit(9, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
