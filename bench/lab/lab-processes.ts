// The lab's processes, started in its namespaces (topology.ts): coturn and the project's
// server on the internet, Chromium in a home. Every child is kept so that one call ends
// them all. Used by lab.ts (the cases) and lab-world.ts (the world `npm test` runs).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_FULL, CHROMIUM_ARGS, disableFeatures } from '../../e2e/browser';
import { turnUrls, type IceOffer } from './lab-cases';
import { INTERNET, nsWrapper, SERVER_IP } from './topology';

/** The server's port when a run has one server. */
export const LAB_PORT = 8080;
/** The relay's clock in the 'turn-expired' offer: two days behind, so a day's credential expired a day ago. */
const EXPIRED_SHIFT_S = -2 * 86_400;

export const labOrigin = (port = LAB_PORT): string => `http://${SERVER_IP}:${port}`;

/** Resolves once `child` printed a line matching `re` (stdout or stderr). */
export function waitForLine(child: ChildProcess, re: RegExp, what: string, ms = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${ms} ms:\n${out.slice(-2000)}`)), ms);
    const on = (d: Buffer) => {
      out += d.toString();
      if (re.test(out)) { clearTimeout(timer); resolve(out); }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${what} exited with ${code}:\n${out.slice(-2000)}`)); });
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export class LabProcesses {
  readonly work = mkdtempSync(join(tmpdir(), 'vp-lab-'));
  /** The secret coturn shares with the servers that mint TURN credentials. */
  readonly secretFile = join(this.work, 'turn-secret');
  private readonly children: ChildProcess[] = [];

  constructor() {
    writeFileSync(this.secretFile, `lab-${Math.random().toString(36).slice(2)}\n`);
  }

  /** `cmd` in namespace `ns`, its output piped; ended by `stopAll`. */
  inNs(ns: string, cmd: string, cmdArgs: string[]): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', ns, cmd, ...cmdArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    return child;
  }

  async startCoturn(): Promise<void> {
    const secret = readFileSync(this.secretFile, 'utf8').trim();
    const turn = this.inNs(INTERNET, 'turnserver', ['-n', `--listening-ip=${SERVER_IP}`, `--relay-ip=${SERVER_IP}`, '--listening-port=3478',
      '--use-auth-secret', `--static-auth-secret=${secret}`, '--realm=lab', '--no-cli', '--no-tls', '--no-dtls',
      `--pidfile=${join(this.work, 'turnserver.pid')}`, `--userdb=${join(this.work, 'turndb')}`, '--log-file=stdout', '--simple-log',
      // LAB_TRACE_COTURN=FILE: coturn verbose (allocations, permissions and their refusals), into FILE.
      ...(process.env.LAB_TRACE_COTURN ? ['-v'] : [])]);
    if (process.env.LAB_TRACE_COTURN) turn.stdout!.pipe(createWriteStream(process.env.LAB_TRACE_COTURN));
    // Its last start-up line (the listeners are logged only with -v).
    await waitForLine(turn, /DB connection success/, 'coturn');
  }

  /** The built app and the relay on the internet at `port`, handing out what `ice` names (lab-server.ts). */
  async startServer(ice: IceOffer, port = LAB_PORT): Promise<ChildProcess> {
    const flags = turnUrls(ice, SERVER_IP).flatMap((u) => ['--turn-url', u]);
    if (ice !== 'none' && ice !== 'stun') flags.push('--turn-secret-file', this.secretFile);
    if (ice === 'turn-expired') flags.push('--clock-shift-s', String(EXPIRED_SHIFT_S));
    const server = this.inNs(INTERNET, process.execPath, ['--import', 'tsx', 'bench/lab/lab-server.ts', '--host', SERVER_IP, '--port', String(port), ...flags]);
    // Three start at once in lab-world.ts, each compiling the relay through tsx: at load 45
    // on two cores one took over 20 s (twice in five lab test runs), as the headless peer may.
    await waitForLine(server, /lab server http/, 'lab server', 60_000);
    return server;
  }

  /** Chromium in namespace `ns`, its pages allowed what a secure context may do on the `ports` given. */
  async launchIn(ns: string, ports: number[] = [LAB_PORT]): Promise<Browser> {
    const wrapper = join(this.work, `chromium-${ns}.sh`);
    // The full browser, also when started from a test (VITEST set), where e2e/browser.ts's CHROMIUM
    // is the headless shell: with it the first tab's network did not come up in 30 s, twice (not looked into).
    writeFileSync(wrapper, nsWrapper(ns, CHROMIUM_FULL));
    chmodSync(wrapper, 0o755);
    return chromium.launch({ executablePath: wrapper, headless: true, args: [...CHROMIUM_ARGS.filter((a) => !a.startsWith('--disable-features=')),
      // Host candidates with real addresses (not mDNS names, which nothing resolves here).
      disableFeatures('WebRtcHideLocalIpsWithMdns'),
      // The microphone permission (without it Chromium gathers fewer candidates) needs a secure context.
      `--unsafely-treat-insecure-origin-as-secure=${ports.map(labOrigin).join(',')}`] });
  }

  stopAll(): Promise<void[]> {
    return Promise.all(this.children.map(stop));
  }
}
