import { describe, expect, it } from 'vitest';
import { DerivationBudget } from './derivation-budget';

describe('DerivationBudget', () => {
  it("spends a source's burst, then its rate; another source keeps its own; the total bounds them all", () => {
    let now = 0;
    const b = new DerivationBudget({ perSourcePerSec: 2, perSourceBurst: 4, totalPerSec: 5, totalBurst: 10, sources: 8 }, () => now);
    const takes = (source: string, n: number) => Array.from({ length: n }, () => b.take(source)).filter(Boolean).length;
    expect(takes('link:evil', 100)).toBe(4);
    expect(b.refused).toBe(96);
    expect(takes('link:honest', 1)).toBe(1);
    now = 1000;
    expect(takes('link:evil', 100), 'two a second').toBe(2);
    // Many sources together: the total's burst (10, 5 spent above, 5 refilled) and no more.
    now = 10_000;
    const all = ['a', 'b', 'c', 'd', 'e', 'f'].reduce((n, s) => n + takes(s, 4), 0);
    expect(all).toBe(10);
  });
});
