// Item voters from a certificate the host only learnt, as an attacker with two keys would try
// it: a host holding no certificate of a region learns any validly signed one (docs/TRUST.md
// rule 3) and follows the primary of a SYNC that names it a host. Its items then voted in that
// certificate's host set: the attacker's two keys and itself, the attacker's keys a majority,
// so their signatures alone proved a decision (one-of-a-kind items, carries) to it. A voter
// set is built only from a certificate the host anchored (region-items.ts `follow`).
import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import { encodeEntries } from '../region/region-state';
import { simKeyHash } from '../testing/host-sim';
import { ItemHostSim } from '../testing/item-host-sim';
import { Attacker, rankOf } from '../testing/sybil-scenario';

describe('item voters from a learnt certificate (simulated, an attacker with two keys)', () => {
  for (const seed of [51, 52]) {
    it(`a host that learnt a SYNC's certificate naming it beside two attacker keys follows it but builds no voter set from it (seed ${seed})`, async () => {
      const sim = new ItemHostSim({ seed });
      await sim.grow(8);
      const rogue = await sim.add();
      const atk = new Attacker(sim, rogue, 1, seed, false);
      // A region nobody visited whose key the rogue is not near: no reader anchors its keys there.
      const keys = new RegionKeys(sim.world, simKeyHash);
      let C: RegionCoord | undefined, keyC;
      for (let i = 0; i < 64 && !C; i++) {
        const r = { rx: 4 + (i % 8), rz: 4 + Math.floor(i / 8) }, key = await keys.key(r);
        if (rankOf(sim, rogue, key) >= 4) [C, keyC] = [r, key];
      }
      if (!C || !keyC) throw new Error('no far region');
      const name = regionName(C);
      const target = sim.live().find((p) => p !== rogue && !p.host.knownRegions().some((r) => r.name === name))!;
      // Epoch 3 over the target and the attacker's two keys, granted by those two: a majority
      // of its hosts and of the "previous" set they name.
      const [k0, k1] = atk.keys;
      const cert = await atk.mint(keyC, { e: 3, primary: atk.id, hosts: [hexToId(target.hex), k0!.id, k1!.id], prev: { e: 2, hosts: [k0!.id, k1!.id] } });
      rogue.wire.replicas.send(hexToId(target.hex), { t: 'SYNC', ...C, e: 3, s: 0, hosts: cert.hosts, entries: encodeEntries([]), cert });
      await sim.run(1000);

      // The SYNC reached the target and it follows the certificate, held as learnt (rule 3):
      // without this the test would pass on a frame dropped for another reason.
      const region = target.host.knownRegions().find((r) => r.name === name);
      expect(region?.cert?.e, 'the target holds the SYNC certificate').toBe(3);
      expect(region?.el.learnt, 'held as learnt').toBeDefined();
      // (It followed the rogue; the rogue sends nothing more, so by now it may claim.)
      expect(['backup', 'claiming'], 'following the rogue').toContain(region?.role);
      // Its items run for the region (it hosts it) and took no voter set from the certificate.
      const items = sim.items.get(target.hex)!.host.region(name);
      expect(items, 'the target runs the region items').toBeDefined();
      expect(items!.setOf(3)?.ids, 'no voter set from a learnt certificate').toBeUndefined();
      expect(items!.setOf(2)?.ids, 'nor from its previous set').toBeUndefined();
      sim.stopAll();
    });
  }
});
