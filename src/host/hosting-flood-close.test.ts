// A link closed by the DHT's flood guard (link-set.ts: more frames than its rate limit) between
// a region's primary and a backup is no death: both nodes are alive and answer by other
// routes. In a crowd of 200 the players' MOVEs, converging on the primary through its nearest
// neighbours (its backups), met the limit; the backup took the closed link for its primary's
// death and claimed, and the primary moved to a new host set with nobody killed: every
// subscriber to a new epoch (docs/HOSTING.md "Host-set changes with nobody killed").
import { describe, expect, it } from 'vitest';
import { HostSim, type SimPeer } from '../testing/host-sim';

const R = { rx: 0, rz: 0 };
const NAME = '0,0';

async function hostedRegion(seed: number) {
  const sim = new HostSim({ seed });
  await sim.grow(8);
  const player = sim.live()[0]!;
  await sim.settle(player.client.subscribe(R));
  await sim.run(2000);
  const primary = sim.primaryOf(NAME)!;
  const backups = sim.live().filter((p) => p.host.roles().backup.includes(NAME));
  expect(primary).toBeDefined();
  expect(backups).toHaveLength(2);
  return { sim, player, primary, backups };
}

const epoch = (p: SimPeer) => p.host.regionState(R)!.epoch;

describe('a link closed for flood between hosts (simulated)', () => {
  for (const closer of ['backup', 'primary'] as const) {
    it(`closed by the ${closer}: no claim, no new host set, the player stays attached`, async () => {
      const { sim, player, primary, backups } = await hostedRegion(closer === 'backup' ? 11 : 12);
      const e = epoch(primary);
      const claims = sim.live().reduce((n, p) => n + p.host.stats.claimsWon, 0);
      const [a, b] = closer === 'backup' ? [backups[0]!, primary] : [primary, backups[0]!];
      a.dht.links.close(b.hex, 'flood');
      await sim.run(5000);
      expect(primary.host.roles().primary).toContain(NAME);
      expect(epoch(primary)).toBe(e);
      for (const x of backups) expect(x.host.roles().backup, x.hex.slice(0, 6)).toContain(NAME);
      expect(sim.live().reduce((n, p) => n + p.host.stats.claimsWon, 0)).toBe(claims);
      expect(sim.live().reduce((n, p) => n + p.host.stats.reconfigs, 0)).toBe(0);
      expect(player.client.attachment(R)?.epoch).toBe(e);
      sim.stopAll();
    }, 60_000);
  }
});
