import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take tens of seconds (the simulations, on virtual clocks: scripts/sim-files.txt),
 * started first. vitest orders by the durations in its cache (node_modules/.vite), but CI
 * starts without one and then orders by file size: a long simulation started last runs alone
 * at the end while the other core idles. `npm test` runs them in a run of their own
 * (scripts/test.sh).
 */
const listed = (name: string) => readFileSync(new URL(`./scripts/${name}`, import.meta.url), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
/**
 * Then, in the wall-clock run before the browser tests (scripts/realtime-files.txt, listed
 * slowest first), the same for its files: the browser tests wait for that run to end, and
 * its slowest file (6-15 s in fresh-clone CI runs) was started last, by size, while the other
 * worker had nothing left.
 */
const SLOW_FIRST = [...listed('sim-files.txt'), ...listed('realtime-files.txt')];

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
    // A hang guard, not a limit on how long a test may take: most of these files run on
    // virtual clocks, whose wall time says nothing about what they test: on a machine at
    // load 17 (2026-12-04) share-links' one test, 8 CPU-s, took 19.8 s at nice 0 and timed
    // out at the former 20 s in a CI run. A test that means a time bound asserts it.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Files share their worker process and its module cache instead of a fresh process each:
    // measured on 2 idle cores (2026-12-05), the unit phase of `npm test` (224 files) took
    // 127 s and 231 CPU-s isolated, 58 s and 98 CPU-s shared, the same 945 tests passing;
    // most of the difference was starting Node and importing the same modules 224 times. The
    // simulations: 106 s / 205 CPU-s -> 90 s / 175 CPU-s. A test file that changes globals
    // (fake timers, stubbed globals) restores them in its afterEach.
    isolate: false,
    // V8's young generation at 64 MB a semi-space (the default is 16): the simulations allocate
    // fast (frames, messages, records), and a smaller nursery scavenges more often and
    // promotes more short-lived objects to the old generation. hosting-scale-sim.test.ts: 24.5
    // CPU-s -> 22.4 (-8.5%, the worker's CPU, one run each at load 43-56). `npm run sim` runs
    // with the same.
    execArgv: ['--max-semi-space-size=64'],
    sequence: { sequencer: SlowFirstSequencer },
    // Each file's CPU seconds, where scripts/test.sh asks for them (VP_FILE_CPU).
    setupFiles: ['scripts/file-cpu-setup.ts'],
  },
});
