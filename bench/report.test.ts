// docs/BENCHMARKS.md's "Current figures" say what bench/results/latest.json holds, and the
// report marks a missed target.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentSection, DOC, renderFigures, withFigures } from './report';

describe('the generated figures of docs/BENCHMARKS.md', () => {
  it('are those of bench/results/latest.json (run `npm run bench:report` after editing it)', () => {
    expect(readFileSync(DOC, 'utf8').includes(currentSection())).toBe(true);
  });

  it('list a figure that misses its target, with its date and commit, and replace themselves in place', () => {
    const section = renderFigures({ failover_crash_ms_p50: 2810, edit_visible_never: 0, other_figure: 1.23456 }, { failover_crash_ms_p50: { commit: 'abc1234', date: '2026-12-04', bench: 'failover_crash' } });
    expect(section).toContain('**Targets missed:** 1 of 2 figures with a target:');
    expect(section).toContain('| `failover_crash_ms_p50` | 2,810 | <= 1,000 | 2026-12-04 abc1234 (`failover_crash`) |');
    expect(section).toContain('| `other_figure` | 1.23 |  | undated |');
    const doc = withFigures('# B\n\nintro.\n\n## Old\ntext\n', section);
    expect(doc.startsWith('# B\n\nintro.\n\n<!-- figures:begin')).toBe(true);
    expect(withFigures(doc, 'X').split('\n').filter((l) => l.startsWith('<!-- figures'))).toEqual([]);
    expect(withFigures(doc, section)).toBe(doc);
  });
});
