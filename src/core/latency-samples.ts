// The last N latency samples of one kind, summarised by nearest-rank percentiles: cheap
// enough to record on every edit, bounded in memory, for stats and dashboards.
import { percentile } from './percentile';

export interface LatencySummary {
  p50: number;
  p99: number;
  samples: number;
}

export class LatencySamples {
  private readonly xs: number[] = [];
  /** Samples recorded in all (the summary covers the last `size`). */
  total = 0;

  constructor(private readonly size = 256) {}

  add(ms: number): void {
    this.total++;
    this.xs.push(ms);
    if (this.xs.length > this.size) this.xs.shift();
  }

  summary(): LatencySummary {
    return { p50: percentile(this.xs, 0.5), p99: percentile(this.xs, 0.99), samples: this.xs.length };
  }

  /** { `${prefix}_p50`, `${prefix}_p99`, `${prefix}_samples` } for flat stats objects. */
  flat(prefix: string): Record<string, number> {
    const s = this.summary();
    return { [`${prefix}_p50`]: s.p50, [`${prefix}_p99`]: s.p99, [`${prefix}_samples`]: s.samples };
  }
}
