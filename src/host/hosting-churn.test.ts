// Random edits under random host churn: every confirmed edit survives on every
// subscriber and at the primary; no (region, epoch) ever has two primaries. Those hold on
// every seed. Availability (every region has a primary 12 s after the churn, 90% of edits
// confirmed) is a share over the seeds: a churn this hard can leave a region waiting for a
// rebase, and one seed's trajectory moves with any change of timing, so a fixed seed or two
// would test luck rather than the code.
import { afterAll, describe, expect, it } from 'vitest';
import { PLACEABLE } from '../world/blocks';
import { chunkOf, localOf } from '../world/coords';
import { HostSim, type SimPeer } from '../testing/host-sim';
import { SIM_TIMEOUT_MS } from '../testing/sim-timeout';
import { columnIndex, REGION_BLOCKS, type RegionCoord } from '../region/region-key';
import { compareStamp, entryKey, type RegionState, type Stamp } from '../region/region-state';

const REGIONS: RegionCoord[] = [{ rx: 0, rz: 0 }, { rx: 1, rz: 0 }, { rx: 0, rz: 1 }, { rx: -1, rz: -1 }];

interface Confirmed {
  region: RegionCoord;
  key: number;
  id: number;
  stamp: Stamp;
}

function keyOf(x: number, y: number, z: number): number {
  return entryKey(columnIndex(chunkOf(x), chunkOf(z)), localOf(x), y, localOf(z));
}

/** Confirmed edits missing from a state (not there, nor overwritten by a later stamp). */
function missing(state: RegionState | undefined, list: Confirmed[]): Confirmed[] {
  return list.filter((c) => {
    const held = state?.get(c.key);
    if (!held) return true;
    const cmp = compareStamp(held, c.stamp);
    return cmp < 0 || (cmp === 0 && held.id !== c.id);
  });
}

