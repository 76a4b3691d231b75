import { defineConfig } from 'vitest/config';

// Unit, simulated-network and Node-WebRTC tests: everything beside the code in src/ and signaling/.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'signaling/**/*.test.ts', 'bench/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
