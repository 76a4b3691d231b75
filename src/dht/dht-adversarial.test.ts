// The adversarial simulation in CI (issue 13 item 6): 1,000 real DHT nodes, 20% of them
// hostile (src/testing/hostile-dht.ts: eclipse answers, half of the routed messages they
// forward dropped and a quarter misrouted, forged and replayed records, a STORE flood),
// seeded. The full run: `npm run bench -- adversarial_1k` (docs/BENCHMARKS.md).
//
// How it samples: two seeds (7, the test's seed since session 10, and 8, the next), each
// key read by 3 random honest readers a phase (`readsPerKey`): 600 reads a phase pooled
// over the two networks (~250 s of wall time for both, under a load of 5 on 2 cores). One
// seed of 100 reads was a coin toss: over seeds 7-12 its three-path player reads ran
// 0.83-0.95 and its location gain 0.16-0.31, on both sides of the old bounds, with the rule
// of `unansweredHopMs` on or off (docs/BENCHMARKS.md "Adversarial DHT", session 15). The
// bounds sit under the lowest pair of seeds measured with 3 reads a key (session 15: seeds
// 7, 8, 10, 11, the rule on and off), by the margins stated at each, and fail with the
// defence taken out (session 16: reads by one path in both phases, see each bound).
import { describe, expect, it } from 'vitest';
import { runAdversarialSim, type AdversarialFigures, type ReadFigures } from '../testing/adversarial-sim';

const SEEDS = [7, 8];
const runs: AdversarialFigures[] = [];

/** The share of newest-record reads over every run (each run's reads weighed by their count). */
function pooled(phase: (r: AdversarialFigures) => ReadFigures | null): number {
  let ok = 0;
  let reads = 0;
  for (const r of runs) {
    const f = phase(r)!;
    ok += f.success * f.reads;
    reads += f.reads;
  }
  return ok / reads;
}

describe('DHT with 20% hostile nodes (1,000 simulated nodes)', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: finds honest nodes, takes no forged record`, async () => {
      const r = await runAdversarialSim({ nodes: 1000, hostileShare: 0.2, seed, lookups: 200, records: 100, regions: 100, churn: 0, readsPerKey: 3 });
      runs.push(r);
      const share = (f: ReadFigures | null) => `${f!.success.toFixed(3)} of ${f!.reads}`;
      console.log(`seed ${seed}: FIND_NODE ${r.lookupSuccess}, player 3 paths ${share(r.after)} / one ${share(r.before)}, locations ${share(r.locationsAfter)} / one ${share(r.locationsBefore)}, ${r.wallSeconds.toFixed(0)} s`);
      expect(r.hostile).toBeGreaterThan(150);
      expect(r.crew.dropped).toBeGreaterThan(0);
      expect(r.crew.eclipsed).toBeGreaterThan(0);
      expect(r.crew.forgedAnswers + r.crew.replayedAnswers).toBeGreaterThan(0);
      // Nothing forged is ever taken, by readers or by honest holders; the flood was refused.
      expect(r.forgedAccepted).toBe(0);
      expect(r.locationsAfter!.forged + r.locationsBefore!.forged).toBe(0);
      expect(r.forgedRefused).toBeGreaterThan(0);
      // FIND_NODE between honest nodes, by the defences of src/dht/README.md "Hostile nodes"
      // (retries by another route, spread routes, route records, a second reply route on a
      // repeat, an untried first hop, the target answering by two routes, dead hops closed,
      // links that answer nothing passed over). Seeds 7-12: 0.99-1.0 since session 13;
      // before the route defences 0.705 (seed 7). Bench seed 42: see docs/BENCHMARKS.md.
      expect(r.lookupSuccess).toBeGreaterThanOrEqual(0.97);
    }, 300_000);
  }

  it('reads the newest player and location records by disjoint paths (both seeds pooled)', () => {
    expect(runs.length).toBe(SEEDS.length);
    // Player records by 3 disjoint paths against one path, same runs. Seeds 7 + 8 (the
    // rule on): 0.903 against 0.642. Triple-read runs per seed, on / off: by three paths
    // 0.867-0.913, gains 0.21-0.28; the lowest pair pools to 0.875 (margin 0.025, two
    // standard errors of 600 reads) and a gain of 0.23 (margin 0.08). Reads by one path in
    // both phases (paths taken away): 0.667 / 0.637 at seed 7 (gain 0.03): both fail.
    const player = pooled((r) => r.after);
    expect(player).toBeGreaterThanOrEqual(0.85);
    expect(player - pooled((r) => r.before)).toBeGreaterThanOrEqual(0.15);
    // Region location records (real certificates, epochs 1 and 2; the crew replays epoch 1)
    // as the product reads them (`disjointReads` holds 'chunk': 3 paths) against one path.
    // Seeds 7 + 8: 0.840 against 0.630. Triple-read runs: by three paths 0.77-0.90, gains
    // 0.16-0.28 per seed; the lowest pair pools to 0.80 (margin 0.10) and a gain of 0.19
    // (margin 0.07). Without 'chunk' in disjointReads: 0.567 / 0.560 at seed 7: both fail.
    const locations = pooled((r) => r.locationsAfter);
    console.log(`pooled over seeds ${SEEDS.join(', ')}: player records ${player.toFixed(3)} (one path ${pooled((r) => r.before).toFixed(3)}), location records ${locations.toFixed(3)} (one path ${pooled((r) => r.locationsBefore).toFixed(3)})`);
    expect(locations).toBeGreaterThanOrEqual(0.7);
    expect(locations - pooled((r) => r.locationsBefore)).toBeGreaterThanOrEqual(0.12);
  });
});