describe('region hosting under churn (simulated)', () => {
  // With host sets of live nodes, link closes that are not deaths and routes that avoid a
  // suspected dead node, 35 of seeds 1-40 are available (32 of 40 without the routes, run
  // side by side). The unavailable
  // ones fail on availability only: a region whose set lost two hosts within the primary's
  // backupQuietMs waits rebaseMs (10 s) for its survivor to rebase, or every host of its
  // certified set died and nobody may rebase; the checks come before it has a primary
  // again (docs/HOSTING.md "Rebase"). Seeds 1-3 run by default (~5 s of CPU each) and at
  // least 2 must be available (floor(0.7 n); all of 1-7 are on this code): one unavailable
  // seed passes, two fail. The two properties that hold on every seed are checked on each.
  // HOST_CHURN_SEEDS=1-40 for the sweep above (~3.5 CPU-minutes) before a change to claims,
  // handoffs or rebases.
  // HOST_CHURN_SEED=n runs one seed,
  // HOST_CHURN_SEEDS=a-b a range; HOST_CHURN_SETTLE (ms after the churn, default 12,000)
  // lengthens the wait before the checks.
  const range = (process.env.HOST_CHURN_SEEDS ?? '').split('-').map(Number);
  const seeds = process.env.HOST_CHURN_SEED ? [Number(process.env.HOST_CHURN_SEED)] : range.length === 2 && range.every((n) => n > 0) ? Array.from({ length: range[1]! - range[0]! + 1 }, (_, i) => range[0]! + i) : Array.from({ length: 3 }, (_, i) => i + 1);
  const available = new Map<number, string>();
  afterAll(() => {
    const down = [...available].filter(([, why]) => why !== '');
    console.log(`churn: ${seeds.length - down.length} of ${seeds.length} seeds available; ${down.map(([s, why]) => `seed ${s}: ${why}`).join('; ')}`);
  });
  it.each(seeds)('keeps every confirmed edit and never has two primaries in one epoch (seed %i)', async (seed) => {
    const sim = new HostSim({ seed });
    await sim.grow(24);
    const players: SimPeer[] = sim.live().slice(0, 6);
    const playerHex = new Set(players.map((p) => p.hex));
    await sim.settle(Promise.all(players.flatMap((p) => REGIONS.map((r) => p.client.subscribe(r)))));

    const confirmed: Confirmed[] = [];
    const down: string[] = [];
    let failed = 0, submitted = 0;
    let kills = 0, primaryKills = 0, joins = 0;
    const rand = sim.rand;
    const edit = (p: SimPeer) => {
      const region = REGIONS[Math.floor(rand() * REGIONS.length)]!;
      const x = region.rx * REGION_BLOCKS + Math.floor(rand() * REGION_BLOCKS);
      const z = region.rz * REGION_BLOCKS + Math.floor(rand() * REGION_BLOCKS);
      const y = 100 + Math.floor(rand() * 40);
      const id = PLACEABLE[Math.floor(rand() * PLACEABLE.length)]!;
      submitted++;
      p.client.submit(x, y, z, id, { x: x + 2, y, z: z + 2 }).then(
        (stamp) => confirmed.push({ region, key: keyOf(x, y, z), id, stamp }),
        () => failed++,
      );
    };
    const end = sim.clock.now() + 60_000;
    let nextChurn = sim.clock.now() + 3000;
    while (sim.clock.now() < end) {
      edit(players[Math.floor(rand() * players.length)]!);
      await sim.run(150);
      if (sim.clock.now() >= nextChurn) {
        nextChurn += 2500 + rand() * 2000;
        const hosts = sim.live().filter((p) => !playerHex.has(p.hex));
        const primaries = hosts.filter((p) => p.host.roles().primary.length > 0);
        const victim = rand() < 0.6 && primaries.length > 0 ? primaries[Math.floor(rand() * primaries.length)]! : hosts[Math.floor(rand() * hosts.length)]!;
        if (victim.host.roles().primary.length > 0) primaryKills++;
        if (process.env.HOST_TRACE) console.log(`${sim.clock.now()} KILL ${victim.hex.slice(0, 6)} primary of ${victim.host.roles().primary.join(' ')}`);
        // Silent kills (a crashed tab: nothing sent, links left open). Seeds 28, 3 and 6 of
        // 1-10 still end with a region without a primary 12 s after the churn: all three
        // hosts of its certified set die (here a kill every 2.5-4.5 s, 60% of them primaries)
        // before the set re-forms, e.g. after a handoff to a freshly killed node whose link
        // still looked open, and only a host of that set may rebase (docs/HOSTING.md,
        // "Rebase"): such a region waits for one of them to come back.
        sim.kill(victim.hex);
        kills++;
        if (rand() < 0.8 || sim.live().length < 20) {
          await sim.add();
          joins++;
        }
      }
    }
    await sim.run(Number(process.env.HOST_CHURN_SETTLE ?? 12_000));

    const byRegion = new Map<string, Confirmed[]>();
    for (const c of confirmed) {
      const k = `${c.region.rx},${c.region.rz}`;
      byRegion.set(k, [...(byRegion.get(k) ?? []), c]);
    }
    for (const r of REGIONS) {
      if (process.env.HOST_DEBUG) {
        console.log('region', r, 'at', sim.clock.now());
        for (const p of sim.live()) {
          const h = p.host.regionState(r);
          if (h) console.log(' ', p.hex.slice(0, 6), h.role, 'e', h.epoch, 'prom', h.promised, 'prim', h.primaryHex.slice(0, 6), 'heard', h.lastHeard, 'hosts', h.hosts.map((x) => Buffer.from(x).toString('hex').slice(0, 6)).join(','));
        }
        for (const p of players) console.log('  client', p.hex.slice(0, 6), JSON.stringify(p.client.attachment(r)), JSON.stringify(p.client.stats));
      }
      const list = byRegion.get(`${r.rx},${r.rz}`) ?? [];
      const prim = sim.primariesOf(`${r.rx},${r.rz}`);
      expect(prim.length, `at most one primary of ${r.rx},${r.rz}`).toBeLessThanOrEqual(1);
      if (prim.length === 0) {
        down.push(`no primary of ${r.rx},${r.rz}`);
        // Waiting for a rebase: what the subscribers show is checked once there is a primary.
        continue;
      }
      expect(missing(prim[0]!.host.regionState(r)!.state, list)).toEqual([]);
      for (const p of players) expect(missing(p.client.state(r), list), `subscriber ${p.hex.slice(0, 6)} of ${r.rx},${r.rz}`).toEqual([]);
      // Every subscriber shows the same blocks as the primary.
      for (const p of players) expect(p.client.state(r)!.fingerprint()).toBe(prim[0]!.host.regionState(r)!.state.fingerprint());
    }
    expect(sim.doublePrimaries()).toEqual([]);
    console.log(JSON.stringify({ seed, submitted, confirmed: confirmed.length, failed, kills, primaryKills, joins, virtualS: sim.clock.now() / 1000 }));
    expect(confirmed.length + failed).toBe(submitted);
    if (confirmed.length < 0.9 * submitted) down.push(`${confirmed.length} of ${submitted} edits confirmed`);
    available.set(seed, down.join(', '));
    sim.stopAll();
  }, SIM_TIMEOUT_MS);

  it('most seeds end available: every region with a primary, 90% of edits confirmed', () => {
    const up = [...available.values()].filter((why) => why === '').length;
    expect(available.size).toBe(seeds.length);
    expect(up).toBeGreaterThanOrEqual(Math.floor(0.7 * seeds.length));
  });
});
