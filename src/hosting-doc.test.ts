// docs/HOSTING.md is the reference of the hosting protocol; every file, function, class,
// member, frame and channel it names in backticks must still be there (src/testing/doc-refs.ts),
// so a rename or move that leaves the reference behind fails here. Its tests are named too.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources } from './testing/import-graph';
import { staleRefs } from './testing/doc-refs';
import { HOST_DEFAULTS } from './host/host-options';

/**
 * The rows of a doc's "Timings and defaults" table that differ from the code: a name in
 * UPPER_CASE is a module constant (its value in `constants`), any other an option of
 * HOST_DEFAULTS, or of the client's options (`client`) in a row `client ...`.
 */
function wrongDefaults(doc: string, host: Record<string, unknown>, client: Record<string, unknown>, constants: Record<string, unknown> = {}): { rows: number; wrong: string[] } {
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
      const code = CONSTANT.test(k) ? constants[k] : options[k];
      if (code !== given[i]) wrong.push(`${k}: the doc says ${given[i]}, the code ${String(code)}`);
    });
  }
  return { rows: rows.length, wrong };
}

const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

/**
 * The module constants (UPPER_CASE) a doc's timings table names, each read from the one file
 * of `tree` (paths relative to `root`) that exports it; one exported by no file or by several
 * is left out (the row is then wrong).
 */
async function namedConstants(doc: string, tree: ReadonlyMap<string, string>, root: string): Promise<Record<string, unknown>> {
  const start = doc.indexOf('## Timings and defaults');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const names = new Set([...section.matchAll(/`(\w+)`/g)].map((m) => m[1]!).filter((n) => CONSTANT.test(n)));
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const homes = [...tree].filter(([, src]) => new RegExp(`^export const ${name}\\b`, 'm').test(src)).map(([p]) => p);
    if (homes.length !== 1) continue;
    const mod = (await import(resolve(root, homes[0]!))) as Record<string, unknown>;
    out[name] = mod[name];
  }
  return out;
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

  it("gives the hosts' and the client's defaults as the code has them", async () => {
    const doc = readFileSync(resolve(SRC, '../docs/HOSTING.md'), 'utf8');
    const tree = new Map([...readSources(SRC)].map(([p, s]) => [relative(SRC, p), s] as const));
    // The region client has no options: its rows name constants (play/region-client.ts and the modules beside it).
    const { rows, wrong } = wrongDefaults(doc, HOST_DEFAULTS, {}, await namedConstants(doc, tree, SRC));
    expect(rows).toBeGreaterThan(25);
    expect(wrong).toEqual([]);
  });

  it('the defaults check reads names and values in order, host or client, option or module constant', () => {
    const doc = '## Timings and defaults\n\n| option | default | why |\n|---|---|---|\n| `a` / `b` | 1,000 / 2 | x |\n| client `a` | 5 | y |\n\n## Next\n| `a` | 9 | z |\n';
    expect(wrongDefaults(doc, { a: 1000, b: 3 }, { a: 5 })).toEqual({ rows: 2, wrong: ['b: the doc says 2, the code 3'] });
    const consts = '## Timings and defaults\n\n| `a` / `A_MS` | 1 / 300 | x |\n| client `B_MS` | 7 | y |\n| `C_MS` | 4 | z |\n\n## Next\n';
    expect(wrongDefaults(consts, { a: 1, A_MS: 300 }, { B_MS: 7 }, { A_MS: 250, B_MS: 7 })).toEqual({
      rows: 3, wrong: ['A_MS: the doc says 300, the code 250', 'C_MS: the doc says 4, the code undefined'],
    });
  });

  it('reads each constant the table names from the one file that exports it', async () => {
    const doc = '## Timings and defaults\n\n| `HOST_SET_SIZE` / `NOWHERE_MS` / `TWICE_MS` | 3 / 1 / 2 | x |\n\n## Next\n';
    const tree = new Map([
      ['region/host-set-rules.ts', 'export const HOST_SET_SIZE = 3;'],
      ['a.ts', 'export const TWICE_MS = 2;'], ['b.ts', 'export const TWICE_MS = 2;'],
    ]);
    expect(await namedConstants(doc, tree, SRC)).toEqual({ HOST_SET_SIZE: 3 });
  });

  it('the check takes an interface member and a name the caller vouches for, and no other', () => {
    const tree = new Map([['dht/dht.ts', 'export interface Dht {\n  reach(id: NodeId): void;\n}']]);
    const doc = '`Dht.reach` and `Dht.gone`; `sim_safety_seeds` and `sim_nothing`.';
    expect(staleRefs(doc, tree, new Set(['sim_safety_seeds']))).toEqual(['Dht.gone: Dht has no gone', 'sim_nothing: declared nowhere in src/']);
  });
});
