// `npm run sim -- --nodes 10000 [--churn 0.2] [--seed 42] [--lookups 1000] [--json FILE]`
// (`npm run sim -- --hosting ...` runs the hosting simulation instead: bench/hosting-sim.ts;
// `npm run sim -- --idle ...` the idle-cost simulation: bench/idle-cost-bench.ts;
// `npm run sim -- --first-claims [--seeds 10]` a region's first claim: src/testing/first-claim-sim.ts)
// Runs the real src/dht code on the in-memory network and the virtual clock,
// deterministically per seed, and reports:
// - lookup hops p50/p95/p99: Kademlia rounds on the critical path (see src/dht/lookup.ts:
//   depth+1 of the node that decided the lookup). Each round's RPC may cross several links
//   when routed; those physical hops are `routedHopsPerRpc`.
// - lookup success: a FIND_NODE for a random live node's id returns that node first.
// - messages per lookup: link messages network-wide during the lookup phase / lookups
//   (includes the heartbeats and upkeep of that period; RPCs per lookup are exact).
// - live links per node (max/mean), get success after 30% of nodes were replaced, wall time.
// With --churn c, a second lookup phase replaces c*N nodes (killed and new ones joined)
// while lookups run, kills and joins spread over the minute the lookups start in; its
// success counts lookups whose asker and target were alive at the end.
// (`npm run sim -- --adversarial --nodes N [--hostile 0.2] ...` runs the adversarial
// simulation instead: bench/adversarial-bench.ts; `npm run sim -- --sybil-scale ...` the
// adversary kit at scale: bench/sybil-scale-bench.ts.)
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomId, type NodeId } from '../src/core/node-id';
import type { DhtNode } from '../src/dht/dht-node';
import type { LookupResult } from '../src/dht/lookup';
import { lookupsDuringChurn } from '../src/testing/churn-lookups';
import { firstClaims } from '../src/testing/first-claim-sim';
import { LARGE_SIM_DHT, SimCluster } from '../src/testing/sim-cluster';
import { adversarialSimMain } from './adversarial-bench';
import { hostingSimMain } from './hosting-sim';
import { idleCostMain } from './idle-cost-bench';
import { sybilScaleMain } from './sybil-scale-bench';

export interface SimOptions {
  nodes: number;
  /** Share of nodes replaced during the churn lookup phase (0 = skip the phase). */
  churn?: number;
  seed?: number;
  lookups?: number;
  /** Values put before the get-after-churn phase. Default min(lookups, 500). */
  values?: number;
  /** Share of nodes replaced before the gets. Default 0.3. */
  getChurn?: number;
  log?: (line: string) => void;
}

