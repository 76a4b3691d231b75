import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take tens of seconds, started first. vitest orders by the durations in its
 * cache (node_modules/.vite), but CI starts without one and then orders by file size: a long
 * simulation started last runs alone at the end while the other core idles.
 */
const SLOW_FIRST = [
  'src/testing/hosting-scale-sim.test.ts',
  'src/testing/hosting-crowd-sim.test.ts',
  'src/host/hosting-churn.test.ts',
  'src/dht/dht-adversarial.test.ts',
  'src/host/hosting-safety.test.ts',
  'src/testing/idle-cost-sim.test.ts',
];

class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return (await super.sort(files)).map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

// Unit, simulated-network and Node-WebRTC tests: everything beside the code in src/ and signaling/.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'signaling/**/*.test.ts', 'bench/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    sequence: { sequencer: SlowFirstSequencer },
  },
});
