// Starts the real server (built app + relay on one port) once for the browser tests.
// The port is fixed because IndexedDB is per origin: a reload must find its data.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { startServer } from '../signaling/serve';
import { SHARED_ARG } from './browser';

export const E2E_PORT = 8090;

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** The relay bundled for e2e/relay-process.ts. */
    relayBundle: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer({ port: E2E_PORT, host: '127.0.0.1', staticDir: 'dist' });
  project.provide('baseUrl', server.url.replace(/\/$/, ''));
  const relayBundle = bundleRelay();
  project.provide('relayBundle', relayBundle);
  return async () => {
    endSharedBrowsers();
    await server.close();
    rmSync(relayBundle, { force: true });
  };
}

/**
 * signaling/serve.ts in one file, for the relay processes the tests start (e2e/relay-process.ts):
 * Node starts it in a third of the CPU tsx takes to load the TypeScript (0.33-0.37 against
 * 0.84-0.99 CPU-s until it listens, 3 starts each, load 16), and the browser tests start 8 of
 * them. Its packages stay imports, found from the checkout's node_modules; one file per run,
 * as two runs of one checkout may overlap.
 */
function bundleRelay(): string {
  const outfile = join(process.cwd(), '.test-results', `e2e-relay-${process.pid}.mjs`);
  buildSync({ entryPoints: ['signaling/serve.ts'], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile, logLevel: 'warning' });
  return outfile;
}

/**
 * Ends the shared browsers (e2e/browser.ts) this run's workers left running for a next file
 * that never came. Found by the argument that names this process.
 */
function endSharedBrowsers(): void {
  const mine = `${SHARED_ARG}${process.pid}-`;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((a) => a.startsWith(mine))) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already, or not ours to read
    }
  }
}
