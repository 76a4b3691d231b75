// The end of `npm test` (scripts/test.sh): the slowest test files of its vitest runs, the
// wall time of each phase, the tests that failed or passed only on a retry (with the first
// lines of their error: CI shows the tail of a long log), the tests skipped with the reason
// each gave, and one plain
// "Tests: N passed, N failed, N skipped" line.
// Reads what test.sh had written to .test-results/: the JSON reports (counts), each run's
// file times (scripts/file-times-reporter.ts; the JSON report's startTime/endTime when
// absent, which leave out hooks) and the phase times (phases.tsv: name, start and end in
// epoch seconds, exit code). A run that wrote no report counts as one failure, so a crashed
// runner cannot pass as "0 failed".
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
const files: { run: string; name: string; s: number; status: string }[] = [];
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
      files: { file: string; s: number; state: string }[];
      failed: TestOutcome[];
      retried: TestOutcome[];
      skipped?: TestOutcome[];
    };
    for (const t of times.files) files.push({ run, name: t.file, s: t.s, status: t.state });
    for (const t of times.failed) failedTests.push({ run, ...t });
    for (const t of times.retried) retriedTests.push({ run, ...t });
    for (const t of times.skipped ?? []) skippedTests.push({ run, ...t });
  } else {
    for (const t of r.testResults) files.push({ run, name: relative(process.cwd(), t.name), s: (t.endTime - t.startTime) / 1000, status: t.status });
  }
}

const fmt = (s: number) => `${s.toFixed(1).padStart(7)} s`;
console.log(`\nSlowest test files (of ${files.length}):`);
for (const f of files.sort((a, b) => b.s - a.s).slice(0, SLOWEST)) console.log(`${fmt(f.s)}  ${f.run.padEnd(10)}  ${f.name}${f.status === 'passed' ? '' : `  (${f.status})`}`);

const phasesPath = `${DIR}/phases.tsv`;
if (existsSync(phasesPath)) {
  const phases = readFileSync(phasesPath, 'utf8').trim().split('\n').filter(Boolean).map((l) => {
    const [name, start, end, rc] = l.split('\t');
    return { name: name!, start: Number(start), end: Number(end), rc: Number(rc) };
  });
  const order = ['type-check', 'lint', 'build', 'realtime', 'apt-wait', 'browser', 'background'];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  console.log('\nWall time per phase (the build beside the wall-clock unit tests, then the browser tests; type-check, lint, the simulations and the virtual-clock unit tests at the lowest priority beside everything):');
  for (const p of [...phases].sort((a, b) => rank(a.name) - rank(b.name))) console.log(`${fmt(p.end - p.start)}  ${p.name}${p.rc === 0 ? '' : `  (exit ${p.rc})`}`);
  if (phases.length) console.log(`${fmt(Math.max(...phases.map((p) => p.end)) - Math.min(...phases.map((p) => p.start)))}  all`);
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
