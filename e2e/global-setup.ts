// Starts the real server (built app + relay on one port) once for the browser tests.
// The port is fixed because IndexedDB is per origin: a reload must find its data.
import type { TestProject } from 'vitest/node';
import { startServer } from '../signaling/serve';

export const E2E_PORT = 8090;

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer({ port: E2E_PORT, host: '127.0.0.1', staticDir: 'dist' });
  project.provide('baseUrl', server.url.replace(/\/$/, ''));
  return () => server.close();
}
