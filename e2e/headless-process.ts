// The headless peer (`npm run peer`, src/app/headless-main.ts) as its own OS process, for
// browser tests and benchmarks: started with Node and tsx as a loader (so a kill reaches
// the peer itself), loopback-only WebRTC (bindAddress 127.0.0.1), its figures served on a
// local port. Resolves once it printed that it is hosting.
import { spawn, type ChildProcess } from 'node:child_process';

export interface HeadlessProcess {
  child: ChildProcess;
  nodeId: string;
  /** ms from spawn to the "hosting world" line. */
  readyMs: number;
  /** Everything it printed so far. */
  output(): string;
  /** The dashboard figures it serves (GET http://127.0.0.1:<httpPort>/). */
  figures(): Promise<HeadlessFigures>;
  /** SIGKILL (abrupt death), or SIGTERM (it stops and closes its database). */
  stop(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
}

export interface HeadlessFigures {
  nodeId: string;
  status: string;
  links: { hex: string; rttMs: number | null }[];
  regions: { name: string; role: 'primary' | 'backup'; entries: number; players: number }[];
  edits: { accepted: number; confirmed: number };
  tickHz: number;
  rssBytes: number;
}

export async function startHeadlessProcess(o: { world: string; relay: string; dataDir: string; httpPort: number; extra?: string[] }): Promise<HeadlessProcess> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/headless-main.ts', '--world', o.world, '--relay', o.relay, '--data', o.dataDir,
    '--bind', '127.0.0.1', '--http', String(o.httpPort), '--print', '0', ...(o.extra ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); process.stderr.write(d); });
  const nodeId = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`headless peer did not say it was hosting in 30 s:\n${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /hosting world \S+ as node ([0-9a-f]{40})/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`headless peer exited with ${code}:\n${out}`)); });
  });
  const readyMs = performance.now() - t0;
  return {
    child, nodeId, readyMs,
    output: () => out,
    figures: async () => (await (await fetch(`http://127.0.0.1:${o.httpPort}/`)).json()) as HeadlessFigures,
    stop: (signal = 'SIGKILL') => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    }),
  };
}
