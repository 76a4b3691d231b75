// A vitest reporter that writes, to the JSON file named by VP_FILE_TIMES, each test file's
// whole time (import, setup, hooks and tests) and the tests that failed or passed only on a
// retry, each with the first lines of its first error, and the tests skipped, each with the
// reason it gave (`ctx.skip(reason)`): { files: [{ file, s, state }], failed: [...],
// retried: [...], skipped: [...] }. scripts/test-report.ts prints them at the end of
// `npm test`, the part of a long CI log that is read first. The JSON reporter's
// startTime/endTime span the tests only: a browser test's beforeAll (opening and joining its
// tabs) took up to 49 s outside them. With VP_FILE_CPU set, each file's CPU seconds too
// (`cpu`: scripts/file-cpu-setup.ts wrote them there, from the workers).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** A test (or a file's hooks) that failed or needed a retry, for the report's tail. */
export interface TestOutcome {
  file: string;
  name: string;
  retries: number;
  error: string;
}

const ERROR_LINES = 4;
const firstLines = (e: { message?: string; stack?: string } | undefined): string =>
  (e?.message ?? e?.stack ?? '').split('\n').slice(0, ERROR_LINES).join('\n');

export default class FileTimesReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    const out = process.env.VP_FILE_TIMES;
    if (!out) return;
    const failed: TestOutcome[] = [];
    const retried: TestOutcome[] = [];
    const skipped: TestOutcome[] = [];
    const cpu = new Map<string, number>();
    const cpuPath = process.env.VP_FILE_CPU;
    if (cpuPath && existsSync(cpuPath)) {
      for (const line of readFileSync(cpuPath, 'utf8').split('\n').filter(Boolean)) {
        const [file, s] = line.split('\t');
        // A retried file's hooks run once; a file listed twice is summed.
        cpu.set(file!, (cpu.get(file!) ?? 0) + Number(s));
      }
    }
    const files = modules.map((m) => {
      const file = relative(process.cwd(), m.moduleId);
      const d = m.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      // Errors outside any test: a failed beforeAll/afterAll or import.
      for (const e of m.errors()) failed.push({ file, name: '(file: hooks or import)', retries: 0, error: firstLines(e) });
      for (const t of m.children.allTests()) {
        const r = t.result();
        const retries = t.diagnostic()?.retryCount ?? 0;
        if (r.state === 'failed') failed.push({ file, name: t.fullName, retries, error: firstLines(r.errors[0]) });
        else if (r.state === 'passed' && retries > 0) retried.push({ file, name: t.fullName, retries, error: firstLines(r.errors?.[0]) });
        else if (r.state === 'skipped') skipped.push({ file, name: t.fullName, retries, error: r.note ?? '' });
      }
      const c = cpu.get(file);
      return { file, s: Math.round(ms) / 1000, ...(c === undefined ? {} : { cpu: Math.round(c * 10) / 10 }), state: m.state() };
    });
    writeFileSync(out, `${JSON.stringify({ files, failed, retried, skipped }, null, 1)}\n`);
  }
}
