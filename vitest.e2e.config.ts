import { defineConfig } from 'vitest/config';

// Browser tests: real Chromium (playwright-core) against the built app and the real relay.
export default defineConfig({
  test: {
    include: ['e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One retry: a real browser beside the niced simulations on 2 cores misses a deadline now
    // and then (CI was red on one such test in each of two runs). A test that passes only on
    // its retry is listed by name and error at the end of `npm test` ("Passed only on a
    // retry"), so a flake stays visible; a test that fails twice fails the run.
    retry: 1,
    fileParallelism: false,
    pool: 'forks',
    // The files share one worker process and its module cache (Node, playwright-core and the
    // project's modules imported once, not once per file): measured 2026-12-05, ~1 s per
    // file. A file that left a browser or a server running would share it with the next
    // files, so e2e/leak-guard.ts fails such a file and kills what it left.
    isolate: false,
    // Each file's CPU seconds, browsers included, where scripts/test.sh asks (VP_FILE_CPU):
    // first, so its afterAll runs last (vitest runs after-hooks as a stack).
    setupFiles: ['scripts/file-cpu-setup.ts', 'e2e/leak-guard.ts'],
    // One browser of each kind shared by the files (e2e/browser.ts launchBrowser);
    // VP_SHARED_BROWSERS= (empty) launches one for each file that asks.
    // VP_CPU_SAMPLE_MS: how often scripts/file-cpu-setup.ts samples a file's processes (browsers come and go):
    // a walk of /proc took 6 ms of CPU with 147 processes at load 30, so once a second costs ~1% of a core.
    env: { VP_SHARED_BROWSERS: process.env.VP_SHARED_BROWSERS ?? '1', VP_CPU_SAMPLE_MS: process.env.VP_CPU_SAMPLE_MS ?? '1000' },
    globalSetup: ['e2e/global-setup.ts'],
  },
});
