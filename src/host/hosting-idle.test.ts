// A region nobody watches or edits beats slowly; its backups wait for that, and it wakes
// at the first subscriber; a primary that dies while idle is still replaced.
import { describe, expect, it } from 'vitest';
import { STONE } from '../world/blocks';
import { HostSim, type SimPeer } from '../testing/host-sim';

const REGION = { rx: 0, rz: 0 };
const beats = (ps: SimPeer[]) => ps.reduce((n, p) => n + p.host.stats.heartbeats, 0);
const claims = (ps: SimPeer[]) => ps.reduce((n, p) => n + p.host.stats.claims, 0);

describe('idle regions (simulated)', () => {
  it('beat slowly while idle, wake at the first subscriber, and still fail over', async () => {
    const sim = new HostSim({ seed: 5 });
    await sim.grow(10);
    const [a, b] = [sim.pick(), sim.pick()];
    await sim.settle(a.client.subscribe(REGION));
    await sim.settle(a.client.submit(6, 71, 6, STONE, { x: 5, y: 70, z: 5 }));
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
    await sim.run(o.idleAfterMs + o.subscriberTtlMs + 1000);
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
    await sim.run(o.idleAfterMs + o.subscriberTtlMs + 1000);
    const primary = sim.live().find((p) => p.host.roles().primary.includes('0,0'))!;
    const primaryHex = primary.hex;
    sim.kill(primaryHex);
    const bound = o.failoverMs + 2 * o.idleHeartbeatMs + 2 * o.claimStaggerMs + o.claimTimeoutMs + o.heartbeatMs;
    await sim.run(bound);
    const next = sim.live().filter((p) => p.host.roles().primary.includes('0,0'));
    expect(next).toHaveLength(1);
    expect(next[0]!.host.regionState(REGION)!.state.size).toBe(2);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
