import { describe, expect, it } from 'vitest';
import { combineRuns } from './hosting-bench';

describe('hosting bench over several runs', () => {
  it('takes medians of latencies and rates, sums sample counts, keeps the fewest joined', () => {
    const runs = [
      { edit_visible_ms_p99: 100, edit_visible_never: 0, edit_visible_samples: 400, agents_remote_position_hz: 15, agents_joined: 8 },
      { edit_visible_ms_p99: 7000, edit_visible_never: 3, edit_visible_samples: 300, agents_remote_position_hz: 2, agents_joined: 7 },
      { edit_visible_ms_p99: 120, edit_visible_never: 0, edit_visible_samples: 450, agents_remote_position_hz: 16, agents_joined: 8 },
    ];
    const c = combineRuns(runs);
    expect(c.agents_runs).toBe(3);
    expect(c.edit_visible_ms_p99).toBe(120);
    expect(c.agents_remote_position_hz).toBe(15);
    // A never-seen edit of any run stays counted.
    expect(c.edit_visible_never).toBe(3);
    expect(c.edit_visible_samples).toBe(1150);
    expect(c.agents_joined).toBe(7);
  });
});
