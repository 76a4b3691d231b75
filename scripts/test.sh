#!/usr/bin/env bash
# `npm test`: type-check, lint, unit + simulated + Node-WebRTC tests, then real-Chromium
# browser tests. Everything runs in a loopback-only network namespace (scripts/netns.sh).
# The unit files run two at a time (vitest's default on 2 cores is one, a core kept free;
# these files are simulations on virtual clocks, no fixed ports or shared directories),
# and the type-check, lint and build beside them, their output held until the unit tests
# end: 4.7 minutes in all where one after the other took ~9. The browser tests run alone
# after (one software-rendered tab takes most of a core): 6.7 minutes.
# Ends with the slowest test files, the wall time of each phase and one plain
# "Tests: N passed, N failed" line summing both vitest runs (scripts/test-report.ts).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
R=.test-results
mkdir -p "$R"
rm -f "$R"/*.json "$R/phases.tsv" "$R/checks.log"
reporters=(--reporter=default --reporter=json --reporter=./scripts/file-times-reporter.ts)

step() { echo; echo "== $*"; }
# phase NAME COMMAND...: runs COMMAND, its wall time and exit code put in $R/phases.tsv.
phase() {
  local name=$1 t0=$EPOCHREALTIME rc
  shift
  "$@"
  rc=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$t0" "$EPOCHREALTIME" "$rc" >> "$R/phases.tsv"
  return "$rc"
}
checks() {
  local rc=0
  echo "== type-check (tsc --noEmit)"; phase type-check tsc --noEmit -p tsconfig.json || rc=1
  echo; echo "== lint (eslint)"; phase lint eslint . || rc=1
  echo; echo "== build for browser tests"; phase build vite build --logLevel warn || rc=1
  return "$rc"
}

fail=0
step "type-check, lint and build: beside the unit tests, output below once they end"
checks > "$R/checks.log" 2>&1 &
checks_pid=$!
step "unit, simulated and Node WebRTC tests"
VP_FILE_TIMES=$R/unit-files.json phase unit bash scripts/netns.sh vitest run --maxWorkers=2 "${reporters[@]}" --outputFile.json="$R/unit.json" || fail=1
wait "$checks_pid" || fail=1
echo; cat "$R/checks.log"
step "browser tests (Chromium)"
VP_FILE_TIMES=$R/e2e-files.json phase browser bash scripts/netns.sh vitest run --config vitest.e2e.config.ts "${reporters[@]}" --outputFile.json="$R/e2e.json" || fail=1

tsx scripts/test-report.ts || fail=1
if [ "$fail" != 0 ]; then echo "npm test: FAILED"; exit 1; fi
echo "npm test: OK"
