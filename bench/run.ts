// `npm run bench`: every benchmark side by side in one run (the 10,000-node simulator
// takes the longest). Writes one flat JSON object
// (metric name -> number) to bench/results/latest.json and prints it. A benchmark that
// fails records nothing for its metrics and is reported on stderr; the run goes on.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { benchSim } from './sim';
import { benchWorld } from './world-bench';
import { benchMesh } from './mesh-bench';
import { benchFirstFrame } from './first-frame-bench';
import { benchTabs } from './tabs-bench';
import { measureHiddenTickHz } from './hidden-tick-bench';
import { benchHiddenHost } from './hidden-host-bench';
import { benchJoin } from './join-bench';
import { benchHosting } from './hosting-bench';
import { benchBorder } from './border-bench';
import { benchFailoverCrash } from './failover-bench';
import { benchHostile } from './hostile-bench';
import { benchAuth } from './auth-bench';
import { benchContest } from './contest-bench';
import { benchItems } from './items-bench';
import { benchDrawRate } from './draw-rate-bench';
import { benchItemSigs } from './item-sig-bench';
import { benchSafety, benchSafetyRebase } from './safety-bench';
import { benchFirefox } from './firefox-bench';
import { benchHeadless } from './headless-bench';
import { benchFuzz } from './fuzz-bench';
import { benchSimFailover } from './sim-failover-bench';
import { benchHostingScale } from './hosting-scale-bench';
import { benchIdleCost } from './idle-cost-bench';
import { benchAdversarial } from './adversarial-bench';
import { benchDurability } from './durability-bench';
import { benchFlood } from './flood-bench';
import { benchStore } from './store-bench';
import { benchPlayerKey } from './player-key-bench';
import { benchIdWork } from './id-work-bench';
import { benchNodeIdMint } from './node-id-mint-bench';
import { benchSybil } from './sybil-bench';
import { benchSybilScale } from './sybil-scale-bench';
import { benchAdversary } from './adversary-bench';
import { benchThrottledHost } from './throttled-host-bench';
import { benchTabCpu } from './tab-cpu-bench';
import { benchNetworkChange } from './network-change-bench';
import { benchChat } from './chat-bench';
import { benchFirstAttach } from './first-attach-bench';
import { benchHandshakeFlood } from './handshake-flood-bench';
import { currentCommit, readProvenance, writeProvenance } from './provenance';
import { writeReport } from './report';

type Bench = [name: string, run: () => Promise<Record<string, number>>];

const benches: Bench[] = [
  ['terrain', benchWorld],
  ['mesh', benchMesh],
  ['first frame', benchFirstFrame],
  ['tabs', benchTabs],
  ['hidden tick', measureHiddenTickHz],
  ['join', benchJoin],
  ['first_attach', benchFirstAttach],
  ['hidden_host_10min', () => benchHiddenHost()],
  ['hosting', benchHosting],
  ['border', benchBorder],
  ['failover_crash', () => benchFailoverCrash(20)],
  ['throttled_host', benchThrottledHost],
  ['tab_cpu', benchTabCpu],
  ['chat', benchChat],
  ['hostile', benchHostile],
  ['auth', benchAuth],
  ['sybil', benchSybil],
  ['sybil_1k', benchSybilScale],
  ['adversary', benchAdversary],
  ['contest', benchContest],
  ['items', benchItems],
  ['draw_rate', benchDrawRate],
  ['item_sigs', benchItemSigs],
  ['sim_safety', benchSafety],
  ['sim_safety_rebase', benchSafetyRebase],
  ['sim_failover', benchSimFailover],
  ['sim10k', benchSim],
  ['adversarial_1k', () => benchAdversarial(1000)],
  ['adversarial_2k', () => benchAdversarial(2000)],
  ['adversarial_10k', () => benchAdversarial(10_000)],
  ['hosting_scale', benchHostingScale],
  ['idle_cost', benchIdleCost],
  ['headless', () => benchHeadless()],
  ['fuzz', benchFuzz],
  ['durability', benchDurability],
  ['store', benchStore],
  ['player_key', () => benchPlayerKey()],
  ['id_work', () => benchIdWork()],
  ['node_id_mint', () => benchNodeIdMint()],
  ['flood', () => benchFlood()],
  ['handshake_flood', () => benchHandshakeFlood()],
  ['network_change', () => benchNetworkChange()],
  ['firefox', benchFirefox],
];

