// A granter that still holds its grant of a claim that failed (its ABANDON lost, its
// claimant never claiming again) while another primary certified that same epoch: every
// later claim is built on that certificate, so none can list the orphan epoch as pending
// (it is not above the claimant's certificate), and the granter refused them all for ever
// ('pending eN'; safety seed 200 ended with no primary). The claim carries the certificate:
// the granter takes it, which drops every grant at or below its epoch (one certificate per
// epoch), and grants.
import { describe, expect, it } from 'vitest';
import { HostSim } from '../testing/host-sim';
import type { RegionCoord } from '../region/region-key';

const R: RegionCoord = { rx: 2, rz: 2 };

describe('a grant orphaned by a lost ABANDON (simulated)', () => {
  it('is dropped when a claim brings the certificate of its epoch, and the region gets a primary', async () => {
    const sim = new HostSim({ seed: 4 });
    await sim.grow(10);
    await sim.editedRegion(R);
    const primaryOf = () => sim.primariesOf(R)[0];
    const waitPrimary = async (ms: number) => {
      const until = sim.clock.now() + ms;
      while (!primaryOf() && sim.clock.now() < until) await sim.run(50);
      return primaryOf();
    };
    const first = primaryOf()!;
    const older = first.host.regionState(R)!.el.cert!;
    sim.kill(first.hex);
    const second = (await waitPrimary(5000))!;
    expect(second).toBeDefined();
    await sim.run(2500);
    const cert = second.host.regionState(R)!.el.cert!;
    expect(cert.e).toBeGreaterThan(older.e);
    const backups = sim.backupsOf(R);
    expect(backups).toHaveLength(2);
    const [holder, claimant] = backups as [typeof second, typeof second];
    const [o1, o2] = sim.live().filter((p) => p !== holder && p !== claimant && p !== second);
    // The holder granted another claimant's claim of the certified epoch, over another set,
    // and never saw the certificate; its own claims are held back, so the other backup claims.
    const el = holder.host.regionState(R)!.el;
    el.cert = older;
    el.accepted = [{ e: cert.e, hosts: [holder.dht.selfId, o1!.dht.selfId, o2!.dht.selfId], p: o1!.dht.selfId }];
    el.defer(Infinity);
    sim.kill(second.hex);
    const third = await waitPrimary(5000);
    expect(third, 'a primary within 5 s of the death').toBe(claimant);
    expect(el.accepted.filter((q) => q.e <= cert.e)).toEqual([]);
    expect(sim.doublePrimaries()).toEqual([]);
    sim.stopAll();
  });
});
