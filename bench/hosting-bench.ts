// With 8 bot tabs on loopback (bench/agents.ts, rendering off): edit_visible_ms (block
// placed by one bot, visible at another; misses counted, late and never apart),
// loaded_gap_frames (frames with a column missing inside render distance - 2 while bots
// walk across chunk and region borders; with rendering off, drawn means loaded: the
// rendered figure is border_gap_frames, bench/border-bench.ts), and how the bots joined.
import { runAgents } from './agents';

export async function benchHosting(): Promise<Record<string, number>> {
  const r = await runAgents({ count: 8, seconds: 30, log: () => {} });
  const sum = (k: string) => r.stats.reduce((n, s) => n + (s[k] ?? 0), 0);
  return {
    edit_visible_ms_p50: r.edit_visible_ms.p50,
    edit_visible_ms_p99: r.edit_visible_ms.p99,
    edit_visible_samples: r.edit_visible_ms.samples,
    edit_visible_missed: r.edit_visible_ms.missed,
    edit_visible_late: r.edit_visible_ms.late,
    edit_visible_never: r.edit_visible_ms.never,
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
    agents_edit_failures: r.edits.failed,
    agents_chunk_snapshot_ms_p50: r.chunk_snapshot_ms.p50,
    agents_chunk_snapshot_ms_p99: r.chunk_snapshot_ms.p99,
    agents_remote_position_hz: r.remote_position_hz,
    agents_failovers_seen: r.failovers,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchHosting()));
}
