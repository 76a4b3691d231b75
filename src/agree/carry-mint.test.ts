// Minting an item through a carry, as an attacker with two keys would try it: it makes up a
// region's authority (a certificate of a region nobody visited, granted by its own two keys,
// published as that region's DHT location record), signs a tombstone of a star "carried out"
// of that region with the same two keys (a majority of the set its certificate names), and
// brings it into a live region as the star's owner. The voters of the live region check the
// tombstone against the carried-from region's host set as *they* can anchor it (near the key:
// docs/TRUST.md rule 2, agree/host-items.ts `certifiedSets`), not the set the record names.
import { describe, expect, it } from 'vitest';
import { hexToId } from '../core/node-id';
import { ProofSigner } from '../agree/decision-proof';
import type { Item } from '../agree/item-ledger';
import { signOwnerRequest } from '../agree/owner-request';
import { NOBODY_NEAR } from '../dht/near-view';
import { CertChecker } from '../region/cert-checker';
import { RegionKeys, regionName, type RegionCoord } from '../region/region-key';
import { getLocation, putLocation } from '../region/region-records';
import { simKeyHash } from '../testing/host-sim';
import { ItemHostSim } from '../testing/item-host-sim';
import { Attacker, rankOf } from '../testing/sybil-scenario';

const B = { rx: 1, rz: 0 };

describe('minting an item through a carry (simulated, an attacker with two keys)', () => {
  for (const seed of [41, 42]) {
    it(`a star carried out of a region whose authority the attacker made up is refused, and no voter of the live region takes it (seed ${seed})`, async () => {
      const sim = new ItemHostSim({ seed });
      await sim.grow(8);
      const rogue = await sim.add();
      const atk = new Attacker(sim, rogue, 1, seed, false);
      const owner = sim.items.get(rogue.hex)!;
      const player = sim.items.get(sim.live().find((p) => p !== rogue)!.hex)!;
      // A region nobody visited whose key the rogue is not near (its keys cannot anchor there).
      const keys = new RegionKeys(sim.world, simKeyHash);
      let C: RegionCoord | undefined, keyC;
      for (let i = 0; i < 64 && !C; i++) {
        const r = { rx: 4 + (i % 8), rz: 4 + Math.floor(i / 8) }, key = await keys.key(r);
        if (rankOf(sim, rogue, key) >= 4) [C, keyC] = [r, key];
      }
      if (!C || !keyC) throw new Error('no far region');
      const cName = regionName(C);
      // The live region B, held by honest hosts; the owner and a player stand in it.
      const spot = { x: 70.5, y: 70, z: 20.5 };
      await sim.settle(Promise.all([owner.peer.client.subscribe(B), player.peer.client.subscribe(B)]));
      for (let i = 0; i < 4; i++) {
        sim.stand(owner.peer.hex, spot);
        sim.stand(player.peer.hex, { ...spot, x: spot.x + 2 });
        await sim.run(250);
      }
      const primaryB = sim.primaryItemPeer(regionName(B));
      expect(primaryB, 'region 1,0 has a primary').toBeDefined();

      // The made-up authority of C, published: a reader that learns (rule 3) takes it, so the
      // record reaches B's voters; only their anchor can refuse it.
      const cert = await atk.mintAt(keyC, 2, 1);
      await sim.settle(putLocation(rogue.dht, keyC, { signer: atk.keys[0]!, cert }, 1));
      await sim.run(500);
      const rv = { certs: new CertChecker(sim.keyring.verify, NOBODY_NEAR), verify: sim.keyring.verify, hash: simKeyHash };
      const learnt = await sim.settle(getLocation(primaryB!.peer.dht, keyC, rv, 'learn'));
      expect(learnt?.cert.e, 'the forged location record is there to be read').toBe(1);

      // The tombstone of star-0 carried out of C to B, "proven" by the two keys of C's set.
      const bare: Item = { id: 'star-0', kind: 'star', x: C.rx * 64 + 5.5, y: 70, z: C.rz * 64 + 5.5, at: 1, owner: rogue.hex, gen: 1, away: regionName(B) };
      const area = { ax: C.rx, az: C.rz }, vote = `carry:star-0:1`;
      const sigs = await Promise.all(atk.keys.slice(0, 2).map((k) => new ProofSigner(k).sign(area, 1, vote, 0, bare)));
      const rec: Item = { ...bare, proof: { e: 1, vote, round: 0, sigs } };
      const before = primaryB!.host.stats.unprovenCarry;
      for (let r = 1; r <= 3; r++) {
        const req = await signOwnerRequest(owner.signer, { ax: B.rx, az: B.rz }, { kind: 'arrive', item: rec.id, gen: rec.gen, p: spot, from: cName }, r, owner.clock.now());
        owner.wire.send(hexToId(primaryB!.peer.hex), { t: 'ITEM_BRING', ...B, ...req, from: { ...C, rec }, ...spot });
        await sim.run(1500);
      }
      expect(primaryB!.host.stats.unprovenCarry - before, 'arrivals refused as unproven').toBe(3);
      for (const h of sim.hostLedgers(regionName(B))) expect(h.items!.ledger.item('star-0'), `star-0 at host ${h.hex.slice(0, 6)}`).toBeUndefined();
      expect(player.player.onGround().map((i) => i.id)).not.toContain('star-0');
      expect(owner.player.inventory().map((i) => i.id)).not.toContain('star-0');
      sim.stopAll();
    });
  }
});
