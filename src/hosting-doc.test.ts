// docs/HOSTING.md is the reference of the hosting protocol; every file, function, class,
// member, frame and channel it names in backticks must still be there (src/testing/doc-refs.ts),
// so a rename or move that leaves the reference behind fails here. Its tests are named too.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources } from './testing/import-graph';
import { staleRefs } from './testing/doc-refs';
import { HOST_DEFAULTS } from './host/host-options';
import { CLIENT_DEFAULTS } from './play/region-client-types';

/** The rows of a doc's "Timings and defaults" table that differ from the options they name (a row `client ...` names CLIENT_DEFAULTS). */
function wrongDefaults(doc: string, host: Record<string, unknown>, client: Record<string, unknown>): { rows: number; wrong: string[] } {
  const start = doc.indexOf('## Timings and defaults');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = section.split('\n').filter((l) => /^\| (client )?`/.test(l));
  const wrong: string[] = [];
  for (const row of rows) {
    const [names = '', values = ''] = row.split('|').slice(1, 3).map((c) => c.trim());
    const keys = [...names.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
    const given = values.split(' / ').map((v) => Number(v.replace(/,/g, '')));
    const options = names.startsWith('client') ? client : host;
    if (keys.length !== given.length) wrong.push(`${names}: ${keys.length} names, ${given.length} values`);
    keys.forEach((k, i) => {
      if (options[k] !== given[i]) wrong.push(`${k}: the doc says ${given[i]}, the code ${String(options[k])}`);
    });
  }
  return { rows: rows.length, wrong };
}

const SRC = resolve(import.meta.dirname);

describe('docs/HOSTING.md', () => {
  it('names only files, functions, classes, members, frames and channels that exist where it says', () => {
    const tree = new Map([...readSources(SRC)].map(([p, s]) => [relative(SRC, p), s] as const));
    const doc = readFileSync(resolve(SRC, '../docs/HOSTING.md'), 'utf8');
    // Benchmark metrics it cites are latest.json's keys, not code.
    const metrics = new Set(Object.keys(JSON.parse(readFileSync(resolve(SRC, '../bench/results/latest.json'), 'utf8')) as Record<string, number>));
    expect((doc.match(/`[^`\n]+\.ts`/g) ?? []).length).toBeGreaterThan(50);
    expect(staleRefs(doc, tree, metrics)).toEqual([]);
  });

  it("gives the hosts' and the client's defaults as the code has them", () => {
    const doc = readFileSync(resolve(SRC, '../docs/HOSTING.md'), 'utf8');
    const { rows, wrong } = wrongDefaults(doc, HOST_DEFAULTS, CLIENT_DEFAULTS);
    expect(rows).toBeGreaterThan(25);
    expect(wrong).toEqual([]);
  });

  it('the defaults check reads names and values in order, host or client', () => {
    const doc = '## Timings and defaults\n\n| option | default | why |\n|---|---|---|\n| `a` / `b` | 1,000 / 2 | x |\n| client `a` | 5 | y |\n\n## Next\n| `a` | 9 | z |\n';
    expect(wrongDefaults(doc, { a: 1000, b: 3 }, { a: 5 })).toEqual({ rows: 2, wrong: ['b: the doc says 2, the code 3'] });
  });

  it('the check takes an interface member and a name the caller vouches for, and no other', () => {
    const tree = new Map([['dht/dht.ts', 'export interface Dht {\n  reach(id: NodeId): void;\n}']]);
    const doc = '`Dht.reach` and `Dht.gone`; `sim_safety_seeds` and `sim_nothing`.';
    expect(staleRefs(doc, tree, new Set(['sim_safety_seeds']))).toEqual(['Dht.gone: Dht has no gone', 'sim_nothing: declared nowhere in src/']);
  });
});
