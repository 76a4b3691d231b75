// docs/HOSTING.md is the reference of the hosting protocol; every file, function, class,
// member, frame and channel it names in backticks must still be there (src/testing/doc-refs.ts),
// so a rename or move that leaves the reference behind fails here. Its tests are named too.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources } from './testing/import-graph';
import { staleRefs } from './testing/doc-refs';

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

  it('the check takes an interface member and a name the caller vouches for, and no other', () => {
    const tree = new Map([['dht/dht.ts', 'export interface Dht {\n  reach(id: NodeId): void;\n}']]);
    const doc = '`Dht.reach` and `Dht.gone`; `sim_safety_seeds` and `sim_nothing`.';
    expect(staleRefs(doc, tree, new Set(['sim_safety_seeds']))).toEqual(['Dht.gone: Dht has no gone', 'sim_nothing: declared nowhere in src/']);
  });
});
