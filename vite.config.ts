import { defineConfig, loadEnv } from 'vite';
import { resolve } from 'node:path';
import { parseIcePolicy, parseIceServersJson } from './src/net/ice-servers.js';

// Multi-page: the player page and the hosting page (host.html: a tab that only hosts).
export default defineConfig(({ mode }) => {
  // A deploy's ICE settings are checked here, so a typo fails the build (and `npm start`)
  // with the reason, not every player's page at run time.
  const env = loadEnv(mode, import.meta.dirname, 'VITE_');
  parseIceServersJson(env.VITE_ICE_SERVERS, 'VITE_ICE_SERVERS');
  parseIcePolicy(env.VITE_ICE_POLICY, 'VITE_ICE_POLICY');
  return {
    build: {
      target: 'es2022',
      sourcemap: true,
      chunkSizeWarningLimit: 1500,
      rollupOptions: {
        input: {
          main: resolve(import.meta.dirname, 'index.html'),
          host: resolve(import.meta.dirname, 'host.html'),
        },
      },
    },
    worker: { format: 'es' },
    server: { port: 5173, strictPort: false },
  };
});
