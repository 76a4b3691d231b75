// Lookups measured while the network changes under them: lookups start evenly
// over `spanMs` of virtual time, and so do the replacements (a silent kill of a random
// joined node, a newcomer joining at once), so lookups meet dead contacts, half-known
// newcomers and tables being repaired, not a network that settled between batches.
import type { DhtNode } from '../dht/dht-node';
import type { LookupResult } from '../dht/lookup';
import type { SimCluster } from './sim-cluster';

export interface ChurnLookupOptions {
  lookups: number;
  /** Nodes replaced during the span (0: lookups on a network left alone). */
  replace: number;
  spanMs: number;
  /** Which nodes may ask and be looked for (default all): the honest ones, say. */
  eligible?: (n: DhtNode) => boolean;
  /** Called for each node killed (before its replacement joins). */
  onKill?: (hex: string) => void;
  /** A lookup that missed (its target not first). */
  onMiss?: (target: DhtNode, res: LookupResult, from: DhtNode) => void;
}

export interface ChurnLookupFigures {
  /** Lookups counted: asker and target both alive at the end. */
  counted: number;
  /** Of those, the share whose result named the target first. */
  success: number;
  /** Hops of the counted lookups, sorted. */
  hops: number[];
  /** RPCs per counted lookup. */
  rpcs: number;
  killed: number;
}

/** A random joined node that `eligible` takes (undefined after 100 tries). */
function pickEligible(c: SimCluster, eligible: (n: DhtNode) => boolean, not?: DhtNode): DhtNode | undefined {
  for (let i = 0; i < 100; i++) {
    const n = c.pick();
    if (n !== not && eligible(n)) return n;
  }
  return undefined;
}

export async function lookupsDuringChurn(c: SimCluster, o: ChurnLookupOptions): Promise<ChurnLookupFigures> {
  const eligible = o.eligible ?? (() => true);
  const jobs: Promise<unknown>[] = [];
  const hops: number[] = [];
  let ok = 0;
  let rpcs = 0;
  let killed = 0;
  const lookup = () => {
    const from = pickEligible(c, eligible);
    const target = from && pickEligible(c, eligible, from);
    if (!from || !target) return;
    jobs.push(
      from.findNode(target.selfId).then((res) => {
        // An asker or target that died meanwhile is not counted against the lookup.
        if (!c.nodes.has(target.selfHex) || !c.nodes.has(from.selfHex)) return;
        hops.push(res.hops);
        rpcs += res.queries;
        if (res.closest[0]?.hex === target.selfHex) ok++;
        else o.onMiss?.(target, res, from);
      }),
    );
  };
  const replaceOne = () => {
    const victim = c.pick();
    c.kill(victim.selfHex);
    killed++;
    o.onKill?.(victim.selfHex);
    jobs.push(c.joinOne());
  };
  for (let i = 0; i < o.lookups; i++) c.clock.setTimeout(lookup, (i * o.spanMs) / o.lookups);
  for (let i = 0; i < o.replace; i++) c.clock.setTimeout(replaceOne, ((i + 0.5) * o.spanMs) / o.replace);
  await c.run(o.spanMs);
  await c.settle(Promise.all(jobs));
  return { counted: hops.length, success: ok / Math.max(1, hops.length), hops: hops.sort((a, b) => a - b), rpcs: rpcs / Math.max(1, hops.length), killed };
}
