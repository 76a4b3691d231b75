// The targets the issues set for benchmark figures (metric -> bound), in one place: the
// generated "Current figures" of docs/BENCHMARKS.md (bench/report.ts) shows each figure
// against its target. A figure without a target is reported, not judged.

export interface Target {
  op: '<=' | '>=' | '=';
  value: number;
}

const t = (op: Target['op'], value: number): Target => ({ op, value });

export const TARGETS: Record<string, Target> = {
  // the world and its rendering
  terrain_ms_per_column: t('<=', 1.0),
  mesh_ms_per_column: t('<=', 1.0),
  greedy_quads_ratio: t('<=', 0.25),
  first_frame_ms: t('<=', 3000),
  rendered_first_frame_ms: t('<=', 3000),
  // the default `npm run bench` (bench/run.ts)
  bench_default_wall_s: t('<=', 1800),
  bench_default_failed: t('=', 0),
  // joining and the DHT
  tab_join_ms: t('<=', 1500),
  tab_route_ms_p50: t('<=', 20),
  stale_invite_join_ms: t('<=', 3000),
  join_failure_explained_ms: t('<=', 5000),
  sim10k_churn_lookup_success: t('>=', 0.99),
  sim10k_churn_get_success: t('>=', 0.999),
  sim10k_links_per_node_max: t('<=', 32),
  sim1k_churn_lookup_success: t('>=', 0.99),
  sim1k_adv20_lookup_success: t('>=', 0.99),
  sim1k_adv20_get_success: t('>=', 0.99),
  sim1k_adv20_churn_lookup_success: t('>=', 0.99),
  sim1k_adv20_forged_accepted: t('=', 0),
  fuzz_frames: t('>=', 1_000_000),
  fuzz_failures: t('=', 0),
  // hosting: edits, failover, crowds (what a tab costs)
  edit_visible_ms_p50: t('<=', 60),
  edit_visible_ms_p99: t('<=', 200),
  edit_visible_never: t('=', 0),
  agents_remote_position_hz: t('>=', 15),
  // A position goes only when it changed (or every 800 ms standing still) on a 10 Hz beat, so
  // no one can see another faster than 10 Hz: 15 Hz was set when the old code's figure counted
  // repeats of unchanged lists. The share of what the others sent that arrived is what can
  // be judged now; the 15 Hz target is kept as it was set, and reads as missed.
  agents_remote_position_share: t('>=', 0.9),
  failover_crash_ms_p50: t('<=', 1000),
  failover_crash_ms_max: t('<=', 2000),
  failover_crash_lost_edits: t('=', 0),
  throttled_host_false_failovers: t('<=', 1),
  throttled_host_edits_unseen: t('=', 0),
  tab_cpu_ms_per_s_member: t('<=', 20),
  hidden_host_tick_hz: t('>=', 19),
  hidden_host_10min_tick_hz: t('>=', 19),
  border_gap_frames: t('=', 0),
  loaded_gap_frames: t('=', 0),
  sim1k_links_per_player_p99: t('<=', 16),
  sim1k_host_kbps_p99: t('<=', 64),
  crowd200_host_kbps_max: t('<=', 256),
  crowd200_nearest32_hz_p10: t('>=', 10),
  // chat
  chat_visible_ms_p50: t('<=', 60),
  chat_visible_ms_p99: t('<=', 200),
  chat_visible_missed: t('=', 0),
  // items and clocks
  item_pickup_ms_p50: t('<=', 200),
  pickup_decision_ms_p50: t('<=', 200),
  spawn_skew_ms_max: t('<=', 17),
  sim_spawn_skew_ms_p50: t('<=', 17),
  sim_world_clock_error_ms_p99: t('<=', 2),
  sim_world_clock_event_skew_ms_max: t('<=', 17),
  clock_offset_error_ms_p99: t('<=', 2),
  // authority an attacker cannot mint
  sim_sybil_accepted: t('=', 0),
  sim_sybil_regions_frozen: t('=', 0),
  sim_sybil_failover_ms_p50: t('<=', 1000),
  sim_sybil_accepted_1k_20pct: t('=', 0),
  sim_sybil_regions_frozen_1k_20pct: t('=', 0),
  sim_adversary_accepted_outside: t('=', 0),
  sim_adversary_accepted_inside: t('=', 0),
  sim_adversary_undelivered: t('=', 0),
  sim_adversary_uncounted: t('=', 0),
  sim_adversary_no_primary_ms_max: t('<=', 2100),
  sim_adversary_double_primaries: t('=', 0),
};

/** Whether `value` meets `target`. */
export function meets(value: number, target: Target): boolean {
  return target.op === '<=' ? value <= target.value : target.op === '>=' ? value >= target.value : value === target.value;
}