export interface SimResult {
  nodes: number;
  seed: number;
  lookupHops: { p50: number; p95: number; p99: number; mean: number };
  lookupSuccess: number;
  churnLookupSuccess: number | null;
  rpcsPerLookup: number;
  messagesPerLookup: number;
  routedHopsPerRpc: number;
  linksPerNode: { max: number; mean: number };
  getSuccessAfterChurn: number;
  putReplicas: number;
  joinFailures: number;
  virtualSeconds: number;
  wallSeconds: number;
  /** Largest V8 heap in use at a phase end or join batch, in MB. */
  peakHeapMB: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export async function runSim(opts: SimOptions): Promise<SimResult> {
  const t0 = performance.now();
  const log = opts.log ?? (() => {});
  const seed = opts.seed ?? 42;
  const lookups = opts.lookups ?? 1000;
  const c = new SimCluster({ seed, dht: LARGE_SIM_DHT, net: { latencyMs: 20, jitterMs: 5 } });
  let peakHeap = 0;
  const heap = () => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed));
  // Per-phase wall time, virtual time and link messages: where a run spends its time.
  let mark = { wall: t0, virt: 0, msgs: 0 };
  const phaseDone = (name: string) => {
    heap();
    const now = { wall: performance.now(), virt: c.clock.now(), msgs: c.net.stats.messages };
    const msgs = now.msgs - mark.msgs;
    const us = ((now.wall - mark.wall) * 1000) / Math.max(1, msgs);
    log(`phase ${name}: ${((now.wall - mark.wall) / 1000).toFixed(1)} s wall, ${((now.virt - mark.virt) / 1000).toFixed(0)} s virtual, ${msgs} messages (${us.toFixed(0)} us each)`);
    mark = now;
  };

  // Joins go in batches of up to a tenth of the network (each batch waits for its slowest
  // join, and upkeep traffic runs meanwhile: fewer, larger batches cost less).
  await c.grow(opts.nodes, {
    maxBatch: Math.max(100, Math.round(opts.nodes / 10)),
    onBatch: (n) => log(`joined ${n} nodes (${((performance.now() - t0) / 1000).toFixed(0)} s, heap ${(heap() / 2 ** 20).toFixed(0)} MB)`),
  });
  phaseDone('join');
  await c.clock.advance(30_000);
  phaseDone('settle');

  const linkFigures = () => {
    let max = 0;
    let sum = 0;
    for (const n of c.nodes.values()) {
      max = Math.max(max, n.links.size);
      sum += n.links.size;
    }
    return { max, mean: sum / c.size };
  };
  let links: { max: number; mean: number };

  // Lookups for random live nodes' ids, `parallel` at a time.
  const lookupPhase = async (count: number) => {
    const hops: number[] = [];
    let ok = 0;
    let rpcs = 0;
    const parallel = 100;
    for (let i = 0; i < count; i += parallel) {
      const jobs: Promise<void>[] = [];
      for (let j = i; j < Math.min(count, i + parallel); j++) {
        const from = c.pick();
        // A lookup never returns the asking node itself: a self-pick used to count as a miss
        // (the 2 misses of the 1,000-node run).
        let target = c.pick();
        while (target === from) target = c.pick();
        jobs.push(
          from.findNode(target.selfId).then((res) => {
            // A target that left meanwhile is not counted against the lookup.
            if (!c.nodes.has(target.selfHex)) return;
            hops.push(res.hops);
            rpcs += res.queries;
            if (res.closest[0]?.hex === target.selfHex) ok++;
            else log(missNote(c, target, res));
          }),
        );
      }
      await c.settle(Promise.all(jobs));
    }
    return { hops: hops.sort((a, b) => a - b), success: ok / Math.max(1, hops.length), rpcs: rpcs / Math.max(1, hops.length) };
  };

  const m0 = c.net.stats.messages;
  const routed0 = sum(c, (n) => n.stats.routedForwarded + n.stats.routedSent);
  const rpc0 = sum(c, (n) => n.stats.rpcSent);
  const phase = await lookupPhase(lookups);
  const messagesPerLookup = (c.net.stats.messages - m0) / lookups;
  const routedHopsPerRpc = (sum(c, (n) => n.stats.routedForwarded + n.stats.routedSent) - routed0) / Math.max(1, sum(c, (n) => n.stats.rpcSent) - rpc0);
  links = linkFigures();
  phaseDone('lookups');
  log(`lookups: success ${phase.success}, hops p50 ${pct(phase.hops, 0.5)} p99 ${pct(phase.hops, 0.99)}, links max ${links.max}`);

  // Values, put before any churn.
  const valueCount = opts.values ?? Math.min(lookups, 500);
  const keys: NodeId[] = [];
  let replicas = 0;
  for (let i = 0; i < valueCount; i += 100) {
    const jobs: Promise<void>[] = [];
    for (let j = i; j < Math.min(valueCount, i + 100); j++) {
      const key = randomId(c.rand);
      keys.push(key);
      jobs.push(c.pick().put('test', key, new TextEncoder().encode(`value ${j}`)).then((r) => void (replicas += r.stored)));
    }
    await c.settle(Promise.all(jobs));
  }
  phaseDone('puts');

  const replace = async (count: number) => {
    const victims = [...c.joinedAt.keys()];
    for (let i = 0; i < count && victims.length > 0; i++) {
      const at = Math.floor(c.rand() * victims.length);
      c.kill(victims.splice(at, 1)[0]!);
    }
    // The newcomers join at once (each off a random surviving node).
    await c.grow(count, { maxBatch: count });
  };

  let churnLookupSuccess: number | null = null;
  if (opts.churn && opts.churn > 0) {
    // Lookups while churn happens: churn*N nodes replaced over the same minute
    // of virtual time the lookups start in (churn-lookups.ts), not between lookup batches.
    const churned = await lookupsDuringChurn(c, { lookups, replace: Math.round(opts.churn * opts.nodes), spanMs: 60_000, onMiss: (t, res) => log(missNote(c, t, res)) });
    churnLookupSuccess = churned.success;
    phaseDone('churn lookups');
    log(`churn lookups: success ${churnLookupSuccess} of ${churned.counted}`);
  }

  // Replace 30% of the nodes, give upkeep a minute, then get every value from random nodes.
  await replace(Math.round((opts.getChurn ?? 0.3) * c.size));
  phaseDone('replace for gets');
  await c.clock.advance(60_000);
  phaseDone('upkeep before gets');
  let got = 0;
  for (let i = 0; i < keys.length; i += 100) {
    const jobs = keys.slice(i, i + 100).map((key, j) =>
      c
        .pick()
        .get('test', key)
        .then((v) => {
          if (v && new TextDecoder().decode(v.value) === `value ${i + j}`) got++;
        }),
    );
    await c.settle(Promise.all(jobs));
  }
  phaseDone('gets');
  links = { max: Math.max(links.max, linkFigures().max), mean: links.mean };

  const result: SimResult = {
    nodes: opts.nodes,
    seed,
    lookupHops: { p50: pct(phase.hops, 0.5), p95: pct(phase.hops, 0.95), p99: pct(phase.hops, 0.99), mean: avg(phase.hops) },
    lookupSuccess: phase.success,
    churnLookupSuccess,
    rpcsPerLookup: phase.rpcs,
    messagesPerLookup,
    routedHopsPerRpc,
    linksPerNode: links,
    getSuccessAfterChurn: got / Math.max(1, keys.length),
    putReplicas: replicas / Math.max(1, valueCount),
    joinFailures: c.joinFailures,
    virtualSeconds: c.clock.now() / 1000,
    wallSeconds: (performance.now() - t0) / 1000,
    peakHeapMB: Math.round(peakHeap / 2 ** 20),
  };
  c.stopAll();
  return result;
}