// `npm run bench -- mesh tabs` runs only the named benchmarks and merges their figures
// into the previous latest.json (so one slow benchmark can be re-run alone).
const only = process.argv.slice(2);
// The 10,000-node simulator takes ~17 minutes (docs/BENCHMARKS.md), in a process of its
// own: it runs only when named (`npm run bench -- sim10k`); so does the 10-minute hidden
// hosting tab (`npm run bench -- hidden_host_10min`) and the 5-minute headless peer
// (`npm run bench -- headless`), and the hosting simulation at 100-200 peers, several
// minutes (`npm run bench -- hosting_scale`), and the adversarial simulation at 2,000 and
// 10,000 nodes (`npm run bench -- adversarial_2k`, `adversarial_10k`), the
// network change (it turns the namespace's lo off: `npm run bench -- network_change`), and the
// adversary kit at 1,000 peers (`npm run bench -- sybil_1k`). So do, to keep the default run
// under 30 minutes on a 2-core machine (it took ~43 with them), three studies whose code is not
// the network's, hosting's or items' that every change re-runs: the renderer's frame limits
// (draw_rate, ~190 s), the fuzzers' long runs (fuzz, ~160 s; short ones are in npm test), the
// 1,000-node DHT attack (adversarial_1k, ~170 s; the DHT's own attack tests are in npm test),
// and the safety seeds under the rebase design (sim_safety_rebase, ~100 s); and the handshake
// flood (its WebRTC connections take the machine's cores for half a minute: handshake_flood);
// and a Firefox tab beside a Chromium one (firefox: it needs firefox-esr and xvfb).
const SLOW = new Set(['sim10k', 'adversarial_1k', 'adversarial_2k', 'adversarial_10k', 'hidden_host_10min', 'headless', 'hosting_scale', 'idle_cost', 'network_change', 'sybil_1k', 'draw_rate', 'fuzz', 'sim_safety_rebase', 'handshake_flood', 'firefox']);
const LATEST = 'bench/results/latest.json';
// Every run merges into the previous figures, a bare one too: it skips the named-only
// benchmarks, and starting from nothing would drop their figures (the README's headline
// rows of the 10,000-node and 1,000-peer simulations among them). A figure not re-run keeps
// its own date and commit in provenance.json, so it reads as old, not as current.
const results: Record<string, number> = existsSync(LATEST) ? JSON.parse(readFileSync(LATEST, 'utf8')) : {};
// When and on what each figure was measured (bench/provenance.ts), and the doc's figures section (bench/report.ts).
const provenance = readProvenance();
const measuredOn = currentCommit();
let failed = 0;
// A name given exactly runs only that benchmark (`hosting` is not `hosting_scale`, an hour
// long); any other word runs every benchmark whose name contains it (`sim`, `adversar`).
const exact = new Set(benches.map(([name]) => name));
const chosen = (name: string) => only.some((o) => (exact.has(o) ? name === o : name.includes(o)));
const runStart = performance.now();
/** latest.json, provenance.json and the docs' generated figures, as they stand. */
function save(): void {
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(LATEST, `${JSON.stringify(results, null, 2)}\n`);
  writeProvenance(provenance);
  writeReport();
}
for (const [name, run] of benches) {
  if (only.length ? !chosen(name) : SLOW.has(name)) continue;
  const t0 = performance.now();
  try {
    const r = await run();
    Object.assign(results, r);
    for (const k of Object.keys(r)) provenance[k] = { ...measuredOn, bench: name };
    console.error(`bench ${name}: ${JSON.stringify(r)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (err) {
    failed++;
    console.error(`bench ${name} FAILED:`, err);
  }
  // Written after every benchmark, so a long run interrupted late keeps what it measured.
  save();
}
// The issue on what a tab costs asks the default run to stay under 30 minutes: a bare run
// records how long it took and how many of its benchmarks failed, a named one leaves both.
if (!only.length) {
  const run: Record<string, number> = { bench_default_wall_s: Math.round((performance.now() - runStart) / 1000), bench_default_failed: failed };
  Object.assign(results, run);
  for (const k of Object.keys(run)) provenance[k] = { ...measuredOn };
  save();
}
console.log(JSON.stringify(results, null, 2));
process.exit(failed ? 1 : 0);
