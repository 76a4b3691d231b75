// A subscriber's item voters after a capture: a player whose region client once showed an
// attacker's certificate of the region (outside the limit of docs/TRUST.md: two attacker ids
// among the nearest a fresh subscriber finds) and then the honest chain's certificate of the
// same epoch (a fork: both chains numbered alike). The items view followed the host set only
// when its epoch changed, so it kept the attacker's voters and hosts for that epoch: the honest
// hosts' ledger state was refused as not from a host, and proofs were checked against the
// attacker's set. Here the region client is the player's own, but for the captured moment,
// when it names the attacker's set (what a captured client's `hostSet` says).
import { describe, expect, it } from 'vitest';
import { idToHex, type NodeId } from '../core/node-id';
import type { RegionCoord } from '../region/region-key';
import { ItemHostSim } from '../testing/item-host-sim';
import { Attacker } from '../testing/sybil-scenario';
import { PlayerItems } from './player-items';

const REGION = { rx: 0, rz: 0 };

describe("a captured subscriber's item voters (simulated, an attacker with two keys)", () => {
  for (const seed of [61, 62]) {
    it(`once the honest set of the same epoch reaches it, its items follow the honest hosts and take their ledger (seed ${seed})`, async () => {
      const sim = new ItemHostSim({ seed, spawnMeanMs: 1500 });
      await sim.grow(8);
      const { a, item } = await sim.twoPlayersAndAnItem();
      const rogue = await sim.add();
      const atk = new Attacker(sim, rogue, 1, seed, false);
      const honest = a.peer.client.hostSet(REGION);
      expect(honest, 'the player is attached to the region').toBeDefined();
      // The attacker's set of the honest epoch: its two keys and one honest host.
      const forged = { epoch: honest!.epoch, hosts: [atk.keys[0]!.id, atk.keys[1]!.id, honest!.hosts[0]!], primary: atk.id };
      let captured = true;
      const client = {
        subscribed: () => a.peer.client.subscribed(),
        hostSet: (c: RegionCoord) => (captured ? forged : a.peer.client.hostSet(c)),
      };
      const watcher = new PlayerItems({ client, wire: a.wire, self: a.peer.hex, signer: a.signer, seed: sim.world, clock: sim.clock, world: a.clock, verify: sim.keyring.verify });
      watcher.start();
      watcher.standAt(item.x, item.z);
      const hexes = (ids: readonly NodeId[]) => ids.map(idToHex).filter((h) => h !== a.peer.hex).sort();
      await sim.run(1000);
      expect(watcher.clockReferences().sort(), 'captured: the attacker set').toEqual(hexes(forged.hosts));

      // The honest chain reaches the region client, at the same epoch.
      captured = false;
      const now = a.peer.client.hostSet(REGION)!;
      expect(now.epoch, 'no failover meanwhile: the same epoch').toBe(forged.epoch);
      await sim.run(1000);
      expect(watcher.clockReferences().sort(), 'the honest hosts').toEqual(hexes(now.hosts));
      // The honest hosts' ledger state (sent to subscribers at least every 20 s) is taken, proofs and all.
      for (let i = 0; i < 30 && !watcher.items().some((x) => x.id === item.id); i++) await sim.run(1000);
      expect(watcher.items().map((x) => x.id), 'the honest ledger shown').toContain(item.id);
      watcher.stop();
      sim.stopAll();
    });
  }
});
