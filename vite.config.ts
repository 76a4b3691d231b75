import { defineConfig } from 'vite';
import { resolve } from 'node:path';

// Multi-page: the player page now; the hosting dashboard (host.html) joins `input` later.
export default defineConfig({
  build: {
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      input: {
        main: resolve(import.meta.dirname, 'index.html'),
      },
    },
  },
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false },
});
