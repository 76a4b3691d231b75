// app/ holds composition roots and page wiring only (docs/DESIGN.md "Layers"): logic lives in
// the layers, where it is tested without a page. A file here that grows past a screenful or
// two has usually grown logic of its own, which belongs in a layer (bootstrap/, play/, ui/...);
// so has a file that neither touches the platform (the page, a worker, the Node process) nor
// wires parts of two layers together; and every file here says in app/README.md what it wires.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const APP = resolve(import.meta.dirname);
/** Lines a composition root may have. */
const LIMIT = 150;

/**
 * The files allowed past LIMIT, each with its own ceiling and why. A listed file that falls
 * under LIMIT must leave the list, so the list only shrinks.
 */
const LONGER: Record<string, { max: number; why: string }> = {
  'page-items.ts': { max: 180, why: 'the player page\'s item wiring: which item service, the world clock and sky, the one-tab mode\'s items kept in localStorage, the inventory bar, window.voxel.items (what the items near the player do is play/items-near-player.ts)' },
  'voxel-api.ts': { max: 230, why: 'window.voxel: mostly the typed automation API, the contract of bots and browser tests' },
  'frame-loop.ts': { max: 160, why: 'each frame of the player page, from the first ones drawn from the seed before the page\'s play is attached (input, network, items, status) to the walking player\'s' },
  'player-page.ts': { max: 180, why: 'the player page after its entry: every part of it wired once' },
  'player-controls.ts': { max: 200, why: 'keys, mouse, touch and the pause menu wired to the player\'s actions' },
};

/** Product files (not tests) of `files` (name -> source) longer than they may be. */
function overlong(files: Map<string, string>, limit: number, longer: Record<string, { max: number }>): string[] {
  const out: string[] = [];
  for (const [name, src] of files) {
    if (name.endsWith('.test.ts')) continue;
    const lines = src.split('\n').length - (src.endsWith('\n') ? 1 : 0);
    const max = longer[name]?.max ?? limit;
    if (lines > max) out.push(`${name}: ${lines} lines > ${max}`);
    else if (longer[name] && lines <= limit) out.push(`${name}: ${lines} lines, no longer needs its place on the list`);
  }
  for (const name of Object.keys(longer)) if (!files.has(name)) out.push(`${name}: listed but not in app/`);
  return out;
}

/** Page, worker and Node process globals, Node modules, and the module's own URL (a worker's entry). */
const PLATFORM = /\b(?:document|window|localStorage|sessionStorage|indexedDB|navigator|location|Worker|requestAnimationFrame|addEventListener|process)\b|from 'node:|import\.meta|globalThis as unknown/;

/** The src/ folders (layers) whose code `src` imports, app/ itself not counted. */
function layersImported(src: string): Set<string> {
  return new Set([...src.matchAll(/from '\.\.\/([\w-]+)\//g)].map((m) => m[1]!).filter((l) => l !== 'app'));
}

/** Product files of `files` that are logic of their own: no platform touched, fewer than two layers wired. */
function logicOfItsOwn(files: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [name, src] of files) {
    if (name.endsWith('.test.ts')) continue;
    const code = src.split('\n').filter((l) => !/^\s*(?:\/\/|\*|\/\*\*)/.test(l)).join('\n');
    const layers = layersImported(code);
    if (!PLATFORM.test(code) && layers.size < 2) out.push(`${name}: no platform, ${layers.size ? `one layer (${[...layers].join('')})` : 'no layer'} wired`);
  }
  return out;
}

/** Product files of `files` that `readme` (app/README.md) does not name in backticks. */
function unnamed(files: Map<string, string>, readme: string): string[] {
  return [...files.keys()].filter((name) => !name.endsWith('.test.ts') && !readme.includes(`\`${name}\``));
}

describe('app/ holds composition roots', () => {
  it(`no product file in app/ over ${LIMIT} lines but the justified ones, each under its ceiling`, () => {
    const files = new Map(readdirSync(APP).filter((f) => f.endsWith('.ts')).map((f) => [f, readFileSync(join(APP, f), 'utf8')]));
    expect(files.size).toBeGreaterThan(10);
    expect(overlong(files, LIMIT, LONGER)).toEqual([]);
  });

  it('every product file in app/ touches the platform or wires two layers, and README.md says what it is', () => {
    const files = new Map(readdirSync(APP).filter((f) => f.endsWith('.ts')).map((f) => [f, readFileSync(join(APP, f), 'utf8')]));
    expect(logicOfItsOwn(files)).toEqual([]);
    expect(unnamed(files, readFileSync(join(APP, 'README.md'), 'utf8'))).toEqual([]);
  });

  it('the check catches logic with no platform and one layer, in comments too, and a file README.md does not name', () => {
    const files = new Map([
      ['cap.ts', '// draws on the window each frame\nexport class Cap { due(now: number) { return now > 0; } }'],
      ['one.ts', "import { x } from '../play/x';\nimport { y } from './y';\nexport const z = x + y;"],
      ['page.ts', "import { x } from '../play/x';\ndocument.body.append(String(x));"],
      ['root.ts', "import { a } from '../net/a';\nimport { b } from '../play/b';\nexport const c = [a, b];"],
      ['cap.test.ts', 'export {};'],
    ]);
    expect(logicOfItsOwn(files)).toEqual(['cap.ts: no platform, no layer wired', 'one.ts: no platform, one layer (play) wired']);
    expect(unnamed(files, '| `page.ts` | the page |\n| `root.ts`, `one.ts` | ... |')).toEqual(['cap.ts']);
  });

  it('the check catches a long file, a listed file past its ceiling, a listed file grown short and a stale entry', () => {
    const lines = (n: number) => 'x\n'.repeat(n);
    const files = new Map([
      ['logic.ts', lines(151)],
      ['logic.test.ts', lines(900)],
      ['root.ts', lines(150)],
      ['big.ts', lines(301)],
      ['shrunk.ts', lines(100)],
    ]);
    expect(overlong(files, 150, { 'big.ts': { max: 300 }, 'shrunk.ts': { max: 300 }, 'gone.ts': { max: 300 } })).toEqual([
      'logic.ts: 151 lines > 150',
      'big.ts: 301 lines > 300',
      'shrunk.ts: 100 lines, no longer needs its place on the list',
      'gone.ts: listed but not in app/',
    ]);
  });
});
