// docs/BENCHMARKS.md's "Current figures" say what bench/results/latest.json holds, and the
// report marks a missed target.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { benchNames, currentHeadline, currentSection, DOC, expandBraces, methodCommands, README, renderFigures, renderHeadline, withFigures, withHeadline } from './report';
import { HEADLINE } from './headline';
import { TARGETS } from './targets';

/** Every name the sections after the generated figures write in backticks. */
function namedInMethods(doc: string): Set<string> {
  const methods = doc.slice(doc.indexOf('<!-- figures:end -->'));
  return new Set([...methods.matchAll(/`([^`\n]+)`/g)].flatMap((m) => expandBraces(m[1]!)));
}

describe('the generated figures of docs/BENCHMARKS.md', () => {
  it('are those of bench/results/latest.json (run `npm run bench:report` after editing it)', () => {
    expect(readFileSync(DOC, 'utf8').includes(currentSection())).toBe(true);
  });

  it('are each described after them: every metric of latest.json and every target is named in a method', () => {
    const named = namedInMethods(readFileSync(DOC, 'utf8'));
    const latest = Object.keys(JSON.parse(readFileSync('bench/results/latest.json', 'utf8')) as Record<string, number>);
    expect([...latest, ...Object.keys(TARGETS)].filter((m) => !named.has(m))).toEqual([]);
  });

  it('read `a_{x,y}{,_z}` as the four names it stands for', () => {
    expect(expandBraces('a_{x,y}{,_z}')).toEqual(['a_x', 'a_x_z', 'a_y', 'a_y_z']);
    expect([...namedInMethods('<!-- figures:end -->\n`b_{p50,p99}` and `c`')]).toEqual(['b_p50', 'b_p99', 'c']);
  });

  it('list a figure that misses its target, with its date and commit, and replace themselves in place', () => {
    const section = renderFigures({ failover_crash_ms_p50: 2810, edit_visible_never: 0, other_figure: 1.23456 }, { failover_crash_ms_p50: { commit: 'abc1234', date: '2026-12-04', bench: 'failover_crash' } });
    expect(section).toContain('**Targets missed:** 1 of 2 figures with a target:');
    expect(section).toContain('| `failover_crash_ms_p50` | 2,810 | <= 1,000 | `npm run bench -- failover_crash` | 2026-12-04 abc1234 |');
    expect(section).toContain('| `other_figure` | 1.23 |  |  | undated |');
    const doc = withFigures('# B\n\nintro.\n\n## Old\ntext\n', section);
    expect(doc.startsWith('# B\n\nintro.\n\n<!-- figures:begin')).toBe(true);
    expect(withFigures(doc, 'X').split('\n').filter((l) => l.startsWith('<!-- figures'))).toEqual([]);
    expect(withFigures(doc, section)).toBe(doc);
  });
});

describe('the command of each figure', () => {
  it("is provenance's benchmark, else the first benchmark or npm command of the method section that names it", () => {
    const methods = '<!-- figures:end -->\n\n## A\n\n**T** (`"first frame"`): `a_{x,y}`, and `b`.\n\n### B\n\n`npm run sim -- --hosting`: `c`, `b`.\n\n### C\n\nno command: `d`.\n';
    const commands = methodCommands(methods, new Set(['first frame', 'hosting']));
    expect(commands).toMatchObject({ a_x: "npm run bench -- 'first frame'", a_y: "npm run bench -- 'first frame'", b: "npm run bench -- 'first frame'", c: 'npm run sim -- --hosting' });
    expect(commands.d).toBeUndefined();
    const section = renderFigures({ a_x: 1, c: 2 }, { c: { commit: 'abc1234', date: '2026-12-05', bench: 'hosting' } }, commands);
    expect(section).toContain("| `a_x` | 1 |  | `npm run bench -- 'first frame'` | undated |");
    expect(section).toContain('| `c` | 2 |  | `npm run bench -- hosting` | 2026-12-05 abc1234 |');
  });

  it("reads the benchmark names of bench/run.ts", () => {
    expect([...benchNames("const benches = [\n  ['terrain', benchWorld],\n  ['first frame', f],\n];")]).toEqual(['terrain', 'first frame']);
    expect(benchNames(readFileSync('bench/run.ts', 'utf8')).has('failover_crash')).toBe(true);
  });
});

describe("README's headline figures", () => {
  it('are those of bench/results/latest.json (run `npm run bench:report` after editing it or bench/headline.ts)', () => {
    expect(readFileSync(README, 'utf8').includes(currentHeadline())).toBe(true);
  });

  it('name only metrics latest.json holds', () => {
    const latest = JSON.parse(readFileSync('bench/results/latest.json', 'utf8')) as Record<string, number>;
    expect(HEADLINE.flatMap((r) => r.metrics).filter((m) => !(m in latest))).toEqual([]);
  });

  it('show each value against its target, a miss marked, with when each was measured, and replace themselves in place', () => {
    const rows = [{ what: 'crash to confirmed, p50 / max; other', metrics: ['failover_crash_ms_p50', 'failover_crash_ms_max', 'other_figure'] }];
    const prov = { failover_crash_ms_p50: { commit: 'abc1234', date: '2026-12-04', bench: 'failover_crash' }, failover_crash_ms_max: { commit: 'abc1234', date: '2026-12-04', bench: 'failover_crash' } };
    const section = renderHeadline(rows, { failover_crash_ms_p50: 921.5, failover_crash_ms_max: 2110, other_figure: 3 }, prov);
    expect(section).toContain('| crash to confirmed, p50 / max; other | <= 1,000 / <= 2,000 / - | 921.5 / 2,110 (missed) / 3 | undated; 2026-12-04 abc1234 (`failover_crash`) |');
    const readme = withHeadline(`# R\n\n${section.split('\n')[0]}\nold rows\n<!-- headline:end -->\nafter\n`, section);
    expect(readme).toBe(`# R\n\n${section}\nafter\n`);
    expect(withHeadline('# R without markers\n', section)).toBe('# R without markers\n');
  });
});

