#!/usr/bin/env bash
# `npm test`: type-check, lint, unit + simulated + Node-WebRTC tests, then real-Chromium
# browser tests. Everything runs in a loopback-only network namespace (scripts/netns.sh).
# The critical path is short on purpose: first the unit files that run on the wall clock
# (scripts/realtime-files.txt: real sockets, WebRTC in Node, child processes, timers that a
# starved process would miss), two at a time, with the build beside them; then the browser
# tests, one file at a time (one software-rendered tab takes most of a core), which use ~1.2
# of the 2 cores on average: much of their time is the product's own timeouts (heartbeats,
# failover, reconnect backoff). Everything else is pure CPU on virtual clocks, whose wall
# time says nothing of what it tests: the simulations (scripts/sim-files.txt, started first)
# and the other unit files run from the start in one vitest run at the lowest CPU priority
# (`lowest`, below), and so do the type-check and lint. They take what the browser tests
# leave, and a browser tab that wants a core gets it at once. Their per-test timeouts only
# guard against a hang.
# Ends with the slowest test files, the wall time of each phase and one plain
# "Tests: N passed, N failed" line summing the vitest runs (scripts/test-report.ts).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
R=.test-results
mkdir -p "$R"
rm -f "$R"/*.json "$R"/*-cpu.tsv "$R/phases.tsv" "$R/checks.log" "$R/build.log" "$R/background.log" "$R"/machine-cpu-*
# The whole machine's CPU counters (/proc/stat) at the start and the end: what the run had
# to share (on a shared machine, other load included), printed by scripts/test-report.ts.
head -1 /proc/stat > "$R/machine-cpu-start" 2>/dev/null
reporters=(--reporter=default --reporter=json --reporter=./scripts/file-times-reporter.ts)

step() { echo; echo "== $*"; }
# phase NAME COMMAND...: runs COMMAND, its wall time, exit code and CPU seconds put in
# $R/phases.tsv. The CPU is what the subshell's `times` says of its children: COMMAND's
# processes and the descendants they reaped, a lower bound (Chromium's renderers reach no
# parent's counters: the browser phase's figure is the sum of its files', which
# scripts/file-cpu-setup.ts samples); the phases share 2 cores, so CPU, not wall, is what a
# cut saves.
phase() {
  local name=$1 t0=$EPOCHREALTIME rc tf
  shift
  tf=$(mktemp)
  ( "$@"; rc=$?; times > "$tf"; exit "$rc" )
  rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$t0" "$EPOCHREALTIME" "$rc" "$(sed -n 2p "$tf" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.1f", s }')" >> "$R/phases.tsv"
  rm -f "$tf"
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

mapfile -t realtime < <(grep -v '^\s*$' scripts/realtime-files.txt)
not_realtime=()
for f in "${realtime[@]}"; do not_realtime+=(--exclude "$f"); done

fail=0
step "background: simulations and unit tests on virtual clocks (lowest priority, beside everything): output below once they end"
VP_FILE_TIMES=$R/background-files.json VP_FILE_CPU=$R/background-cpu.tsv phase background lowest bash scripts/netns.sh vitest run --maxWorkers=2 --testTimeout=900000 --hookTimeout=900000 "${not_realtime[@]}" "${reporters[@]}" --outputFile.json="$R/background.json" > "$R/background.log" 2>&1 &
background_pid=$!
step "type-check and lint (lowest priority, beside everything): output below once they end"
checks > "$R/checks.log" 2>&1 &
checks_pid=$!
step "build for browser tests: beside the wall-clock tests, output below once they end"
phase build vite build --logLevel warn > "$R/build.log" 2>&1 &
build_pid=$!
step "unit tests on the wall clock (real sockets, processes, timers: scripts/realtime-files.txt)"
VP_FILE_TIMES=$R/realtime-files.json VP_FILE_CPU=$R/realtime-cpu.tsv phase realtime bash scripts/netns.sh vitest run --maxWorkers=2 "${reporters[@]}" --outputFile.json="$R/realtime.json" "${realtime[@]}" || fail=1
wait "$build_pid" || fail=1
echo; cat "$R/build.log"
# .ci/run installs the browsers with apt beside the first phases: wait for it here.
if [ -n "${VP_APT_PID:-}" ]; then
  step "waiting for apt (browsers, Xvfb, coturn) started by .ci/run"
  t_apt=$EPOCHREALTIME
  while [ ! -s "${VP_APT_RC:-/dev/null}" ] && kill -0 "$VP_APT_PID" 2>/dev/null; do sleep 0.5; done
  printf '%s\t%s\t%s\t%s\n' apt-wait "$t_apt" "$EPOCHREALTIME" 0 >> "$R/phases.tsv"
  if [ "$(cat "${VP_APT_RC:-/dev/null}" 2>/dev/null)" != 0 ]; then echo "apt-get install failed"; fail=1; fi
fi
step "browser tests (Chromium)"
VP_FILE_TIMES=$R/e2e-files.json VP_FILE_CPU=$R/e2e-cpu.tsv phase browser bash scripts/netns.sh vitest run --config vitest.e2e.config.ts "${reporters[@]}" --outputFile.json="$R/e2e.json" || fail=1
wait "$checks_pid" || fail=1
echo; cat "$R/checks.log"
wait "$background_pid" || fail=1
step "background: simulations and unit tests on virtual clocks"
cat "$R/background.log"

head -1 /proc/stat > "$R/machine-cpu-end" 2>/dev/null
tsx scripts/test-report.ts || fail=1
if [ "$fail" != 0 ]; then echo "npm test: FAILED"; exit 1; fi
echo "npm test: OK"
