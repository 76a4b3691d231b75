// Positions in a built bundle back to their source file and line, through the bundle's
// source map (vite builds with sourcemap: true): a CPU profile of the built app names
// minified functions at bundle positions; this says which module (and so which layer of
// docs/DESIGN.md) the time was spent in. Decodes the map's VLQ mappings itself, once per
// bundle.
import { existsSync, readFileSync } from 'node:fs';

interface RawMap { sources: string[]; names?: string[]; mappings: string }

/** One mapped segment: generated column, then source index, line, column (-1 when none), name index. */
type Segment = [number, number, number, number, number];

export interface SourcePosition { source: string; line: number; name?: string }

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...B64].map((c, i) => [c, i]));

/** The VLQ numbers of one segment ('AAgBC' -> [0, 0, 16, 1]). */
export function decodeVlq(s: string): number[] {
  const out: number[] = [];
  let value = 0, shift = 0;
  for (const c of s) {
    const d = DIGIT.get(c);
    if (d === undefined) throw new Error(`bad VLQ digit ${c}`);
    value += (d & 31) << shift;
    if (d & 32) { shift += 5; continue; }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

export class SourceMapLookup {
  private readonly lines: Segment[][] = [];
  private readonly sources: string[];
  private readonly names: string[];

  constructor(map: RawMap) {
    this.sources = map.sources;
    this.names = map.names ?? [];
    let src = 0, srcLine = 0, srcCol = 0, name = 0;
    for (const line of map.mappings.split(';')) {
      const segs: Segment[] = [];
      let col = 0;
      for (const part of line ? line.split(',') : []) {
        const v = decodeVlq(part);
        col += v[0]!;
        if (v.length >= 4) {
          src += v[1]!; srcLine += v[2]!; srcCol += v[3]!;
          if (v.length >= 5) name += v[4]!;
          segs.push([col, src, srcLine, srcCol, v.length >= 5 ? name : -1]);
        } else segs.push([col, -1, -1, -1, -1]);
      }
      this.lines.push(segs);
    }
  }

  /** The source position of generated `line`, `column` (both 0-based), or undefined. */
  lookup(line: number, column: number): SourcePosition | undefined {
    const segs = this.lines[line];
    if (!segs?.length) return undefined;
    let lo = 0, hi = segs.length - 1, at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segs[mid]![0] <= column) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    const s = segs[Math.max(at, 0)]!;
    if (s[1] < 0) return undefined;
    return { source: this.sources[s[1]]!, line: s[2] + 1, ...(s[4] >= 0 ? { name: this.names[s[4]] } : {}) };
  }
}

/** Lookups by bundle file name (`index-abc123.js`), from the `.map` files beside it in `dir`. */
export function bundleLookups(dir: string): (file: string) => SourceMapLookup | undefined {
  const cache = new Map<string, SourceMapLookup | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      const path = `${dir}/${file}.map`;
      cache.set(file, existsSync(path) ? new SourceMapLookup(JSON.parse(readFileSync(path, 'utf8')) as RawMap) : undefined);
    }
    return cache.get(file);
  };
}
