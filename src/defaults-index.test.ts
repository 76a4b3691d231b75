// Every layer's tuning objects (*_DEFAULTS) are listed in one place, its defaults.ts, with a
// line each on what they tune, so a newcomer finds every setting of a layer in one file: a
// new object left out of its layer's list fails here. app/ keeps none: it holds composition
// roots (app/composition-roots.test.ts), and its one object, the headless peer's, is listed below.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname);
/** Tuning objects outside a layer's defaults.ts, each with why. */
const UNLISTED: Record<string, string> = {
  'app/headless-peer.ts HEADLESS_DEFAULTS': 'app/ holds composition roots only: the headless peer is the one that reads it',
};

function productFiles(dir: string): string[] {
  return readdirSync(join(SRC, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'defaults.ts').map((f) => `${dir}/${f}`);
}

/** `layer/file.ts NAME` for every exported *_DEFAULTS object of src/. */
function defaultsObjects(): string[] {
  const out: string[] = [];
  for (const layer of readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) {
    for (const f of productFiles(layer)) {
      for (const m of readFileSync(join(SRC, f), 'utf8').matchAll(/^export const ([A-Z0-9_]+_DEFAULTS)\b/gm)) out.push(`${f} ${m[1]}`);
    }
  }
  return out.sort();
}

/** What src/<layer>/defaults.ts lists: `layer/file.ts NAME`, and the entries with no doc line right above. */
function listed(layer: string): { names: string[]; undocumented: string[]; other: string[] } {
  const path = join(SRC, layer, 'defaults.ts');
  if (!existsSync(path)) return { names: [], undocumented: [], other: [] };
  const lines = readFileSync(path, 'utf8').split('\n');
  const names: string[] = [], undocumented: string[] = [], other: string[] = [];
  lines.forEach((line, i) => {
    const m = /^export \{ ([A-Z0-9_]+_DEFAULTS) \} from '\.\/([\w/-]+)';$/.exec(line);
    if (m) {
      names.push(`${layer}/${m[2]}.ts ${m[1]}`);
      if (!/^\/\*\* .+ \*\/$/.test(lines[i - 1] ?? '')) undocumented.push(m[1]!);
    } else if (line !== '' && !/^(\/\/|\/\*\*)/.test(line)) other.push(line);
  });
  return { names, undocumented, other };
}

describe('every *_DEFAULTS listed in its layer\'s defaults.ts', () => {
  it('lists each tuning object of a layer there, with a doc line, and nothing else', () => {
    const all = defaultsObjects();
    expect(all.length).toBeGreaterThan(20);
    const layers = [...new Set(all.map((o) => o.split('/')[0]!))];
    const missing = all.filter((o) => !UNLISTED[o] && !listed(o.split('/')[0]!).names.includes(o));
    expect(missing).toEqual([]);
    for (const layer of layers) {
      const l = listed(layer);
      expect(l.names.filter((n) => !all.includes(n)), `${layer}/defaults.ts names what is not there`).toEqual([]);
      expect(l.undocumented, `${layer}/defaults.ts`).toEqual([]);
      expect(l.other, `${layer}/defaults.ts holds only re-exports`).toEqual([]);
    }
    expect(Object.keys(UNLISTED).filter((o) => !all.includes(o))).toEqual([]);
  });
});
