#!/usr/bin/env bash
# Runs a command where loopback is the only interface, so no WebRTC packet can leave the
# machine (docs/TESTING.md). As root a plain network namespace works; otherwise a user
# namespace is tried. Already inside one (VP_IN_NETNS=1): run as is.
set -euo pipefail
if [ "${VP_IN_NETNS:-}" = "1" ]; then exec "$@"; fi
export VP_IN_NETNS=1
cmd=$(printf '%q ' "$@")
if unshare -n true 2>/dev/null; then
  exec unshare -n bash -c "ip link set lo up && exec $cmd"
elif unshare -rn true 2>/dev/null; then
  exec unshare -rn bash -c "ip link set lo up && exec $cmd"
else
  echo "netns.sh: cannot create a loopback-only network namespace (need root or user namespaces)" >&2
  exit 1
fi
