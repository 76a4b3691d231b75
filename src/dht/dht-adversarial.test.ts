// The adversarial simulation in CI (issue 13 item 6): 1,000 real DHT nodes, 20% of them
// hostile (src/testing/hostile-dht.ts: eclipse answers, half of the routed messages they
// forward dropped and a quarter misrouted, forged and replayed records, a STORE flood),
// seeded. The full run: `npm run bench -- adversarial_1k` (docs/BENCHMARKS.md).
import { describe, expect, it } from 'vitest';
import { runAdversarialSim } from '../testing/adversarial-sim';

describe('DHT with 20% hostile nodes (1,000 simulated nodes)', () => {
  it('finds honest nodes, reads the newest player and location records by disjoint paths, takes no forged record', async () => {
    const r = await runAdversarialSim({ nodes: 1000, hostileShare: 0.2, seed: 7, lookups: 200, records: 100, regions: 100, churn: 0 });
    expect(r.hostile).toBeGreaterThan(150);
    expect(r.crew.dropped).toBeGreaterThan(0);
    expect(r.crew.eclipsed).toBeGreaterThan(0);
    expect(r.crew.forgedAnswers + r.crew.replayedAnswers).toBeGreaterThan(0);
    // Nothing forged is ever taken, by readers or by honest holders; the flood was refused.
    expect(r.forgedAccepted).toBe(0);
    expect(r.forgedRefused).toBeGreaterThan(0);
    // FIND_NODE between honest nodes, by the defences of src/dht/README.md "Hostile nodes"
    // (retries by another route, spread routes, route records, a second reply route on a
    // repeat, an untried first hop, the target answering by two routes, dead hops closed).
    // Seed 7 (deterministic): 0.99 since session 13 (the target by two routes, newcomers off
    // 4 bootstrap nodes), 0.98 before; before the route defences 0.705. Bench seed 42: see
    // docs/BENCHMARKS.md.
    expect(r.lookupSuccess).toBeGreaterThanOrEqual(0.97);
    // Reads by 3 disjoint paths against one path, same run. Seed 7: 0.73 -> 0.90 (session 12:
    // 0.68 -> 0.88; session 10: 0.60 -> 0.89; before the retries 0.47 -> 0.87: retries lift the one-path reads most).
    // Other seeds, same code (session 15): 0.83-0.95 by three paths, gains 0.11-0.31; seeds
    // 10 and 11 miss these bounds, 100 reads a phase being a small sample (docs/BENCHMARKS.md).
    expect(r.after.success).toBeGreaterThanOrEqual(0.85);
    expect(r.after.success - r.before.success).toBeGreaterThanOrEqual(0.15);
    // Region location records (real certificates, epochs 1 and 2; the crew replays epoch 1)
    // as the product reads them (`disjointReads` holds 'chunk': 3 paths) against one path.
    // Seed 7: 0.58 -> 0.80 (the misses took epoch 1's replayed record; 7.9 -> 32.8 lookup
    // RPCs per read); session 12's code 0.44 -> 0.73, and without 'chunk' in disjointReads,
    // both phases by one path differing only by their readers, 0.44 and 0.53.
    expect(r.locationsAfter!.forged + r.locationsBefore!.forged).toBe(0);
    expect(r.locationsAfter!.success).toBeGreaterThanOrEqual(0.65);
    expect(r.locationsAfter!.success - r.locationsBefore!.success).toBeGreaterThanOrEqual(0.2);
  }, 300_000);
});
