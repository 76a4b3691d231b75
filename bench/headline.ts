// The README's headline figures: which metrics of bench/results/latest.json each row shows.
// bench/report.ts renders them into README.md with their values, targets (bench/targets.ts)
// and the date and commit each was measured on, so the README says what the file holds now.

export interface HeadlineRow {
  /** What the row measures, naming its metrics in the order `metrics` lists them. */
  what: string;
  metrics: readonly string[];
}

export const HEADLINE: readonly HeadlineRow[] = [
  { what: 'first frame: page load to the terrain drawn, ms', metrics: ['first_frame_ms'] },
  { what: 'new tab to its first DHT lookup answered with another node / routed message p50, ms', metrics: ['tab_join_ms', 'tab_route_ms_p50'] },
  { what: 'frames with a column missing while walking, rendered at render distance 8', metrics: ['border_gap_frames'] },
  { what: '10,000 simulated nodes: lookup hops p50 / p99, lookups found without churn / with 20% churn', metrics: ['sim10k_lookup_hops_p50', 'sim10k_lookup_hops_p99', 'sim10k_lookup_success', 'sim10k_churn_lookup_success'] },
  {
    what: '8 bot tabs on one 2-core machine: a block placed to visible at another, p50 / p99 ms, never seen; remote positions a second per bot, share of those sent that arrived; failovers with nobody killed (`npm run bench -- hosting`)',
    metrics: ['edit_visible_ms_p50', 'edit_visible_ms_p99', 'edit_visible_never', 'agents_remote_position_hz', 'agents_remote_position_share', 'agents_failovers_seen'],
  },
  { what: "a primary tab's renderer crashed to the next confirmed edit, p50 / max ms, confirmed edits lost (20 crashes)", metrics: ['failover_crash_ms_p50', 'failover_crash_ms_max', 'failover_crash_lost_edits'] },
  { what: 'a simulated primary killed silently (30 seeds x 8) to the next confirmed edit, p50 / p90 ms, edits lost', metrics: ['sim_failover_silent_ms_p50', 'sim_failover_silent_ms_p90', 'sim_failover_silent_lost_edits'] },
  { what: 'simulated crashes, splits, stalls and loss: seeds with a finding (two primaries, a lost or doubled edit, no primary after healing) / seeds', metrics: ['sim_safety_seeds_with_findings', 'sim_safety_seeds'] },
  { what: 'a hosting tab in the background: tick rate, Hz', metrics: ['hidden_host_tick_hz'] },
  { what: 'host.html hidden for 10 minutes, primary of a region edited once a second: tick rate, its minimum, share of edits confirmed', metrics: ['hidden_host_10min_tick_hz', 'hidden_host_10min_tick_hz_min', 'hidden_host_10min_edits_confirmed_share'] },
  { what: 'joining: an unreachable relay explained / an invite from a crashed inviter to the first live link / the invited friend rendering, to terrain drawn, ms', metrics: ['join_failure_explained_ms', 'stale_invite_join_ms', 'rendered_first_frame_ms'] },
  { what: 'a chat line from one tab to another, p50 / p99 ms', metrics: ['chat_visible_ms_p50', 'chat_visible_ms_p99'] },
  { what: 'world clock error between real tabs, p99 ms: tabs that draw nothing / the drawing tab', metrics: ['clock_offset_error_ms_p99_idle_tabs', 'clock_offset_error_ms_p99_drawing_tab'] },
  { what: "an item's appearance, latest minus earliest tab, max ms: all tabs / the tabs that draw nothing", metrics: ['spawn_skew_ms_max', 'spawn_skew_ms_max_idle_tabs'] },
  { what: 'greedy quads over naive faces (ambient occlusion splits quads)', metrics: ['greedy_quads_ratio'] },
  { what: "1,000 simulated peers: a player's hosting links p99 / a host's upload p99, kB/s / edit to visible p99, ms", metrics: ['sim1k_links_per_player_p99', 'sim1k_host_kbps_p99', 'sim1k_edit_visible_ms_p99'] },
  { what: "a crowd of 200 players in one region, simulated: the busiest peer's upload, kB/s / each player's 32 nearest heard, p10 Hz", metrics: ['crowd200_host_kbps_max', 'crowd200_nearest32_hz_p10'] },
  { what: "an attacker's blocks honest peers showed or stored: Sybil certificates / the adversary kit's rows from outside / inside the host set", metrics: ['sim_sybil_accepted', 'sim_adversary_accepted_outside', 'sim_adversary_accepted_inside'] },
  { what: 'regions left without a primary by 2 live attacker ids near their key, of runs (docs/TRUST.md "What it does not stop")', metrics: ['sim_sybil_regions_frozen_2near', 'sim_sybil_runs_2near'] },
];
