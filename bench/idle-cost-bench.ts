// idle_cost: the idle cost of hosting over hours (src/testing/idle-cost-sim.ts): walkers cross
// new ground for IDLE_COST_HOURS (4) virtual hours on IDLE_COST_PEERS (12) hosting peers
// (IDLE_COST_WALKERS walkers, 1),
// with idle regions unloaded (the default) and, to compare,
// without (`unloadAfterMs` Infinity, IDLE_COST_BEFORE_HOURS, 1 by default: its cost grows
// with the ground covered, so hours of it take long). Figures, read at the end of each run
// (idle_*_after_{H}h) and at one hour (idle_*_after_1h, the growth between):
// - regions_held (HostedRegions in memory, all peers), primaries (those with a tick loop),
//   timers (the virtual clock's pending timers), pinned_links (all peers);
// - lookups_per_min, upload_kbps, ticks_per_s: all peers, over the last 10 virtual minutes;
// - idle_returns_checked / _wrong: returns to a block placed earlier (its region unloaded
//   since, mostly) and how many showed another block; idle_edits_failed.
// Run: `npm run bench -- idle_cost` (only when named: minutes). CLI: `npm run sim -- --idle
// --peers 12 --walkers 1 --hours 4 [--unload-after-ms N] [--seed S]`.
import { runIdleCost, type IdleCostResult } from '../src/testing/idle-cost-sim';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export async function idleCostMain(): Promise<void> {
  const unload = arg('unload-after-ms');
  const r = await runIdleCost({
    peers: Number(arg('peers') ?? 12), walkers: Number(arg('walkers') ?? 1), hours: Number(arg('hours') ?? 4), seed: Number(arg('seed') ?? 1),
    ...(unload !== undefined ? { unloadAfterMs: Number(unload) } : {}),
    log: (l) => console.error(l),
  });
  console.log(JSON.stringify({ edits: r.edits, returns: r.returns, wallSec: Math.round(r.wallSec), last: r.samples.at(-1) }, null, 1));
}

function figures(prefix: string, r: IdleCostResult, hours: number): Record<string, number> {
  const out: Record<string, number> = {};
  const r1 = (x: number) => Math.round(x * 10) / 10;
  for (const h of new Set([1, hours])) {
    const s = r.samples.find((x) => x.atMin === h * 60);
    if (!s) continue;
    Object.assign(out, {
      [`${prefix}regions_held_after_${h}h`]: s.regionsHeld,
      [`${prefix}primaries_after_${h}h`]: s.primaries,
      [`${prefix}timers_after_${h}h`]: s.timers,
      [`${prefix}pinned_links_after_${h}h`]: s.pinnedLinks,
      [`${prefix}lookups_per_min_after_${h}h`]: r1(s.lookupsPerMin),
      [`${prefix}upload_kbps_after_${h}h`]: r1(s.uploadKbps),
      [`${prefix}ticks_per_s_after_${h}h`]: r1(s.ticksPerSec),
      [`${prefix}regions_visited_after_${h}h`]: s.regionsVisited,
    });
  }
  out[`${prefix}returns_checked`] = r.returns.checked;
  out[`${prefix}returns_wrong`] = r.returns.wrong;
  out[`${prefix}edits_failed`] = r.edits.failed;
  out[`${prefix}wall_s`] = Math.round(r.wallSec);
  return out;
}

export async function benchIdleCost(): Promise<Record<string, number>> {
  const peers = Number(process.env.IDLE_COST_PEERS ?? 12), hours = Number(process.env.IDLE_COST_HOURS ?? 4);
  const beforeHours = Number(process.env.IDLE_COST_BEFORE_HOURS ?? 1), walkers = Number(process.env.IDLE_COST_WALKERS ?? 1);
  const log = (l: string) => console.error(l);
  const after = await runIdleCost({ peers, walkers, hours, seed: 1, log });
  const out = figures('idle_', after, hours);
  if (beforeHours > 0) Object.assign(out, figures('idle_never_unload_', await runIdleCost({ peers, walkers, hours: beforeHours, seed: 1, unloadAfterMs: Infinity, log }), beforeHours));
  return out;
}
