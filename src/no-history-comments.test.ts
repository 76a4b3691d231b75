// Product code says why it is as it is, not when or under which ticket it came to be: a
// comment that cites "issue 9" or "session 12" sends a newcomer to a history it cannot read
// from the tree, and goes stale as the code moves. Git history keeps the when.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SCANNED = ['src', 'signaling', 'e2e', 'bench', 'scripts'];
const HISTORY = /\b(?:issue|session)s? #?\d+\b|\(#\d+\)/i;

/** Every .ts and .sh file under `path`, relative to the repository. */
function filesUnder(path: string): string[] {
  const abs = join(ROOT, path);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return /\.(ts|sh)$/.test(path) ? [path] : [];
  return readdirSync(abs).flatMap((f) => filesUnder(join(path, f)));
}

/** The lines of `text` that cite an issue or a session by number, as `file:line: text`. */
export function historyLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((l, i) => (HISTORY.test(l) ? [`${file}:${i + 1}: ${l.trim()}`] : []));
}

describe('code comments', () => {
  it('cite no issue or session by number', () => {
    const files = SCANNED.flatMap(filesUnder).filter((f) => !f.endsWith('no-history-comments.test.ts'));
    expect(files.length).toBeGreaterThan(500);
    expect(files.flatMap((f) => historyLines(f, readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('the check finds "issue 9", "Issue 13\'s", "session 12" and "(#28)", and not a seed or an error\'s issues', () => {
    const text = "// Issue 13's bounds\n// TODO(issue 9)\n// since session 12\n// rule 6 (#28)\nconst issue = parsed.issues[0]; // seed 10\n";
    expect(historyLines('f.ts', text).map((l) => l.split(':')[1])).toEqual(['1', '2', '3', '4']);
  });
});
