// The adversarial simulation in CI (issue 13 item 6): 1,000 real DHT nodes, 20% of them
// hostile (src/testing/hostile-dht.ts: eclipse answers, half of the routed messages they
// forward dropped and a quarter misrouted, forged and replayed records, a STORE flood),
// seeded. The full run: `npm run bench -- adversarial_1k` (docs/BENCHMARKS.md).
import { describe, expect, it } from 'vitest';
import { runAdversarialSim } from '../testing/adversarial-sim';

describe('DHT with 20% hostile nodes (1,000 simulated nodes)', () => {
  it('finds honest nodes, reads the newest signed record by disjoint paths, takes no forged record', async () => {
    const r = await runAdversarialSim({ nodes: 1000, hostileShare: 0.2, seed: 7, lookups: 200, records: 100, churn: 0 });
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
    // Seed 7 (deterministic): 0.98; before them 0.705. Bench seed 42: see
    // docs/BENCHMARKS.md.
    expect(r.lookupSuccess).toBeGreaterThanOrEqual(0.97);
    // Reads by 3 disjoint paths against one path, same run. Seed 7: 0.68 -> 0.88 (session
    // 10: 0.60 -> 0.89; before the retries 0.47 -> 0.87: retries lift the one-path reads most).
    expect(r.after.success).toBeGreaterThanOrEqual(0.85);
    expect(r.after.success - r.before.success).toBeGreaterThanOrEqual(0.15);
  }, 300_000);
});
