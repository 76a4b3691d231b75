// `npm run sim -- --hosting --peers N --players M [--seed S] [--minutes T] [--crowd]
//   [--churn C] [--latency MS] [--latency-spread S] [--link-frames F] [--region-size S] [--no-pending] [--join-batch K] [--warmup S] [--edit-every MS] [--json FILE]`: the hosting simulation
// (src/testing/hosting-scale-sim.ts): real HostingService, RegionClient and NetworkChunkSource
// on the in-memory network and the virtual clock, players walking and editing. Prints the
// figures (links per player, upload per peer, edit to visible, remote-position rate,
// visibility); --json writes them all. bench/sim.ts hands `--hosting` runs here.
// `hosting_scale` in bench/run.ts runs the sizes of docs/BENCHMARKS.md through it.
// --latency MS (default 50): mean one-way latency; --latency-spread S (default 0.5): each link's
// is drawn in [MS*(1-S), MS*(1+S)) (0: every link MS), plus 0-5 ms jitter per frame.
// --link-frames F: DHT links carry at most F frames a second into a peer (the product: 1000).
// --join-batch K: up to K peers join at once (default 1, one after another; see runHostingScale).
// --players M past --peers N: the M - N players past N are play-only peers (read-only DHT
// nodes that host nothing: src/dht/README.md "Read-only nodes").
// --warmup S: seconds of warm-up before the measured window (default 15); --edit-every MS:
// mean time between one player's edits (default 10,000).
// --no-pending: hosts show edits to subscribers only at their commit (HOST_DEFAULTS showPending false).
// --region-size S: regions of S x S chunk columns instead of the product's REGION_SIZE (4):
// the simulation is bundled again with that constant replaced (an esbuild plugin; nothing
// of the product changes) and run in a process of its own.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFigures, runHostingScale, type HostingScaleFigures } from '../src/testing/hosting-scale-sim';
import { REGION_SIZE } from '../src/region/region-key';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export async function hostingSimMain(): Promise<void> {
  const size = Number(arg('region-size') ?? REGION_SIZE);
  if (size !== REGION_SIZE) return runWithRegionSize(size);
  const peers = Number(arg('peers') ?? 100);
  const f = await runHostingScale({
    peers,
    players: Number(arg('players') ?? peers),
    seed: Number(arg('seed') ?? 1),
    measureMs: Number(arg('minutes') ?? 1) * 60_000,
    ...(arg('warmup') ? { warmupMs: Number(arg('warmup')) * 1000 } : {}),
    ...(arg('edit-every') ? { editEveryMs: Number(arg('edit-every')) } : {}),
    crowd: process.argv.includes('--crowd'),
    churnPerMin: Number(arg('churn') ?? 0),
    latencyMs: Number(arg('latency') ?? 50),
    ...(arg('latency-spread') ? { latencySpread: Number(arg('latency-spread')) } : {}),
    ...(arg('link-frames') ? { linkFramesPerSec: Number(arg('link-frames')) } : {}),
    ...(arg('join-batch') ? { joinBatch: Number(arg('join-batch')) } : {}),
    ...(process.argv.includes('--no-pending') ? { showPending: false } : {}),
    log: (l) => console.error(l),
  });
  console.log(describeFigures(f));
  const json = arg('json');
  if (json) writeFileSync(json, `${JSON.stringify(f, null, 2)}\n`);
}

/**
 * This command again, in a simulation bundled with REGION_SIZE = size (src/region/region-key.ts
 * read with the constant replaced; every other module as it is).
 */
async function runWithRegionSize(size: number): Promise<void> {
  if (!Number.isInteger(size) || size < 1 || size > 16) throw new Error(`--region-size ${size}: 1 to 16 chunk columns`);
  const esbuild = 'esbuild'; // (a name, so the bundle that runs this does not take esbuild in)
  const { build } = (await import(esbuild)) as typeof import('esbuild');
  const outfile = join(process.cwd(), '.sim-cache', `sim-region${size}.mjs`);
  await build({
    entryPoints: [join(process.cwd(), 'bench', 'sim.ts')], bundle: true, platform: 'node', format: 'esm', logLevel: 'warning', outfile,
    plugins: [{
      name: 'region-size',
      setup(b) {
        b.onLoad({ filter: /[\\/]region[\\/]region-key\.ts$/ }, async (a) => {
          const src = await readFile(a.path, 'utf8');
          const contents = src.replace(/export const REGION_SIZE = \d+;/, `export const REGION_SIZE = ${size};`);
          if (contents === src) throw new Error('REGION_SIZE not found in region-key.ts');
          return { contents, loader: 'ts' };
        });
      },
    }],
  });
  const code = await new Promise<number | null>((done) => spawn(process.execPath, [...process.execArgv, outfile, ...process.argv.slice(2)], { stdio: 'inherit' }).on('close', done));
  if (code !== 0) throw new Error(`the simulation with regions of ${size} x ${size} exited with ${code}`);
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
