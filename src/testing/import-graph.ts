// The import graph of src/, read with a regular expression (relative specifiers only:
// packages are outside the graph), and the three rules src/layer-rule.test.ts checks on
// it: layers import only upwards (docs/DESIGN.md), product code never imports src/testing/,
// and no import cycle. Pure functions over { path: source } maps, so the test can show
// each check failing on a made-up tree as well as passing on the real one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The layers, top (imported by all) to bottom (imports all); docs/DESIGN.md "Layers". */
export const LAYERS = ['core', 'net', 'dht', 'bootstrap', 'world', 'store', 'region', 'host', 'agree', 'play', 'render', 'ui', 'app'];
/** The home of harnesses, compliance suites and fakes; only tests and benches import it. */
export const TESTING = 'testing';

/** Source text of every .ts file under dir, by absolute path. */
export function readSources(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(n)) out.set(p, readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

const IMPORT = /(?:import|export)(\s+type\b)?[^'";]*?from\s+['"](\.[^'"]+)['"]|import\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|new URL\(\s*['"](\.[^'"]+)['"]/g;

export interface Specifier {
  spec: string;
  /** `import type` / `export type`: erased when compiled, so no module is loaded. */
  typeOnly: boolean;
}

/** Comments out (a comment may quote an import); strings are left alone. */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Relative specifiers a source imports (static, side-effect, dynamic, worker URLs). */
export function specifiers(source: string): Specifier[] {
  return [...stripComments(source).matchAll(IMPORT)].map((m) => ({ spec: m[2] ?? m[3] ?? m[4] ?? m[5]!, typeOnly: m[1] !== undefined }));
}

/** The file a specifier names: as written, or with .ts, or its folder's index.ts. */
function resolveSpec(from: string, spec: string, files: ReadonlyMap<string, string>): string | undefined {
  const base = resolve(dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => files.has(p));
}

/** Edges file -> imported file, inside the given sources; `values` leaves type-only imports out. */
export function importGraph(files: ReadonlyMap<string, string>, opts: { values?: boolean } = {}): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const to = specifiers(source)
      .filter((s) => !(opts.values && s.typeOnly))
      .map((s) => resolveSpec(file, s.spec, files))
      .filter((p): p is string => p !== undefined);
    graph.set(file, [...new Set(to)]);
  }
  return graph;
}

function folderOf(root: string, file: string): string {
  return relative(root, file).split(sep)[0]!;
}

const isTest = (file: string): boolean => /\.test\.tsx?$/.test(file);

/**
 * Imports that break the layering: a product file (not a test) of a layer folder importing
 * a lower layer, or importing src/testing/. `root` is src/.
 */
export function layerViolations(root: string, files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, targets] of importGraph(files)) {
    const from = folderOf(root, file);
    if (!LAYERS.includes(from) || isTest(file)) continue;
    for (const target of targets) {
      const to = folderOf(root, target);
      const what = `${relative(root, file)} imports ${relative(root, target)}`;
      if (to === TESTING) out.push(`${what} (product code must not import ${TESTING}/)`);
      else if (LAYERS.includes(to) && LAYERS.indexOf(to) > LAYERS.indexOf(from)) out.push(`${what} (${from} -> ${to})`);
    }
  }
  return out;
}

/**
 * Every import cycle, as the files of one strongly connected component (Tarjan), named
 * relative to root and sorted. A cycle means two files cannot be read, tested or moved
 * apart; through value imports it also makes module start-up order matter. `values`:
 * type-only imports left out.
 */
export function importCycles(root: string, files: ReadonlyMap<string, string>, opts: { values?: boolean } = {}): string[][] {
  const graph = importGraph(files, opts);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  // Iterative, so a long import chain cannot overflow the stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }];
    index.set(start, next); low.set(start, next++); stack.push(start); onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node) ?? [];
      if (top.i < edges.length) {
        const to = edges[top.i++]!;
        if (!index.has(to)) {
          index.set(to, next); low.set(to, next++); stack.push(to); onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const scc: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          scc.push(n);
        } while (n !== top.node);
        if (scc.length > 1 || edges.includes(top.node)) out.push(scc.map((f) => relative(root, f)).sort());
      }
    }
  }
  return out;
}
