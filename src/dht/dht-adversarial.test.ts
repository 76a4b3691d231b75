// The adversarial simulation in CI, at a size CI can run: real DHT nodes, 20% of them hostile
// (src/testing/hostile-dht.ts: eclipse answers, half of the routed messages they forward
// dropped and a quarter misrouted, forged and replayed records, a STORE flood), seeded.
// `npm test` runs 400 nodes (~30 s of CPU a seed, one seed); ADVERSARIAL_NODES=1000 runs the size the
// bounds were first set at (~100 s a seed), each size with its own bounds (BOUNDS). The
// bench's run: `npm run bench -- adversarial_1k` (docs/BENCHMARKS.md).
//
// How it samples: `npm test` runs seed 7 (~30 CPU-s); ADVERSARIAL_SEEDS=7,8 runs the two
// seeds the bounds were first checked on (600 reads a phase pooled over the two networks),
// any list the same. Each key is read by 3 random honest readers a phase (`readsPerKey`):
// 300 reads a phase a seed. One seed of 100 reads was a coin toss: at 1,000 nodes over
// seeds 7-12 its three-path player reads ran 0.83-0.95 and its location gain 0.16-0.31
// (docs/BENCHMARKS.md "Adversarial DHT"). Each size's bounds sit under the lowest pair of
// four seeds measured with 3 reads a key, by the margins stated, and fail with the defence
// taken out (reads by one path in both phases: `paths: 1`, `disjointReads` without 'chunk').
// At 400 nodes each of the four seeds alone also clears every bound (the lowest: player
// 0.950 and locations 0.940 at seed 9, gains 0.100 at seeds 7 and 8, 0.117 at 7 and 10), so
// one seed asserts the same bounds, by margins of 0.02-0.05 (two standard errors of 300
// reads: ~0.025); a second seed would double its CPU.
//
// Why 400 nodes still tests the defence: one path misses the newest player record on 12-18%
// of reads (1,000 nodes: ~35%), and three paths lift that to 95-98%; at 300 nodes one path
// read 0.87-0.94 and the gain (0.04-0.1) came within two standard errors of none.
import { describe, expect, it } from 'vitest';
import { runAdversarialSim, type AdversarialFigures, type ReadFigures } from '../testing/adversarial-sim';
import { SIM_TIMEOUT_MS } from '../testing/sim-timeout';

const NODES = Number(process.env.ADVERSARIAL_NODES ?? 400);
/** Bounds on the reads pooled over SEEDS, by network size. */
const BOUNDS: Record<number, { player: number; playerGain: number; locations: number; locationGain: number }> = {
  // Seeds 7-10, 3 paths / one path: player 0.967 / 0.867, 0.980 / 0.880, 0.950 / 0.823,
  // 0.963 / 0.820; locations 0.960 / 0.843, 0.983 / 0.860, 0.940 / 0.797, 0.967 / 0.850.
  // Lowest pairs pooled: player 0.957 (9 + 10), gain 0.100 (7 + 8); locations 0.950 (7 + 9),
  // gain 0.117 (7 + 10): margins of 0.03-0.05, over two standard errors of 600 reads.
  // Defence out, seeds 7 + 8: player 0.847, gain -0.027; locations 0.837, gain 0.023; seed 7
  // alone (`npm test`'s run): player 0.820, gain -0.047; locations 0.813, gain 0.013: all
  // four fail either way.
  400: { player: 0.93, playerGain: 0.06, locations: 0.9, locationGain: 0.07 },
  // Triple-read runs (seeds 7, 8, 10, 11, the unanswered-hop rule on and off): lowest pair
  // player 0.875 (margin 0.025, two standard errors of 600 reads), gain 0.23; locations 0.80,
  // gain 0.19. Seeds 7 + 8: player 0.903 / 0.642, locations 0.840 / 0.630. Defence out at
  // seed 7: player 0.667 / 0.637, locations 0.567 / 0.560: all four fail.
  1000: { player: 0.85, playerGain: 0.15, locations: 0.7, locationGain: 0.12 },
};
const SEEDS = (process.env.ADVERSARIAL_SEEDS ?? '7').split(',').map(Number);
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

describe(`DHT with 20% hostile nodes (${NODES} simulated nodes)`, () => {
  const bounds = BOUNDS[NODES];
  if (!bounds) throw new Error(`ADVERSARIAL_NODES: no bounds measured for ${NODES} nodes (${Object.keys(BOUNDS).join(', ')})`);
  for (const seed of SEEDS) {
    it(`seed ${seed}: finds honest nodes, takes no forged record`, async () => {
      const r = await runAdversarialSim({ nodes: NODES, hostileShare: 0.2, seed, lookups: 200, records: 100, regions: 100, churn: 0, readsPerKey: 3 });
      runs.push(r);
      const share = (f: ReadFigures | null) => `${f!.success.toFixed(3)} of ${f!.reads}`;
      console.log(`seed ${seed}: FIND_NODE ${r.lookupSuccess}, player 3 paths ${share(r.after)} / one ${share(r.before)}, locations ${share(r.locationsAfter)} / one ${share(r.locationsBefore)}, ${r.wallSeconds.toFixed(0)} s`);
      expect(r.hostile).toBeGreaterThan(0.15 * NODES);
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
      // links that answer nothing passed over). Seeds 7-12: 0.99-1.0;
      // before the route defences 0.705 (seed 7). Bench seed 42: see docs/BENCHMARKS.md.
      expect(r.lookupSuccess).toBeGreaterThanOrEqual(0.97);
    }, SIM_TIMEOUT_MS);
  }

  it(`reads the newest player and location records by disjoint paths (seed${SEEDS.length > 1 ? 's' : ''} ${SEEDS.join(', ')} pooled)`, () => {
    expect(runs.length).toBe(SEEDS.length);
    // Player records by 3 disjoint paths against one path, same runs; region location
    // records (real certificates, epochs 1 and 2; the crew replays epoch 1) as the product
    // reads them (`disjointReads` holds 'chunk': 3 paths) against one path.
    const player = pooled((r) => r.after);
    const locations = pooled((r) => r.locationsAfter);
    console.log(`pooled over seeds ${SEEDS.join(', ')}: player records ${player.toFixed(3)} (one path ${pooled((r) => r.before).toFixed(3)}), location records ${locations.toFixed(3)} (one path ${pooled((r) => r.locationsBefore).toFixed(3)})`);
    expect(player).toBeGreaterThanOrEqual(bounds.player);
    expect(player - pooled((r) => r.before)).toBeGreaterThanOrEqual(bounds.playerGain);
    expect(locations).toBeGreaterThanOrEqual(bounds.locations);
    expect(locations - pooled((r) => r.locationsBefore)).toBeGreaterThanOrEqual(bounds.locationGain);
  });
});