/** Why a lookup missed, as far as the outside can tell (a miss is rare: cost is no matter). */
function missNote(c: SimCluster, target: DhtNode, res: LookupResult): string {
  let knownBy = 0;
  for (const n of c.nodes.values()) if (n.table.has(target.selfHex)) knownBy++;
  const rank = res.closest.findIndex((x) => x.hex === target.selfHex);
  return `lookup miss: target ${target.selfHex.slice(0, 8)} in ${knownBy} tables, ${target.links.size} links; rank in result ${rank}; ${res.queries} queries, ${res.failures} failed`;
}

function sum(c: SimCluster, f: (n: DhtNode) => number): number {
  let s = 0;
  for (const n of c.nodes.values()) s += f(n);
  return s;
}

function avg(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** The bench runner's entry: the 10,000-node figures. */
export async function benchSim(): Promise<Record<string, number>> {
  // In a process of its own: `npm run sim` (bundled, large heap), not this tsx process.
  const json = join(tmpdir(), `sim10k-${process.pid}.json`);
  const args = ['run', '--silent', 'sim', '--', '--nodes', '10000', '--churn', '0.2', '--seed', '42', '--lookups', '1000', '--json', json];
  const code = await new Promise<number | null>((done) => spawn('npm', args, { stdio: ['ignore', 'inherit', 'inherit'] }).on('close', done));
  if (code !== 0) throw new Error(`npm run sim exited with ${code}`);
  const r = JSON.parse(readFileSync(json, 'utf8')) as SimResult;
  rmSync(json, { force: true });
  return {
    sim10k_lookup_hops_p50: r.lookupHops.p50,
    sim10k_lookup_hops_p99: r.lookupHops.p99,
    sim10k_lookup_success: r.lookupSuccess,
    sim10k_churn_lookup_success: r.churnLookupSuccess ?? 0,
    sim10k_links_per_node_max: r.linksPerNode.max,
    sim10k_churn_get_success: r.getSuccessAfterChurn,
  };
}

export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// Real paths: in a git worktree node_modules (where `npm run sim` bundles to) is a symlink,
// and import.meta.url names the file behind it.
const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (isMain && process.argv.includes('--hosting')) {
  await hostingSimMain();
} else if (isMain && process.argv.includes('--idle')) {
  await idleCostMain();
} else if (isMain && process.argv.includes('--adversarial')) {
  await adversarialSimMain();
} else if (isMain && process.argv.includes('--sybil-scale')) {
  await sybilScaleMain();
} else if (isMain && process.argv.includes('--first-claims')) {
  const seeds = Array.from({ length: Number(arg('seeds') ?? 10) }, (_, i) => i + 1);
  const f = await firstClaims({ seeds, peers: Number(arg('peers') ?? 13), regions: Number(arg('regions') ?? 40) });
  console.log(`first claims, subscribe to attach (virtual ms, ${f.attach.n} regions over ${seeds.length} seeds): p10 ${f.attach.p10} p50 ${f.attach.p50} p90 ${f.attach.p90} max ${f.attach.max}; ${f.unattached} not attached in 30 s`);
} else if (isMain) {
  const opts: SimOptions = {
    nodes: Number(arg('nodes') ?? 1000),
    churn: Number(arg('churn') ?? 0),
    seed: Number(arg('seed') ?? 42),
    lookups: Number(arg('lookups') ?? 1000),
    log: (l) => console.error(l),
  };
  const r = await runSim(opts);
  console.log(
    [
      `nodes ${r.nodes} (seed ${r.seed}, ${r.joinFailures} join retries)`,
      `lookup hops p50 ${r.lookupHops.p50} p95 ${r.lookupHops.p95} p99 ${r.lookupHops.p99} (mean ${r.lookupHops.mean.toFixed(2)})`,
      `lookup success ${r.lookupSuccess}` + (r.churnLookupSuccess === null ? '' : `, with ${opts.churn} churn ${r.churnLookupSuccess}`),
      `per lookup: ${r.rpcsPerLookup.toFixed(1)} RPCs, ${r.messagesPerLookup.toFixed(0)} link messages network-wide; ${r.routedHopsPerRpc.toFixed(2)} links per RPC`,
      `live links per node: max ${r.linksPerNode.max}, mean ${r.linksPerNode.mean.toFixed(1)}`,
      `get success after 30% churn ${r.getSuccessAfterChurn} (${r.putReplicas.toFixed(1)} replicas per put)`,
      `virtual ${r.virtualSeconds.toFixed(0)} s, wall ${r.wallSeconds.toFixed(1)} s, peak heap ${r.peakHeapMB} MB`,
    ].join('\n'),
  );
  const json = arg('json');
  if (json) writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
}
