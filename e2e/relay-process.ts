// The relay as its own OS process (signaling/serve.ts --relay-only, bundled by
// e2e/global-setup.ts), so a test can stop it for real and check the tabs keep working without it.
import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';

export interface RelayProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startRelayProcess(port: number): Promise<RelayProcess> {
  // Node itself (not a wrapper such as tsx's, whose own child would outlive a kill).
  const child = spawn(process.execPath, [inject('relayBundle'), '--relay-only', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('relay process did not start in 20 s')), 20_000);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Relay: (ws:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    child.stderr!.on('data', (d: Buffer) => process.stderr.write(d));
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`relay process exited with ${code}`)); });
  });
  return {
    url,
    child,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    }),
  };
}
