// `npm run sim -- --hosting --peers N --players M [--seed S] [--minutes T] [--crowd]
//   [--churn C] [--latency MS] [--json FILE]`: the hosting simulation
// (src/testing/hosting-scale-sim.ts): real HostingService, RegionClient and NetworkChunkSource
// on the in-memory network and the virtual clock, players walking and editing. Prints the
// figures (links per player, upload per peer, edit to visible, remote-position rate,
// visibility); --json writes them all. bench/sim.ts hands `--hosting` runs here.
// `hosting_scale` in bench/run.ts runs the sizes of docs/BENCHMARKS.md through it.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFigures, runHostingScale, type HostingScaleFigures } from '../src/testing/hosting-scale-sim';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export async function hostingSimMain(): Promise<void> {
  const peers = Number(arg('peers') ?? 100);
  const f = await runHostingScale({
    peers,
    players: Number(arg('players') ?? peers),
    seed: Number(arg('seed') ?? 1),
    measureMs: Number(arg('minutes') ?? 1) * 60_000,
    crowd: process.argv.includes('--crowd'),
    churnPerMin: Number(arg('churn') ?? 0),
    latencyMs: Number(arg('latency') ?? 50),
    log: (l) => console.error(l),
  });
  console.log(describeFigures(f));
  const json = arg('json');
  if (json) writeFileSync(json, `${JSON.stringify(f, null, 2)}\n`);
}

/**
 * One run in a process of its own (`npm run sim`, bundled, large heap), for the bench runner.
 * HOSTING_SIM_DIR: run the simulation of another copy of the tree (e.g. `git archive` of a
 * commit, with node_modules linked), to measure committed code while the working tree is
 * being edited; the figures still go to this tree's bench/results/latest.json.
 */
export async function runHostingSimProcess(args: string[]): Promise<HostingScaleFigures> {
  const json = join(tmpdir(), `hosting-sim-${process.pid}-${Date.now()}.json`);
  const all = ['run', '--silent', 'sim', '--', '--hosting', ...args, '--json', json];
  const cwd = process.env.HOSTING_SIM_DIR ?? process.cwd();
  const code = await new Promise<number | null>((done) => spawn('npm', all, { cwd, stdio: ['ignore', 'inherit', 'inherit'] }).on('close', done));
  if (code !== 0) throw new Error(`npm run sim -- --hosting ${args.join(' ')} exited with ${code}`);
  const f = JSON.parse(readFileSync(json, 'utf8')) as HostingScaleFigures;
  rmSync(json, { force: true });
  return f;
}
