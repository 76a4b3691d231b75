// DESIGN.md layer rule: a folder under src/ imports only from layers above it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

export const LAYERS = ['core', 'net', 'dht', 'world', 'store', 'host', 'agree', 'play', 'render', 'ui', 'app'];
const SRC = resolve(import.meta.dirname);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

function layerOf(file: string): string | undefined {
  return relative(SRC, file).split(sep)[0];
}

export function violations(): string[] {
  const out: string[] = [];
  for (const file of files(SRC)) {
    const from = layerOf(file);
    if (!from || !LAYERS.includes(from) || /\.test\.ts$/.test(file)) continue;
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|new URL\(\s*['"](\.[^'"]+)['"]/g)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      const to = layerOf(resolve(dirname(file), spec));
      if (!to || !LAYERS.includes(to)) continue;
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from)) out.push(`${relative(SRC, file)} imports ${spec} (${from} -> ${to})`);
    }
  }
  return out;
}

describe('layer rule', () => {
  it('no layer imports from a layer below it', () => {
    expect(violations()).toEqual([]);
  });

  it('the checker sees a forbidden import (it can fail)', () => {
    const re = /(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/;
    expect("import { x } from '../render/scene'".match(re)?.[1]).toBe('../render/scene');
    expect(LAYERS.indexOf('render')).toBeGreaterThan(LAYERS.indexOf('world'));
  });
});
