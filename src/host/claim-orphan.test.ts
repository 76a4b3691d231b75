// A granter that still holds its grant of a claim that failed (its ABANDON lost, its
// claimant never claiming again) while another primary certified that same epoch: every
// later claim is built on that certificate, so none can list the orphan epoch as pending
// (it is not above the claimant's certificate), and the granter refused them all for ever
// ('pending eN'; safety seed 200 ended with no primary). The claim carries the certificate:
// the granter takes it, which drops every grant at or below its epoch (one certificate per
// epoch), and grants. And a grant that reaches its claimant after the round ended without a
// certificate (the ABANDON lost, or overtaking the CLAIM) is answered ABANDON again, so the
// granter need not hold the epoch open until the claimant claims again.
import { describe, expect, it } from 'vitest';
import { HostSim } from '../testing/host-sim';
import type { RegionCoord } from '../region/region-key';
import { encodeEntries } from '../region/region-state';

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

  it('a grant that comes after its claim ended without a certificate is answered ABANDON again', async () => {
    const sim = new HostSim({ seed: 4 });
    await sim.grow(10);
    await sim.editedRegion(R);
    const [claimant, granter] = sim.backupsOf(R) as [NonNullable<ReturnType<typeof sim.primaryOf>>, NonNullable<ReturnType<typeof sim.primaryOf>>];
    const cel = claimant.host.regionState(R)!.el;
    const before = cel.ownClaimed;
    // Cut off, the claimant takes its primary for dead and claims: no answer, the round
    // ends without a certificate, and its ABANDON reaches nobody.
    sim.net.partition([[claimant.dht.selfId], sim.live().filter((p) => p !== claimant).map((p) => p.dht.selfId)]);
    const until = sim.clock.now() + 10_000;
    while ((cel.ownClaimed === before || claimant.host.regionState(R)!.role === 'claiming') && sim.clock.now() < until) await sim.run(50);
    const e = cel.ownClaimed;
    expect(e).toBeGreaterThan(before);
    const abandons: number[] = [];
    granter.wire.replicas.events.on('frame', ({ fromHex, msg }) => {
      if (msg.t === 'ABANDON' && fromHex === claimant.hex) abandons.push(msg.e);
    });
    sim.net.heal();
    await sim.run(300);
    const heard = abandons.length;
    // The granter granted that claim (its CLAIM came after the ABANDON, or the ABANDON was
    // lost), and its grant comes now: the claimant says again that e is over, else the
    // granter holds the epoch open until the claimant claims again, if ever.
    granter.wire.replicas.send(claimant.dht.selfId, { t: 'GRANT', rx: R.rx, rz: R.rz, e, ok: true, promised: e, entries: encodeEntries([]), reqs: [] });
    await sim.run(300);
    expect(abandons.slice(heard)).toEqual([e]);
    expect(claimant.host.stats.abandonsResent).toBe(1);
    sim.stopAll();
  });
});
