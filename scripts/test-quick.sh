#!/usr/bin/env bash
# `npm run test:quick [-- BASE]`: the inner loop, seconds to minutes by what the change reaches
# (uncommitted changes under src/region and src/agree: 49 test files, 3.7 min) against `npm test`'s 11.
# Type-check (incremental: its state in .test-results/), lint of the changed files, and the
# unit tests that import, directly or not, a file changed against BASE (default main: on a
# branch, what it changed since main; on main, what is not committed yet; vitest --changed
# counts untracked files too), two files at a time. Browser tests and the whole unit suite
# stay with `npm test`.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
base=${1:-main}
mkdir -p .test-results
fail=0
step() { echo; echo "== $*"; }
t0=$EPOCHREALTIME
step "type-check (tsc --noEmit --incremental)"
tsc --noEmit -p tsconfig.json --incremental --tsBuildInfoFile .test-results/tsc.tsbuildinfo || fail=1
mapfile -t changed < <({ git diff --name-only "$base"...HEAD; git diff --name-only HEAD; git ls-files --others --exclude-standard; } 2>/dev/null \
  | sort -u | grep -E '\.(ts|js|mjs|cjs)$' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
step "lint (eslint, ${#changed[@]} changed files)"
if [ "${#changed[@]}" -gt 0 ]; then eslint --no-warn-ignored "${changed[@]}" || fail=1; fi
step "unit tests affected by files changed against $base (vitest --changed)"
bash scripts/netns.sh vitest run --changed "$base" --maxWorkers=2 --passWithNoTests || fail=1
echo
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "test:quick: %.0f s\n", b - a }'
if [ "$fail" != 0 ]; then echo "test:quick: FAILED"; exit 1; fi
echo "test:quick: OK"
