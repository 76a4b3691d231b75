// With 8 bot tabs on loopback (bench/agents.ts, rendering off): edit_visible_ms (block
// placed by one bot, visible at another; misses counted, late and never apart),
// loaded_gap_frames (frames with a column missing inside render distance - 2 while bots
// walk across chunk and region borders; with rendering off, drawn means loaded: the
// rendered figure is border_gap_frames, bench/border-bench.ts), and how the bots joined.
//
// One run of 8 bots swings a lot on a 2-core machine (two runs of one build differ as much
// as two builds), so the bench runs HOSTING_RUNS (default 3) worlds one after the other
// and reports each latency, rate and per-run count as the median over runs, and every
// sample count (samples, missed, late, left, superseded, never, errors, dropped) as the sum
// over runs, so a sample missed in any run is reported.
//
// Every world is run with its samples (bench/edit-samples.ts: each bot's hosting trace read
// every 2 s, its long tasks): a world with a confirmed edit never shown (or superseded)
// keeps them, with each such edit's region, primary and the watcher's attaches there
// (`never`), in $TMPDIR/hosting-never-*.json, named on stderr; a world without one deletes
// them (they are ~0.4 MB a world).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgents } from './agents';
import { median } from './stats';

type Run = Record<string, number>;

async function oneRun(world: number): Promise<Run> {
  const samples = join(tmpdir(), `hosting-never-${new Date().toISOString().replace(/[:.]/g, '-')}-world${world}.json`);
  // Quiet but for the one-line summaries of the confirmed edits not shown.
  const r = await runAgents({ count: 8, seconds: 30, log: (l) => { if (l.startsWith('agents: not shown')) console.error(l); }, samples });
  const { never, superseded } = r.edit_visible_ms;
  if (never + superseded > 0) console.error(`hosting: world ${world}: ${never} confirmed edits never shown, ${superseded} superseded; samples (their \`never\` list) -> ${samples}`);
  else rmSync(samples, { force: true });
  const sum = (k: string) => r.stats.reduce((n, s) => n + (s[k] ?? 0), 0);
  return {
    edit_visible_ms_p50: r.edit_visible_ms.p50,
    edit_visible_ms_p99: r.edit_visible_ms.p99,
    edit_visible_samples: r.edit_visible_ms.samples,
    edit_visible_missed: r.edit_visible_ms.missed,
    edit_visible_late: r.edit_visible_ms.late,
    edit_visible_shown_unstamped: r.edit_visible_ms.shown_unstamped,
    edit_visible_unconfirmed: r.edit_visible_ms.unconfirmed,
    edit_visible_never: r.edit_visible_ms.never,
    edit_visible_left: r.edit_visible_ms.left,
    edit_visible_superseded: r.edit_visible_ms.superseded,
    edit_visible_watch_errors: r.edit_visible_ms.watch_errors,
    edit_visible_unwatched: r.edit_visible_ms.unwatched,
    edit_visible_unstamped: r.edit_visible_ms.unstamped,
    edit_visible_changes_dropped: r.edit_visible_ms.changes_dropped,
    agents_bots: r.bots,
    agents_joined: r.joined,
    agents_stats_errors: r.stats_errors,
    loaded_gap_frames: sum('gapFrames'),
    agents_crossings: r.chunk_crossings,
    agents_join_ms_p50: r.join_ms.p50,
    agents_join_id_ms_p50: r.join_work_ms.id.p50,
    agents_join_pass_ms_p50: r.join_work_ms.pass.p50,
    agents_edit_failures: r.edits.failed,
    agents_edits_occupied: r.edits.occupied,
    agents_chunk_snapshot_ms_p50: r.chunk_snapshot_ms.p50,
    agents_chunk_snapshot_ms_p99: r.chunk_snapshot_ms.p99,
    agents_remote_position_hz: r.remote_position_hz,
    agents_remote_position_share: r.remote_position_share,
    agents_moves_sent_hz: r.moves_sent_hz,
    agents_steps_hz: r.position_updates_hz,
    agents_failovers_seen: r.failovers,
    agents_failovers_walk: r.failovers_walk,
    // Why primaries changed (host stats summed over bots): a live primary taken for dead and
    // deposed (with nobody killed, every takeover is one), a closer node handed the region,
    // a host set changed under its primary.
    agents_takeovers: sum('hosting_host_takeovers'),
    agents_silence_claims: sum('hosting_host_silenceClaims'),
    agents_subscribe_claims: sum('hosting_host_subscribeClaims'),
    agents_handoffs: sum('hosting_host_handoffs'),
    agents_reconfigs: sum('hosting_host_reconfigs'),
    agents_claims: sum('hosting_host_claims'),
    agents_claims_failed: sum('hosting_host_claimsFailed'),
    agents_own_stalls: sum('hosting_host_ownStalls'),
    // Links the transport closed as dead (no frame for pathDeadMs while we owed an answer) or
    // stalled (no drain): a starved tab's links closed this way leave its hosts without beats.
    agents_path_dead_links: sum('net_transport_pathDeadLinksClosed'),
    agents_stalled_links: sum('net_transport_stalledLinksClosed'),
  };
}

/** Counts of samples: summed over runs, so nothing missed in one run is hidden by a median. */
const SUMMED = new Set([
  'edit_visible_samples', 'edit_visible_missed', 'edit_visible_late', 'edit_visible_shown_unstamped', 'edit_visible_unconfirmed', 'edit_visible_never', 'edit_visible_left', 'edit_visible_superseded',
  'edit_visible_watch_errors', 'edit_visible_unwatched', 'edit_visible_unstamped',
  'edit_visible_changes_dropped', 'agents_stats_errors', 'agents_edit_failures', 'agents_edits_occupied', 'loaded_gap_frames',
]);

export function combineRuns(runs: Run[]): Run {
  const out: Run = { agents_runs: runs.length };
  for (const k of Object.keys(runs[0] ?? {})) {
    const values = runs.map((r) => r[k] ?? 0);
    out[k] = SUMMED.has(k) ? values.reduce((a, b) => a + b, 0) : median(values);
  }
  // A bot that never joined in any run is a failed sample: report the fewest joined.
  if (runs.length > 0) out.agents_joined = Math.min(...runs.map((r) => r.agents_joined ?? 0));
  return out;
}

export async function benchHosting(): Promise<Record<string, number>> {
  const n = Math.max(1, Number(process.env.HOSTING_RUNS ?? 3));
  const runs: Run[] = [];
  for (let i = 0; i < n; i++) runs.push(await oneRun(i + 1));
  return combineRuns(runs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchHosting()));
}
