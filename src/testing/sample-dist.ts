// Percentiles of a sample set, as the simulations' figures report them (hosting-scale-figures.ts,
// edit-tail.ts): a file of its own so the two need not import each other.
import { percentile } from '../core/percentile';

export interface Dist {
  p10: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

export function dist(xs: number[]): Dist {
  // (No Math.max(...xs): a crowd's samples number hundreds of thousands, past the call stack.)
  const max = xs.reduce((m, x) => (x > m ? x : m), -Infinity);
  return { p10: percentile(xs, 0.1), p50: percentile(xs, 0.5), p90: percentile(xs, 0.9), p99: percentile(xs, 0.99), max: xs.length ? max : NaN, n: xs.length };
}
