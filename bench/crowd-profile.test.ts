import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { attribute, layerOf } from './crowd-profile';
import { decodeVlq, SourceMapLookup } from './source-map-lookup';

const SOURCE = [
  'export function first(a: number): number {',
  '  return a + 1;',
  '}',
  'export function second(b: number): number {',
  '  return b * 2;',
  '}',
].join('\n');

/** A minified bundle of SOURCE named src/dht/sample.ts, with its map, as vite would write them. */
function bundle() {
  const out = transformSync(SOURCE, { loader: 'ts', minify: true, sourcemap: 'external', sourcefile: 'src/dht/sample.ts', format: 'esm' });
  return { code: out.code, map: JSON.parse(out.map) as { sources: string[]; names: string[]; mappings: string } };
}

describe('source map lookup', () => {
  it('decodes VLQ segments', () => {
    expect(decodeVlq('AAAA')).toEqual([0, 0, 0, 0]);
    expect(decodeVlq('AACA')).toEqual([0, 0, 1, 0]);
    expect(decodeVlq('D')).toEqual([-1]);
    expect(decodeVlq('gB')).toEqual([16]);
  });

  it('maps positions of a minified bundle back to their source lines', () => {
    const { code, map } = bundle();
    const lookup = new SourceMapLookup(map);
    const line = code.split('\n')[0]!;
    const at = (text: string) => lookup.lookup(0, line.indexOf(text));
    expect(at('function')?.source).toBe('src/dht/sample.ts');
    expect(at('+1')?.line).toBe(2);
    expect(at('*2')?.line).toBe(5);
  });
});

describe('crowd profile attribution', () => {
  it('names layers by source folder or package', () => {
    expect(layerOf('../src/dht/kademlia.ts')).toBe('src/dht');
    expect(layerOf('../../main/node_modules/@msgpack/msgpack/dist.esm/Encoder.mjs')).toBe('@msgpack/msgpack');
    expect(layerOf('../node_modules/valibot/dist/index.mjs')).toBe('valibot');
  });

  it('counts a native call to the JavaScript that made it, and the engine apart', () => {
    const { code, map } = bundle();
    const dir = mkdtempSync(join(tmpdir(), 'crowd-profile-'));
    writeFileSync(join(dir, 'index-x.js'), code);
    writeFileSync(join(dir, 'index-x.js.map'), JSON.stringify(map));
    const col = code.split('\n')[0]!.indexOf('function');
    const url = 'http://127.0.0.1:1/assets/index-x.js';
    const profile = {
      startTime: 0, endTime: 40_000,
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 4, 5] },
        { id: 2, callFrame: { functionName: 'first', url, lineNumber: 0, columnNumber: col }, children: [3] },
        { id: 3, callFrame: { functionName: 'send', url: '', lineNumber: -1, columnNumber: -1 } },
        { id: 4, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1, columnNumber: -1 } },
        { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 } },
      ],
      // 10 ms each: 1 in first, 2 in its native send, 1 in GC, 4 idle.
      samples: [2, 3, 3, 4, 5, 5, 5, 5],
      timeDeltas: [10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000],
    };
    const a = attribute(profile, dir);
    expect(a.busy).toBe(40);
    expect(a.layers.get('src/dht')).toBe(30);
    expect(a.layers.get('(garbage collector)')).toBe(10);
    expect(a.files.get('src/dht/sample.ts')).toBe(30);
    expect([...a.functions.keys()].some((k) => k.startsWith('(native) send <- first src/dht/sample.ts:1'))).toBe(true);
  });
});
