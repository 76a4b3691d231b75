// The end of `npm test` (scripts/test.sh): the slowest test files of its vitest runs, the
// wall time of each phase, the tests that failed or passed only on a retry (with the first
// lines of their error: CI shows the tail of a long log), the tests skipped with the reason
// each gave, and one plain
// "Tests: N passed, N failed, N skipped" line.
// Reads what test.sh had written to .test-results/: the JSON reports (counts), each run's
// file times (scripts/file-times-reporter.ts; the JSON report's startTime/endTime when
// absent, which leave out hooks; their CPU seconds where scripts/file-cpu-setup.ts counted
// them) and the phase times (phases.tsv: name, start and end in epoch seconds, exit code,
// CPU seconds), and the whole machine's CPU over the run (machine-cpu-start/-end: /proc/stat's
// first line). A run that wrote no report counts as one failure, so a crashed runner cannot
// pass as "0 failed".
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { TestOutcome } from './file-times-reporter.ts';

const DIR = '.test-results';
const SLOWEST = 10;

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  testResults: { name: string; startTime: number; endTime: number; status: string }[];
}

let passed = 0;
let failed = 0;
let skipped = 0;
const files: { run: string; name: string; s: number; cpu?: number; status: string }[] = [];
const failedTests: (TestOutcome & { run: string })[] = [];
const retriedTests: (TestOutcome & { run: string })[] = [];
const skippedTests: (TestOutcome & { run: string })[] = [];
for (const run of ['realtime', 'background', 'e2e']) {
  const path = `${DIR}/${run}.json`;
  if (!existsSync(path)) {
    failed++;
    console.log(`no results from the ${run} run`);
    continue;
  }
  const r = JSON.parse(readFileSync(path, 'utf8')) as Report;
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  const timesPath = `${DIR}/${run}-files.json`;
  if (existsSync(timesPath)) {
    const times = JSON.parse(readFileSync(timesPath, 'utf8')) as {
      files: { file: string; s: number; cpu?: number; state: string }[];
      failed: TestOutcome[];
      retried: TestOutcome[];
      skipped?: TestOutcome[];
    };
    for (const t of times.files) files.push({ run, name: t.file, s: t.s, ...(t.cpu === undefined ? {} : { cpu: t.cpu }), status: t.state });
    for (const t of times.failed) failedTests.push({ run, ...t });
    for (const t of times.retried) retriedTests.push({ run, ...t });
    for (const t of times.skipped ?? []) skippedTests.push({ run, ...t });
  } else {
    for (const t of r.testResults) files.push({ run, name: relative(process.cwd(), t.name), s: (t.endTime - t.startTime) / 1000, status: t.status });
  }
}

const fmt = (s: number) => `${s.toFixed(1).padStart(7)} s`;
const cpuOf = (cpu: number | undefined) => (cpu === undefined ? ' '.repeat(13) : `${cpu.toFixed(1).padStart(7)} CPU-s`);
const line = (f: (typeof files)[number]) => `${fmt(f.s)}${cpuOf(f.cpu)}  ${f.run.padEnd(10)}  ${f.name}${f.status === 'passed' ? '' : `  (${f.status})`}`;
console.log(`\nSlowest test files (of ${files.length}):`);
for (const f of [...files].sort((a, b) => b.s - a.s).slice(0, SLOWEST)) console.log(line(f));
// What the phases share is 2 cores: the CPU a file takes, not its wall time (a niced simulation's is 3-10 times its CPU), is what a cut saves.
const counted = files.filter((f) => f.cpu !== undefined);
if (counted.length) {
  console.log(`\nMost CPU (of ${counted.length} files counted; ${counted.reduce((a, f) => a + f.cpu!, 0).toFixed(0)} CPU-s in all, browsers included):`);
  for (const f of [...counted].sort((a, b) => b.cpu! - a.cpu!).slice(0, 2 * SLOWEST)) console.log(line(f));
}

const phasesPath = `${DIR}/phases.tsv`;
if (existsSync(phasesPath)) {
  const phases = readFileSync(phasesPath, 'utf8').trim().split('\n').filter(Boolean).map((l) => {
    const [name, start, end, rc, cpu] = l.split('\t');
    // The browser phase's `times` miss Chromium's renderers: its files' sampled CPU instead (scripts/file-cpu-setup.ts).
    const e2eCpu = files.filter((f) => f.run === 'e2e' && f.cpu !== undefined);
    const sampled = name === 'browser' && e2eCpu.length ? e2eCpu.reduce((a, f) => a + f.cpu!, 0) : undefined;
    return { name: name!, start: Number(start), end: Number(end), rc: Number(rc), cpu: sampled ?? (cpu ? Number(cpu) : undefined) };
  });
  const order = ['type-check', 'lint', 'build', 'realtime', 'apt-wait', 'browser', 'background'];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  console.log('\nWall time per phase (the build beside the wall-clock unit tests, then the browser tests; type-check, lint, the simulations and the virtual-clock unit tests at the lowest priority beside everything):');
  for (const p of [...phases].sort((a, b) => rank(a.name) - rank(b.name))) console.log(`${fmt(p.end - p.start)}${cpuOf(p.cpu)}  ${p.name}${p.rc === 0 ? '' : `  (exit ${p.rc})`}`);
  if (phases.length) console.log(`${fmt(Math.max(...phases.map((p) => p.end)) - Math.min(...phases.map((p) => p.start)))}${cpuOf(phases.reduce((a, p) => a + (p.cpu ?? 0), 0))}  all`);
}
machineCpu();

/** The machine's CPU over the run from /proc/stat (USER_HZ ticks): busy and at nice > 0, and what its cores could give. */
function machineCpu(): void {
  const read = (name: string) => (existsSync(`${DIR}/${name}`) ? readFileSync(`${DIR}/${name}`, 'utf8').trim().split(/\s+/).slice(1).map(Number) : undefined);
  const [a, b] = [read('machine-cpu-start'), read('machine-cpu-end')];
  if (!a || !b || a.length < 8) return;
  const d = b.map((v, i) => (v - a[i]!) / 100); // user nice system idle iowait irq softirq steal
  const busy = d[0]! + d[1]! + d[2]! + d[5]! + d[6]! + d[7]!;
  const all = busy + d[3]! + d[4]!;
  console.log(`\nThe machine over the run (other load on it included): ${busy.toFixed(0)} CPU-s busy of ${all.toFixed(0)} (${d[1]!.toFixed(0)} at nice > 0), idle ${(d[3]! + d[4]!).toFixed(0)}`);
}

const outcome = (t: TestOutcome & { run: string }) => {
  console.log(`  ${t.run}  ${t.file} > ${t.name}${t.retries ? ` (retried ${t.retries}x)` : ''}`);
  if (t.error) console.log(t.error.split('\n').map((l) => `      ${l}`).join('\n'));
};
if (retriedTests.length) {
  console.log(`\nPassed only on a retry (${retriedTests.length}; flaky, look at them):`);
  retriedTests.forEach(outcome);
}
// A test skipped with a reason (e.g. the network lab where not root): what was not tested, said at the end.
const withReason = skippedTests.filter((t) => t.error);
if (withReason.length) {
  console.log(`\nSkipped, NOT tested here (${withReason.length}):`);
  withReason.forEach(outcome);
}
if (failedTests.length) {
  console.log(`\nFailed (${failedTests.length}):`);
  failedTests.forEach(outcome);
}

console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
