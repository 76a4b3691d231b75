// first_attach_*: a first subscription's wait, subscribe to first snapshot shown, on the
// simulation's virtual clock (src/testing/first-attach-sim.ts: 13 peers, 20 ms links; a
// player joins a hosted world, its own region and the 8 around it at once, then walks east
// across three region borders). Seeds 1-5; `own`: the median of the 5 own regions' waits;
// `join`: the 45 first subscriptions pooled; `crossing`: the regions that entered the ring
// on the walk, pooled. What a fresh subscriber's rank check (its own lookup of each key by
// disjoint paths, docs/TRUST.md rule 2) adds to a first attach, free of the machine's load.
import { firstAttach } from '../src/testing/first-attach-sim';
import { median, percentile } from './stats';

const SEEDS = [1, 2, 3, 4, 5];

export async function benchFirstAttach(): Promise<Record<string, number>> {
  const own: number[] = [], join: number[] = [], crossing: number[] = [];
  let unready = 0;
  for (const seed of SEEDS) {
    const f = await firstAttach({ seed, samples: true });
    own.push(f.own);
    join.push(...f.samples!.join);
    crossing.push(...f.samples!.crossing);
    unready += f.unready;
    console.error(`first_attach seed ${seed}: own ${f.own} ms, join p50/p90 ${f.join.p50}/${f.join.p90} ms, crossing p50/p90 ${f.crossing.p50}/${f.crossing.p90} ms, ${f.unready} unready, ${f.sweeps} lookups by disjoint paths`);
  }
  return {
    first_attach_own_ms_p50: median(own),
    first_attach_join_ms_p50: percentile(join, 50),
    first_attach_join_ms_p90: percentile(join, 90),
    first_attach_crossing_ms_p50: percentile(crossing, 50),
    first_attach_unready: unready,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchFirstAttach()));
}
