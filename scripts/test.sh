#!/usr/bin/env bash
# `npm test`: type-check, lint, unit + simulated + Node-WebRTC tests, then real-Chromium
# browser tests. Everything runs in a loopback-only network namespace (scripts/netns.sh).
# The unit files run two at a time (vitest's default on 2 cores is one, a core kept free;
# these files have no fixed ports or shared directories), and the build beside them, its
# output held until the unit tests end. The browser tests run after them,
# one file at a time (one software-rendered tab takes most of a core), and use ~1.5 of the 2
# cores on average: much of their time is the product's own timeouts (heartbeats, failover,
# reconnect backoff). The simulations (scripts/sim-files.txt: the scale simulations and the
# heaviest simulated-network files, on virtual clocks, pure CPU) run from the start in a
# vitest run of their own at the lowest CPU priority (`lowest`, below): they take what the other
# phases leave (the browser phase leaves most of a core), a browser tab that wants a core
# gets it at once, and the unit phase before the browser tests is shorter without them.
# Their per-test timeouts only guard against a hang. The type-check and lint (pure CPU, no
# clock) run niced beside everything as well: the browser tests need only the build.
# Ends with the slowest test files, the wall time of each phase and one plain
# "Tests: N passed, N failed" line summing both vitest runs (scripts/test-report.ts).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
R=.test-results
mkdir -p "$R"
rm -f "$R"/*.json "$R/phases.tsv" "$R/checks.log" "$R/build.log" "$R/sims.log"
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
  # tsgo (TypeScript 7, native): the same diagnostics as tsc 5.9 in a quarter of its CPU;
  # typescript 5.9 stays for typescript-eslint, which loads it as a library.
  echo "== type-check (tsgo --noEmit)"; phase type-check lowest tsgo --noEmit -p tsconfig.json || rc=1
  echo; echo "== lint (eslint)"; phase lint lowest eslint . || rc=1
  return "$rc"
}

# lowest COMMAND...: runs COMMAND at nice 19 in a scheduling group of its own at nice 19.
# Linux groups processes by session (autogroups, when the kernel has them on) and `nice`
# ranks only within a group, while Playwright starts each browser as a session, a group
# of its own: a niced job in this script's group took as much CPU as a browser tab. Its
# own lowered group yields to the browsers too. Where autogroups are off, nice alone.
lowest() {
  setsid -w bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null; exec nice -n 19 "$@"' lowest "$@"
}

mapfile -t sims < <(grep -v '^\s*$' scripts/sim-files.txt)
excludes=()
for f in "${sims[@]}"; do excludes+=(--exclude "$f"); done

fail=0
step "simulations (niced, beside everything): output below once they end"
VP_FILE_TIMES=$R/sims-files.json phase sims lowest bash scripts/netns.sh vitest run --maxWorkers=2 --testTimeout=900000 --hookTimeout=900000 "${reporters[@]}" --outputFile.json="$R/sims.json" "${sims[@]}" > "$R/sims.log" 2>&1 &
sims_pid=$!
step "type-check and lint (niced, beside everything): output below once they end"
checks > "$R/checks.log" 2>&1 &
checks_pid=$!
step "build for browser tests: beside the unit tests, output below once they end"
phase build vite build --logLevel warn > "$R/build.log" 2>&1 &
build_pid=$!
step "unit, Node WebRTC and short simulated tests"
VP_FILE_TIMES=$R/unit-files.json phase unit bash scripts/netns.sh vitest run --maxWorkers=2 "${excludes[@]}" "${reporters[@]}" --outputFile.json="$R/unit.json" || fail=1
wait "$build_pid" || fail=1
echo; cat "$R/build.log"
step "browser tests (Chromium)"
VP_FILE_TIMES=$R/e2e-files.json phase browser bash scripts/netns.sh vitest run --config vitest.e2e.config.ts "${reporters[@]}" --outputFile.json="$R/e2e.json" || fail=1
wait "$checks_pid" || fail=1
echo; cat "$R/checks.log"
wait "$sims_pid" || fail=1
step "simulations"
cat "$R/sims.log"

tsx scripts/test-report.ts || fail=1
if [ "$fail" != 0 ]; then echo "npm test: FAILED"; exit 1; fi
echo "npm test: OK"
