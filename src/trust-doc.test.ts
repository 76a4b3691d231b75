// docs/TRUST.md says what holds and what does not, with figures: every file, function, member
// and frame it names in backticks must still be there (src/testing/doc-refs.ts, as for
// docs/HOSTING.md), and each row of its "What holds, measured" table must give the date and
// commit its figures were last measured on (bench/results/provenance.json), so a re-measured
// figure sends the reader's eye back to the row it changes.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources } from './testing/import-graph';
import { staleRefs } from './testing/doc-refs';

const SRC = resolve(import.meta.dirname);
const read = (path: string) => readFileSync(resolve(SRC, '..', path), 'utf8');

/** `a_{x,y}` is `a_x` and `a_y`. */
function expand(name: string): string[] {
  const g = /\{([^{}]*)\}/.exec(name);
  if (!g) return [name];
  return g[1]!.split(',').flatMap((alt) => expand(name.slice(0, g.index) + alt + name.slice(g.index + g[0].length)));
}

/** Rows of the measured table whose "measured" cell is not every named metric's date and commit. */
export function staleRows(doc: string, prov: Record<string, { date: string; commit: string }>): string[] {
  const start = doc.indexOf('## What holds, measured');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = section.split('\n').filter((l) => /^\| [^-|]/.test(l) && !l.startsWith('| claim '));
  const out: string[] = [];
  for (const row of rows) {
    const [, metrics = '', , measured = ''] = row.split('|').slice(1).map((c) => c.trim());
    for (const m of [...metrics.matchAll(/`([^`]+)`/g)].flatMap((x) => expand(x[1]!))) {
      const p = prov[m];
      if (!p) out.push(`${m}: no provenance`);
      else if (!measured.startsWith(`${p.date} ${p.commit}`)) out.push(`${m}: the doc says ${measured}, measured ${p.date} ${p.commit}`);
    }
  }
  return rows.length ? out : ['no rows'];
}

describe('docs/TRUST.md', () => {
  it('names only files, functions, members, frames and metrics that exist', () => {
    const tree = new Map([...readSources(SRC)].map(([p, s]) => [relative(SRC, p), s] as const));
    const metrics = new Set(Object.keys(JSON.parse(read('bench/results/latest.json')) as Record<string, number>));
    expect(staleRefs(read('docs/TRUST.md'), tree, metrics)).toEqual([]);
  });

  it('dates each measured figure as provenance.json does', () => {
    expect(staleRows(read('docs/TRUST.md'), JSON.parse(read('bench/results/provenance.json')))).toEqual([]);
  });

  it('the row check expands names and reads the date and commit', () => {
    const doc = '## What holds, measured\n\n| claim | metric | value | measured |\n|---|---|---|---|\n| x | `a_{p,q}` | 1 | 2026-12-05 abc (note) |\n\n## Next\n';
    expect(staleRows(doc, { a_p: { date: '2026-12-05', commit: 'abc' }, a_q: { date: '2026-12-05', commit: 'abc' } })).toEqual([]);
    expect(staleRows(doc, { a_p: { date: '2026-12-06', commit: 'def' } })).toEqual(['a_p: the doc says 2026-12-05 abc (note), measured 2026-12-06 def', 'a_q: no provenance']);
  });
});
