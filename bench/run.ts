// `npm run bench`: every benchmark side by side in one run. Writes one flat JSON object
// (metric name -> number) to bench/results/latest.json and prints it. A benchmark that
// fails records nothing for its metrics and is reported on stderr; the run goes on.
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchWorld } from './world-bench';
import { benchMesh } from './mesh-bench';
import { benchFirstFrame } from './first-frame-bench';
import { benchTabs } from './tabs-bench';
import { measureHiddenTickHz } from './hidden-tick-bench';
import { benchHosting } from './hosting-bench';
import { benchFailover } from './failover-bench';

type Bench = [name: string, run: () => Promise<Record<string, number>>];

const benches: Bench[] = [
  ['terrain', benchWorld],
  ['mesh', benchMesh],
  ['first frame', benchFirstFrame],
  ['tabs', benchTabs],
  ['hidden tick', measureHiddenTickHz],
  ['hosting', benchHosting],
  ['failover', () => benchFailover(20)],
];

const only = process.argv.slice(2);
const results: Record<string, number> = {};
let failed = 0;
for (const [name, run] of benches) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const t0 = performance.now();
  try {
    const r = await run();
    Object.assign(results, r);
    console.error(`bench ${name}: ${JSON.stringify(r)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (err) {
    failed++;
    console.error(`bench ${name} FAILED:`, err);
  }
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results, null, 2));
process.exit(failed ? 1 : 0);
