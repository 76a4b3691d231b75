#!/usr/bin/env bash
# `npm run lab [-- CASE... --runs N]`: the network lab (bench/lab/README.md). Two homes behind
# NATs, an "internet" with coturn and the relay, the built app in Chromium in each home.
# Needs root and Debian's coturn, iptables, conntrack and chromium.
# `scripts/lab.sh --world`: the one world of e2e/lab.test.ts (bench/lab/lab-world.ts) instead of the cases.
# `scripts/lab.sh --headless-pair`: bare Chromium vs node-datachannel over TURN (bench/lab/headless-pair.ts).
#
# Isolation: the script re-runs itself in new mount, network and PID namespaces. The network
# namespace holds only `lo` (checked), the lab's own namespaces are named under a private
# tmpfs on /run, and no namespace of the lab gets a default route, so nothing of it can reach
# or change the machine's own network. When this script dies, however (Ctrl-C, SIGKILL),
# `--kill-child` ends the PID namespace's first process and the kernel every other one, and
# the namespaces, veths and iptables rules go with the last process that held them.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${VP_LAB_INSIDE:-}" != 1 ]; then
  if [ "$(id -u)" != 0 ]; then echo "lab: needs root (network namespaces, iptables)" >&2; exit 1; fi
  for bin in turnserver iptables conntrack chromium unshare; do
    command -v "$bin" >/dev/null || { echo "lab: $bin missing: apt-get install -y coturn iptables conntrack chromium" >&2; exit 1; }
  done
  [ -f dist/index.html ] || [ "${1:-}" = --headless-pair ] || { echo "lab: no dist/: run vite build first (npm run lab does)" >&2; exit 1; }
  export VP_LAB_INSIDE=1
  exec unshare --mount --net --pid --fork --kill-child --mount-proc --propagation private bash "$0" "$@"
fi
ip link set lo up
links=$(ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')
if [ "$links" != "lo " ]; then echo "lab: the outer namespace is not empty ($links): refusing to run" >&2; exit 1; fi
if ip route get 198.51.100.1 >/dev/null 2>&1; then echo "lab: the outer namespace has a route out: refusing to run" >&2; exit 1; fi
mount -t tmpfs lab-run /run
mkdir -p /run/netns
if [ "${1:-}" = --world ]; then shift; exec node --import tsx bench/lab/lab-world.ts "$@"; fi
if [ "${1:-}" = --headless-pair ]; then shift; exec node --import tsx bench/lab/headless-pair.ts "$@"; fi
exec node --import tsx bench/lab/lab.ts "$@"
