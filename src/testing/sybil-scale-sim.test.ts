// The adversary kit at scale, small (sybil-scale-sim.ts; 1,000 peers in `npm run bench --
// sybil_1k`): 30 hosting peers, 20% of them hostile with 4 keys each, the regions' nearest
// hostile nodes playing the kit's SYNC, OFFER, SNAPSHOT and location-record rows against three
// regions at once while their players edit. In a region with at most one hostile node among
// the 8 nearest its key, no honest peer shows or stores a block the attackers sent, the region
// is never frozen, every row arrives and every honest edit made meanwhile is confirmed and
// shown, by the fresh subscriber too. Where 2 or more of the 8 nearest are hostile (docs/TRUST.md
// "What it does not stop" (a): rule 2 counts them near for a reader that holds no certificate)
// the same holds except at the fresh subscriber, whose eclipsed first lookup finds only them.
import { describe, expect, it } from 'vitest';
import { runSybilScale, type ScaleRegion } from './sybil-scale-sim';

const fresh = (row: string) => row.includes('-> fresh');

describe('the adversary kit with 20% hostile nodes (simulated, 30 peers)', () => {
  it('plants nothing and freezes no region outside the known limit', async () => {
    const r = await runSybilScale({ peers: 30, regions: 3, seed: 7, kill: false, frames: ['SYNC', 'OFFER', 'SNAPSHOT', 'LOCATION'], tailMs: 4000 });
    expect(r.hostile).toBe(6);
    const far = r.regions.filter((x) => x.hostile8 < 2), near = r.regions.filter((x) => x.hostile8 >= 2 && !x.limit);
    // Seed 7's regions: 0, 1 and 2 hostile nodes among the 8 nearest their keys.
    expect(far.length, 'regions with at most one hostile node among the 8 nearest').toBeGreaterThanOrEqual(1);
    expect(near.length, 'regions with 2 or more').toBeGreaterThanOrEqual(1);
    const held = (x: ScaleRegion, breaches: string[]) => {
      expect.soft(x.setupFailed, `${x.name}: setup`).toBeUndefined();
      expect.soft(breaches, `${x.name}: rows whose blocks an honest peer showed or stored`).toEqual([]);
      expect.soft(x.frozen, `${x.name}: frozen`).toBe(false);
      expect.soft(x.undelivered + x.skipped, `${x.name}: rows that did not reach their targets`).toBe(0);
      expect.soft(x.rows).toBeGreaterThanOrEqual(60);
      expect.soft(x.confirmed, `${x.name}: honest edits confirmed`).toBe(x.edits);
    };
    for (const x of far) {
      held(x, x.breaches);
      expect.soft(x.unseen, `${x.name}: confirmed edits not shown or stored`).toBe(0);
      expect.soft(x.freshHonest, `${x.name}: the fresh subscriber attached to an honest primary`).toBe(true);
    }
    for (const x of near) {
      held(x, x.breaches.filter((b) => !fresh(b)));
      expect.soft(x.accepted - x.acceptedLimit, `${x.name}: blocks taken while the 3 nearest live nodes were not a hostile majority`).toBe(0);
    }
    expect(r.doublePrimaries).toBe(0);
  });

  // sybil_1k seed 3's 8 blocks, small: in 5,1 one hostile node is among the 3 nearest the
  // key (the 2nd) and another is the 4th, as none of the model's limit is. The kill takes an
  // honest primary among the 3 nearest (the 3rd), so the live 3 nearest are 2 hostile of 3:
  // the region's own set by the model (docs/TRUST.md (a)). A fresh subscriber, holding no
  // certificate, then takes the attackers' (their ids 2nd and 3rd of its live view); the truth
  // over every live node, taken at the moment it drew their blocks, says the same. Outside
  // that limit nothing is taken, there or in 6,1. The kill needs the region's primary at that
  // moment to be honest, among the 3 nearest and no player (whose edits are judged): at seed 5
  // the primary then is 5,1's 2nd nearest node, which is 6,1's player, and nothing is killed.
  it('takes the attackers\' certificate only where the kill left them 2 of the 3 nearest live nodes (seed 7, 60 peers)', async () => {
    const r = await runSybilScale({ peers: 60, regions: 2, firstRx: 5, seed: 7, joinBatch: 16, frames: ['SYNC', 'OFFER', 'SNAPSHOT', 'LOCATION'], tailMs: 4000 });
    const [limit, other] = r.regions as [ScaleRegion, ScaleRegion];
    expect(limit.name).toBe('5,1');
    expect(limit.hostileRanks.slice(0, 2), 'hostile 2nd and 4th nearest at the setup').toEqual([2, 4]);
    expect(limit.limit, 'not the limit at the setup').toBe(false);
    expect(limit.hostile3AfterKill, 'hostile among the 3 nearest live nodes after the kill').toBe(2);
    expect(limit.acceptedFresh, 'blocks the fresh subscriber showed').toBeGreaterThan(0);
    expect(limit.acceptedFreshLimit, 'all taken inside the limit').toBe(limit.acceptedFresh);
    expect(limit.limitLive).toBe(true);
    expect(limit.acceptances.join('; ')).toMatch(/^fresh \w+ at [\d.]+ s, 2 markers: hostile ranks among the live 2,3,5 \(limit\), in its live view 2,3,5/);
    expect(other.hostile3AfterKill, '6,1 killed too').toBe(0);
    for (const x of r.regions) {
      expect.soft(x.setupFailed, `${x.name}: setup`).toBeUndefined();
      expect.soft(x.accepted - x.acceptedLimit, `${x.name}: blocks taken outside the limit`).toBe(0);
      expect.soft(x.frozen, `${x.name}: frozen`).toBe(false);
    }
    expect(other.accepted).toBe(0);
    expect(r.doublePrimaries).toBe(0);
  });
});
