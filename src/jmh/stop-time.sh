#!/bin/sh
# Stop time of an installed tree: starts `bin/acceld run --simulate` (no kubelet, loopback metrics on
# a free port), waits until its metrics server is up and 2 s more, sends SIGTERM and prints the
# milliseconds until the process has exited, once per run, with its exit status.
# Usage: src/jmh/stop-time.sh TREE [RUNS=5]   (ACCELD_NATIVE_PROBES: the NVML double, if not built here)
set -eu
tree=$1
runs=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/acceld-stop-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/device-plugins"
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  : >"$work/agent.log"
  "$tree/bin/acceld" run --simulate --state-dir "$work/state" \
    --device-plugin-dir "$work/device-plugins" --plugins-registry-dir "$work/registry" \
    --pod-resources-socket "$work/pod-resources.sock" --metrics-address 127.0.0.1:0 \
    >"$work/agent.log" 2>&1 &
  pid=$!
  tries=0
  until grep -q "Serving /metrics" "$work/agent.log"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "the agent did not start; its log:" >&2
      cat "$work/agent.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  sleep 2
  start=$(date +%s%N)
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  echo "run $i: SIGTERM to exit $((($(date +%s%N) - start) / 1000000)) ms, exit status $status"
done
