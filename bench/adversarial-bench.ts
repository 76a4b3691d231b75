// The adversarial DHT simulation (src/testing/adversarial-sim.ts) from the
// command line and as benchmarks:
//   npm run sim -- --adversarial --nodes 1000 [--hostile 0.2] [--seed 42] [--lookups 1000] [--records 500] [--regions 500] [--churn 0.2] [--reads-per-key 1] [--unanswered-hop-ms MS] [--json FILE]
// (`--unanswered-hop-ms` sets the DHT option of that name, to measure the rule on and off;
// `--reads-per-key` reads each record that many times, by other readers, for less noise.)
//   npm run bench -- adversarial_1k   (1,000 nodes; adversarial_2k: 2,000 and adversarial_10k: 10,000, slow, only when named)
// Figures are named by size: simNk_adv20_* (20% hostile).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdversarialSim, type AdversarialFigures } from '../src/testing/adversarial-sim';
import { arg } from './sim';

export async function adversarialSimMain(): Promise<void> {
  const r = await runAdversarialSim({
    nodes: Number(arg('nodes') ?? 1000),
    hostileShare: Number(arg('hostile') ?? 0.2),
    seed: Number(arg('seed') ?? 42),
    lookups: Number(arg('lookups') ?? 1000),
    records: Number(arg('records') ?? 500),
    regions: Number(arg('regions') ?? 0),
    churn: Number(arg('churn') ?? 0.2),
    readsPerKey: Number(arg('reads-per-key') ?? 1),
    ...(arg('unanswered-hop-ms') !== undefined ? { dht: { unansweredHopMs: Number(arg('unanswered-hop-ms')) } } : {}),
    log: (l) => console.error(l),
  });
  console.log(JSON.stringify(r, null, 2));
  const json = arg('json');
  if (json) writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
}

/** `npm run bench -- adversarial_Nk`: the run in a process of its own (bundled, large heap). */
export async function benchAdversarial(nodes: number): Promise<Record<string, number>> {
  const json = join(tmpdir(), `sim-adv-${process.pid}.json`);
  // Location records up to 2,000 nodes: the 10,000-node run (~25 min) keeps to the keys its targets name.
  const regions = nodes <= 2000 ? ['--regions', '500'] : [];
  const args = ['run', '--silent', 'sim', '--', '--adversarial', '--nodes', String(nodes), '--hostile', '0.2', '--seed', '42', '--lookups', '1000', '--records', '500', ...regions, '--churn', '0.2', '--json', json];
  const code = await new Promise<number | null>((done) => spawn('npm', args, { stdio: ['ignore', 'inherit', 'inherit'] }).on('close', done));
  if (code !== 0) throw new Error(`npm run sim exited with ${code}`);
  const r = JSON.parse(readFileSync(json, 'utf8')) as AdversarialFigures;
  rmSync(json, { force: true });
  return adversarialMetrics(r);
}

export function adversarialMetrics(r: AdversarialFigures): Record<string, number> {
  const p = `sim${r.nodes >= 1000 ? `${r.nodes / 1000}k` : r.nodes}_adv20_`;
  return {
    [`${p}lookup_success`]: r.lookupSuccess,
    [`${p}churn_lookup_success`]: r.churnLookupSuccess ?? 0,
    [`${p}lookup_rpcs`]: r.lookupRpcs,
    [`${p}lookup_link_msgs`]: r.messagesPerLookup,
    [`${p}churn_lookup_rpcs`]: r.churnLookupRpcs,
    [`${p}get_success`]: r.after.success,
    [`${p}get_success_one_path`]: r.before.success,
    [`${p}get_rpcs`]: r.after.rpcs,
    [`${p}get_rpcs_one_path`]: r.before.rpcs,
    [`${p}forged_accepted`]: r.forgedAccepted,
    // Region location records (sim-locations.ts), as the product reads them and by one path.
    ...(r.locationsAfter && r.locationsBefore
      ? {
          [`${p}location_success`]: r.locationsAfter.success,
          [`${p}location_success_one_path`]: r.locationsBefore.success,
          [`${p}location_rpcs`]: r.locationsAfter.rpcs,
          [`${p}location_rpcs_one_path`]: r.locationsBefore.rpcs,
        }
      : {}),
  };
}
