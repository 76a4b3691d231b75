import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCode, VoxelError } from './errors';

const SRC = resolve(import.meta.dirname, '..');

/** Every product source file under src/ (tests and src/testing left out), path relative to src/ -> text. */
function productSources(dir = SRC, out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (relative(SRC, p) !== 'testing') productSources(p, out);
    }
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) out.set(relative(SRC, p), readFileSync(p, 'utf8'));
  }
  return out;
}

/** Error classes of `src` that step outside the family: `class X extends Error` (or another built-in error). */
export function outsideFamily(sources: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, src] of sources) {
    for (const m of src.matchAll(/\bclass\s+(\w+)(?:<[^>{]*>)?\s+extends\s+(Error|RangeError|TypeError|SyntaxError)\b/g)) {
      if (m[1] !== 'VoxelError') out.push(`${path}: ${m[1]} extends ${m[2]}`);
    }
  }
  return out;
}

/** Fixed codes (`readonly code = 'x'`) given by more than one class. */
export function sharedCodes(sources: ReadonlyMap<string, string>): string[] {
  const owners = new Map<string, string[]>();
  for (const [path, src] of sources) {
    for (const m of src.matchAll(/class\s+(\w+)[^{]*\{[^}]*?readonly code = '([a-z0-9-]+)'/g)) owners.set(m[2]!, [...(owners.get(m[2]!) ?? []), `${path} ${m[1]}`]);
  }
  return [...owners].filter(([, o]) => o.length > 1).map(([code, o]) => `${code}: ${o.join(', ')}`);
}

describe('VoxelError', () => {
  it('gives a family member its code and nothing else one', () => {
    class Sample extends VoxelError {
      readonly code = 'sample-failed';
    }
    const e = new Sample('it failed');
    expect(e).toBeInstanceOf(Error);
    expect(errorCode(e)).toBe('sample-failed');
    expect(errorCode(new Error('plain'))).toBeUndefined();
    expect(errorCode('a string')).toBeUndefined();
  });

  it('every error class of src/ belongs to the family, each fixed code to one class', () => {
    const sources = productSources();
    expect(sources.size).toBeGreaterThan(300);
    expect(outsideFamily(sources)).toEqual([]);
    expect(sharedCodes(sources)).toEqual([]);
  });

  it('the checks find a class outside the family and a code two classes share', () => {
    const sources = new Map([
      ['net/a.ts', "export class AError extends Error {}\nexport class BError extends RangeError {\n  readonly code = 'b';\n}"],
      ['dht/c.ts', "export class CError extends VoxelError {\n  readonly code = 'b';\n}\nclass DError extends VoxelError {\n  readonly code = 'd';\n}"],
    ]);
    expect(outsideFamily(sources)).toEqual(['net/a.ts: AError extends Error', 'net/a.ts: BError extends RangeError']);
    expect(sharedCodes(sources)).toEqual(['b: net/a.ts BError, dht/c.ts CError']);
  });
});
