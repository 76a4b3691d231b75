import { defineConfig } from 'vitest/config';

// Browser tests: real Chromium (playwright-core) against the built app and the real relay.
export default defineConfig({
  test: {
    include: ['e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    pool: 'forks',
    globalSetup: ['e2e/global-setup.ts'],
  },
});
