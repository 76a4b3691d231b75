// docs/DESIGN.md layer rule: a folder under src/ imports only from layers above it; product code
// never imports src/testing/ (harnesses, compliance suites, fakes); no import cycle.
// The checks live in src/testing/import-graph.ts; each is also run on a made-up tree that
// breaks it, so a checker that silently stopped seeing imports would fail here.
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, layerViolations, readSources, specifiers } from './testing/import-graph';

const SRC = resolve(import.meta.dirname);
const ROOT = resolve(SRC, '..');
/** What the relay (signaling/, a Node server) may take from src/: pure modules it shares with the tab. */
const RELAY_MAY_IMPORT = ['src/core/token-bucket.ts', 'src/net/relay-protocol.ts', 'src/net/ice-servers.ts', 'src/core/base64.ts', 'src/core/identity.ts', 'src/core/node-id.ts', 'src/core/key-ids.ts'];

/**
 * Cycles through type-only imports that are known and allowed (type imports are erased,
 * so no module waits on another at start-up). Any other cycle fails.
 * - The ticker worker shares its message types with the code that starts it through
 *   `new URL(...)`, which makes a separate bundle rather than an import.
 */
const KNOWN_TYPE_CYCLES = [
  ['app/worker-ticker.ts', 'app/worker-ticker.worker.ts'],
];

/** A made-up src/ tree: path (relative to /src) -> source. */
function tree(files: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(files).map(([p, s]) => [join('/src', p), s]));
}

describe('layer rule', () => {
  const files = readSources(SRC);

  it('no layer imports from a layer below it, and product code never imports src/testing/', () => {
    expect(files.size).toBeGreaterThan(100);
    expect(layerViolations(SRC, files)).toEqual([]);
  });

  it('no import cycle in src/ (type-only ones only where known)', () => {
    expect(importCycles(SRC, files, { values: true })).toEqual([]);
    const known = new Set(KNOWN_TYPE_CYCLES.map((c) => c.join(' ')));
    expect(importCycles(SRC, files).filter((c) => !known.has(c.join(' ')))).toEqual([]);
  });

  it('signaling/ imports from src/ only the shared pure modules, and src/ nothing from signaling/ (tests may start a relay)', () => {
    const both = new Map([...files, ...readSources(join(ROOT, 'signaling'))]);
    const crossings = [...importGraph(both)].flatMap(([from, targets]) =>
      targets.map((to) => [relative(ROOT, from), relative(ROOT, to)] as const).filter(([f, t]) => f.split('/')[0] !== t.split('/')[0] && !f.endsWith('.test.ts')),
    );
    expect(crossings.length).toBeGreaterThan(0);
    expect(crossings.filter(([f, t]) => !(f.startsWith('signaling/') && RELAY_MAY_IMPORT.includes(t)))).toEqual([]);
  });

  it('the layer check fails on a lower-layer import and on a product import of testing/', () => {
    const bad = tree({
      'world/a.ts': "import { x } from '../render/scene';",
      'render/scene.ts': 'export const x = 1;',
      'dht/b.ts': "import { SimCluster } from '../testing/sim';",
      'dht/b.test.ts': "import { SimCluster } from '../testing/sim';",
      'testing/sim.ts': "import { x } from '../render/scene';\nexport class SimCluster {}",
    });
    expect(layerViolations('/src', bad)).toEqual([
      'world/a.ts imports render/scene.ts (world -> render)',
      'dht/b.ts imports testing/sim.ts (product code must not import testing/)',
    ]);
  });

  it('the cycle check finds value and type cycles, and only value ones when asked', () => {
    const bad = tree({
      'core/a.ts': "import { b } from './b';\nexport const a = 1;",
      'core/b.ts': "export { c as b } from './c';",
      'core/c.ts': "import { a } from './a';\nexport const c = a;",
      'core/d.ts': "import type { E } from './e';\nexport type D = E;",
      'core/e.ts': "import type { D } from './d';\nexport type E = D;",
      'core/f.ts': "// import { f } from './f';\nexport const f = 1;",
    });
    expect(importCycles('/src', bad)).toEqual([['core/a.ts', 'core/b.ts', 'core/c.ts'], ['core/d.ts', 'core/e.ts']]);
    expect(importCycles('/src', bad, { values: true })).toEqual([['core/a.ts', 'core/b.ts', 'core/c.ts']]);
  });

  it('reads every import form', () => {
    const src = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "export * from './c';",
      "import './d';",
      "const e = await import('./e');",
      "new Worker(new URL('./f.ts', import.meta.url));",
      "import { g } from 'three';",
    ].join('\n');
    expect(specifiers(src)).toEqual([
      { spec: './a', typeOnly: false },
      { spec: '../b', typeOnly: true },
      { spec: './c', typeOnly: false },
      { spec: './d', typeOnly: false },
      { spec: './e', typeOnly: false },
      { spec: './f.ts', typeOnly: false },
    ]);
  });
});
