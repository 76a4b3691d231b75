import { defineConfig } from 'vite';
import { resolve } from 'node:path';

// Multi-page: the player page and the hosting page (host.html: a tab that only hosts).
export default defineConfig({
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
});
