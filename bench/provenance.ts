// Where each figure of bench/results/latest.json comes from: the commit and date it was last
// measured on and the benchmark that wrote it, kept beside it in bench/results/provenance.json
// (latest.json stays one flat object metric -> number). `npm run bench` records what it
// writes (run.ts); figures written before this file existed were dated from git history
// (`npx tsx bench/provenance.ts --backfill`: the newest commit whose diff of latest.json
// changed the figure, so a re-run that wrote the same value keeps the older date).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const PROVENANCE = 'bench/results/provenance.json';

export interface Provenance {
  /** Short commit the figure was measured on; `+` when the tree had uncommitted changes. */
  commit: string;
  /** YYYY-MM-DD (UTC). */
  date: string;
  /** The benchmark that wrote it (`npm run bench -- NAME`); absent for figures dated from history. */
  bench?: string;
}

export function readProvenance(): Record<string, Provenance> {
  return existsSync(PROVENANCE) ? (JSON.parse(readFileSync(PROVENANCE, 'utf8')) as Record<string, Provenance>) : {};
}

export function writeProvenance(p: Record<string, Provenance>): void {
  // One line a figure: the file diffs line by line as figures are re-measured.
  const lines = Object.keys(p).sort().map((k) => `  ${JSON.stringify(k)}: ${JSON.stringify(p[k])}`);
  writeFileSync(PROVENANCE, `{\n${lines.join(',\n')}\n}\n`);
}

/** The commit and date of the tree a benchmark runs on now. */
export function currentCommit(): { commit: string; date: string } {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  let commit = 'unknown';
  try {
    commit = git('rev-parse', '--short', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no') !== '') commit += '+';
  } catch {
    /* not a git checkout */
  }
  return { commit, date: new Date().toISOString().slice(0, 10) };
}

/** Each metric's last change in latest.json's git history (newest first wins). */
export function backfill(metrics: readonly string[]): Record<string, Provenance> {
  const log = execFileSync('git', ['log', '--format=@@ %h %cs', '-p', '--unified=0', '--', 'bench/results/latest.json'], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const want = new Set(metrics);
  const out: Record<string, Provenance> = {};
  let at: Provenance | undefined;
  for (const line of log.split('\n')) {
    const head = /^@@ (\w+) (\d{4}-\d\d-\d\d)$/.exec(line);
    if (head) {
      at = { commit: head[1]!, date: head[2]! };
      continue;
    }
    const m = /^\+\s+"([^"]+)":/.exec(line);
    if (m && at && want.has(m[1]!) && !out[m[1]!]) out[m[1]!] = at;
  }
  return out;
}

if (process.argv.includes('--backfill')) {
  const latest = JSON.parse(readFileSync('bench/results/latest.json', 'utf8')) as Record<string, number>;
  const held = readProvenance();
  const found = backfill(Object.keys(latest).filter((k) => !held[k]));
  writeProvenance({ ...found, ...held });
  console.log(`dated ${Object.keys(found).length} figures from history; ${Object.keys(latest).length - Object.keys(found).length - Object.keys(held).length} left undated`);
}
