// What minting a tab's node id (core/id-work.ts, ID_WORK_BITS) costs on a free core, apart
// from whatever else the machine runs: the join's figures (tab_join_ms) include the mint, and
// on a shared machine a mint's wall time says more of the load than of the mint.
// - node_id_mint_ms_{p50,p90}: wall ms of one mint in Node through the tab worker's own
//   path (core/identity.ts generateNodeIdentity: WebCrypto keypairs, the node id through
//   the plain-JS scrypt of core/key-ids.ts), one mint at a time;
//   node_id_mint_cpu_ms_{p50,p90}: this process's CPU ms over the same mints (every thread),
//   and node_id_mint_cpu_share, CPU over wall for all of them: near 1 when the mint had a
//   core to itself, lower when it waited for one;
// - node_id_mint_key_cpu_ms: CPU ms per keypair drawn (keypair, scrypt, puzzle hash), and
//   node_id_mint_ms_{p50,p90}_free: the free-core mint from it, ln 2 and ln 10 times
//   2^bits draws (the draws are geometric: a few dozen mints' own p50 moves by a third from
//   run to run, the rate far less);
// - node_id_mint_ms_{p50,p90}_chromium, node_id_mint_key_ms_chromium: the page's real path in
//   Chromium (app/node-id-minter.ts: a Web Worker, its start included; e2e/pages/id-work.ts),
//   wall ms, and wall ms per keypair drawn;
// - node_id_mint_load1: the 1-minute load average as the bench began (2 cores here: over 2,
//   the figures above other than the CPU ones are a busy machine's).
// Bits: ID_WORK_BITS, or the first argument (`npx tsx bench/node-id-mint-bench.ts 9`).
import { cpus, loadavg } from 'node:os';
import { withDevPage } from '../e2e/browser';
import type { IdWorkRun } from '../e2e/pages/id-work';
import { ID_WORK_BITS, idWorkBits } from '../src/core/id-work';
import { generateNodeIdentity } from '../src/core/identity';
import { percentile } from '../src/core/percentile';

const PORT = 8088;
const MINTS_NODE = 30;
const MINTS_CHROMIUM = 16;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export async function benchNodeIdMint(bits = ID_WORK_BITS, chromium = true): Promise<Record<string, number>> {
  const out: Record<string, number> = { node_id_mint_bits: bits, node_id_mint_load1: Math.round(loadavg()[0]! * 10) / 10, node_id_mint_cores: cpus().length };
  const wall: number[] = [], cpu: number[] = [];
  const counts = { tries: 0 };
  let failed = 0;
  for (let i = 0; i < MINTS_NODE; i++) {
    const [t0, c0] = [performance.now(), cpuMs()];
    const id = await generateNodeIdentity({ bits, counts });
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - t0);
    if (idWorkBits(id.id) < bits) failed++;
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const keyCpu = sum(cpu) / counts.tries;
  out.node_id_mint_ms_p50 = Math.round(percentile(wall, 0.5));
  out.node_id_mint_ms_p90 = Math.round(percentile(wall, 0.9));
  out.node_id_mint_cpu_ms_p50 = Math.round(percentile(cpu, 0.5));
  out.node_id_mint_cpu_ms_p90 = Math.round(percentile(cpu, 0.9));
  out.node_id_mint_cpu_share = Math.round((sum(cpu) / sum(wall)) * 100) / 100;
  out.node_id_mint_key_cpu_ms = Math.round(keyCpu * 1000) / 1000;
  out.node_id_mint_ms_p50_free = Math.round(Math.LN2 * 2 ** bits * keyCpu);
  out.node_id_mint_ms_p90_free = Math.round(Math.LN10 * 2 ** bits * keyCpu);
  out.node_id_mint_keys = counts.tries;
  if (chromium) {
    const run: IdWorkRun = await withDevPage(PORT, 'e2e/pages/id-work.html', 'vpIdWork', (page) =>
      page.evaluate(([k, b]) => window.vpIdWork.run(k, b), [MINTS_CHROMIUM, bits] as const));
    out.node_id_mint_ms_p50_chromium = Math.round(percentile(run.mintMs, 0.5));
    out.node_id_mint_ms_p90_chromium = Math.round(percentile(run.mintMs, 0.9));
    out.node_id_mint_key_ms_chromium = Math.round((run.totalMs / run.tries) * 1000) / 1000;
    failed += run.failed;
  }
  out.node_id_mint_failed = failed;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchNodeIdMint(process.argv[2] ? Number(process.argv[2]) : undefined, process.argv[3] !== 'node')));
}
