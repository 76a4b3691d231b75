// A node alone cannot certify an epoch: its player hears so at once (edits fail as
// 'uncertified', to be kept tentative by play/), the region's view stops waiting, and
// once a second node is there the region is certified and edits confirm.
import { describe, expect, it } from 'vitest';
import { HostSim } from '../testing/host-sim';
import { EditRejectedError } from '../play/region-client';

describe('a node alone (simulated)', () => {
  it('says uncertified within a second or two, then certifies once a second node comes', async () => {
    const sim = new HostSim({ seed: 4 });
    const a = await sim.add();
    const R = { rx: 0, rz: 0 };
    const t0 = sim.clock.now();
    await sim.settle(a.client.subscribe(R), 10_000); // ready (not attached): nothing to wait for
    expect(sim.clock.now() - t0).toBeLessThan(3000);
    const err = await sim.settle(a.client.submit(3, 100, 3, 9, { x: 3, y: 100, z: 5 }).then(() => null, (e: unknown) => e), 10_000);
    expect(err).toBeInstanceOf(EditRejectedError);
    expect((err as EditRejectedError).reason).toBe('uncertified');
    expect(a.host.stats.claimsWon).toBe(0);
    expect(a.host.stats.uncertifiable).toBeGreaterThan(0);
    // Claims do not spin while alone.
    const claims = a.host.stats.claims;
    await sim.run(10_000);
    expect(a.host.stats.claims - claims).toBeLessThan(10);

    await sim.add();
    let stamp;
    for (let i = 0; i < 20 && !stamp; i++) {
      stamp = await sim.settle(a.client.submit(3, 100, 3, 9, { x: 3, y: 100, z: 5 }).catch(() => undefined), 10_000);
      if (!stamp) await sim.run(1000);
    }
    expect(stamp).toBeDefined();
    expect(a.client.state(R)!.get(stamp ? a.client.state(R)!.all()[0]!.key : -1)?.id).toBe(9);
    sim.stopAll();
  });
});
