// Starts the real server (built app + relay on one port) once for the browser tests.
// The port is fixed because IndexedDB is per origin: a reload must find its data.
import { readdirSync, readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startServer } from '../signaling/serve';
import { SPARE_ARG } from './browser';

export const E2E_PORT = 8090;

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer({ port: E2E_PORT, host: '127.0.0.1', staticDir: 'dist' });
  project.provide('baseUrl', server.url.replace(/\/$/, ''));
  return async () => {
    endSpareBrowsers();
    await server.close();
  };
}

/**
 * Ends the spare browsers (e2e/browser.ts) this run's workers left waiting: launched for a
 * next file that never came. Found by the argument that names this process.
 */
function endSpareBrowsers(): void {
  const mine = `${SPARE_ARG}${process.pid}-`;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((a) => a.startsWith(mine))) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone already, or not ours to read
    }
  }
}
