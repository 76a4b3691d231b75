// Code and docs cite sections of the docs by name (docs/HOSTING.md "Rebase", src/dht/README.md
// "Pinned links"); a doc rewritten as a reference must keep every name cited, or the cite
// must move with it. Each cite must name a heading of that doc or the bold lead-in of one of
// its items (a prefix is enough: "Crowds" cites "Crowds and many peers").
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'bench', 'e2e', 'docs', 'signaling', 'scripts', 'README.md'];

/** Every .ts, .md and .sh file under `path`, relative to the repository. */
function filesUnder(path: string): string[] {
  const abs = join(ROOT, path);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return /\.(ts|md|sh)$/.test(path) ? [path] : [];
  return readdirSync(abs).flatMap((f) => filesUnder(join(path, f)));
}

/** The doc a cite names, read from `file`: a bare README.md in a layer is that layer's. */
function citedDoc(name: string, file: string): string {
  if (name.includes('/')) return name;
  const layer = /^src\/\w+\//.exec(file)?.[0];
  if (name === 'README.md') return layer && existsSync(join(ROOT, layer, name)) ? `${layer}${name}` : name;
  return existsSync(join(ROOT, 'docs', name)) ? `docs/${name}` : name;
}

/** `doc.md "Section"` cites in `text` (comments joined across their line breaks). */
function citations(text: string): { doc: string; name: string }[] {
  const flat = text.replace(/\n\s*(?:\/\/|\*|#)?\s*/g, ' ');
  const out: { doc: string; name: string }[] = [];
  for (const m of flat.matchAll(/((?:docs\/|src\/\w+\/)?[A-Z][A-Z-]+\.md)(?:'s)?:? ((?:"[^"]{2,80}"(?:,? (?:and |or )?)?)+)/g)) {
    for (const q of m[2]!.matchAll(/"([^"]+)"/g)) out.push({ doc: m[1]!, name: q[1]! });
  }
  return out;
}

/** Whether `name` is a heading or a bold lead-in of `doc`, or a prefix of one. */
function names(doc: string, name: string): boolean {
  const headings = [...doc.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.replace(/`/g, '').trim());
  const leads = [...doc.matchAll(/\*\*([^*]+?)\*\*/g)].map((m) => m[1]!.trim());
  return [...headings, ...leads].some((h) => h.startsWith(name));
}

describe('section cites between docs and code', () => {
  it('name a heading or an item of the doc they cite', () => {
    const files = SCANNED.flatMap(filesUnder).filter((f) => f !== 'src/doc-citations.test.ts'); // its examples are not cites
    const stale: string[] = [];
    let count = 0;
    for (const file of files) {
      for (const c of citations(readFileSync(join(ROOT, file), 'utf8'))) {
        count++;
        const doc = citedDoc(c.doc, file);
        const path = join(ROOT, doc);
        if (!existsSync(path)) stale.push(`${file}: ${c.doc}: no such doc`);
        else if (!names(readFileSync(path, 'utf8'), c.name)) stale.push(`${file}: ${relative(ROOT, path)} has no "${c.name}"`);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(stale).toEqual([]);
  });

  it('and every relative markdown link, and every doc named by its path under docs, point at a file that exists', () => {
    const files = SCANNED.flatMap(filesUnder);
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
      if (file.endsWith('.md')) {
        for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
          if (!/^[a-z]+:/.test(m[1]!) && !existsSync(join(ROOT, dir, m[1]!))) broken.push(`${file}: (${m[1]})`);
        }
      }
      for (const m of text.matchAll(/\bdocs\/([A-Z][A-Z-]+\.md)/g)) {
        if (!existsSync(join(ROOT, 'docs', m[1]!))) broken.push(`${file}: docs/${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('read a cite across comment lines and several names in one, and find headings, lead-ins and prefixes', () => {
    expect(citations('see docs/HOSTING.md "Rebase" and\n// HOSTING.md "Slow\n// versus dead", "Crowds"')).toEqual([
      { doc: 'docs/HOSTING.md', name: 'Rebase' },
      { doc: 'HOSTING.md', name: 'Slow versus dead' },
      { doc: 'HOSTING.md', name: 'Crowds' },
    ]);
    const doc = '# T\n\n## Crowds and many peers\n\n- **Pending-epoch knots.** A claim...\n';
    expect(['Crowds', 'Pending-epoch knots', 'Rebase', 'A claim'].map((n) => names(doc, n))).toEqual([true, true, false, false]);
  });
});
