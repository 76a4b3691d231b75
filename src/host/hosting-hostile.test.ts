// A hostile peer next to a region's key (hostile-scenario.ts): no honest peer may show or
// store a block that no certified primary ordered, and the region must stay available.
import { describe, expect, it } from 'vitest';
import { runHostileScenario } from '../testing/hostile-scenario';

describe('a hostile peer next to the region key (simulated)', () => {
  for (const seed of [1, 2, 3]) {
    it(`changes nothing it does not own and cannot stop the region (seed ${seed})`, async () => {
      const r = await runHostileScenario(seed);
      expect(r.rogueIsBackup).toBe(true);
      expect(r.hugeSent).toBe(false);
      expect(r.acceptedAfterAttacks).toBe(0);
      expect(r.maxPromiseJump).toBeLessThan(64);
      expect(r.primaryKept).toBe(true);
      expect(r.refused).toBeGreaterThan(0);
      expect(r.failoverOk, 'an edit confirmed after the failover under the claim storm').toBe(true);
      expect(r.failoverMs).toBeLessThan(30_000);
      expect(r.acceptedAtEnd).toBe(0);
      expect(r.doublePrimaries).toBe(0);
    });
  }
});
