// A vitest reporter that writes each test file's whole time (import, setup, hooks and tests)
// to the JSON file named by VP_FILE_TIMES: [{ file, s, state }]. scripts/test-report.ts
// lists the slowest from it. The JSON reporter's startTime/endTime span the tests only: a
// browser test's beforeAll (opening and joining its tabs) took up to 49 s outside them.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class FileTimesReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    const out = process.env.VP_FILE_TIMES;
    if (!out) return;
    const files = modules.map((m) => {
      const d = m.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      return { file: relative(process.cwd(), m.moduleId), s: Math.round(ms) / 1000, state: m.state() };
    });
    writeFileSync(out, `${JSON.stringify(files, null, 1)}\n`);
  }
}
