#!/usr/bin/env bash
# `npm test`: type-check, lint, unit + simulated + Node-WebRTC tests, then real-Chromium
# browser tests. Everything runs in a loopback-only network namespace (scripts/netns.sh).
# Ends with one plain "N passed, N failed" line summing both vitest runs.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .test-results
rm -f .test-results/*.json

step() { echo; echo "== $*"; }
fail=0
step "type-check (tsc --noEmit)"; tsc --noEmit -p tsconfig.json || fail=1
step "lint (eslint)"; eslint . || fail=1
step "unit, simulated and Node WebRTC tests"
bash scripts/netns.sh vitest run --reporter=default --reporter=json --outputFile.json=.test-results/unit.json || fail=1
step "build for browser tests"; vite build --logLevel warn || fail=1
step "browser tests (Chromium)"
bash scripts/netns.sh vitest run --config vitest.e2e.config.ts --reporter=default --reporter=json --outputFile.json=.test-results/e2e.json || fail=1

node -e '
const fs = require("fs"); let p = 0, f = 0, s = 0;
for (const n of ["unit", "e2e"]) {
  try { const r = JSON.parse(fs.readFileSync(`.test-results/${n}.json`, "utf8"));
        p += r.numPassedTests; f += r.numFailedTests; s += r.numPendingTests + (r.numTodoTests || 0); }
  catch { f += 1; console.error(`no results from the ${n} run`); }
}
console.log(`\nTests: ${p} passed, ${f} failed, ${s} skipped`);
'
if [ "$fail" != 0 ]; then echo "npm test: FAILED"; exit 1; fi
echo "npm test: OK"
