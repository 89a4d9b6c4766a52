#!/bin/sh
# Memory of the running agent: starts `acceld run --simulate` (8 GPUs, NVML double, metrics and
# telemetry on), lets it settle, scrapes /metrics a few times, then reports the process RSS and the
# JVM's heap and non-heap use, and how long it took from exec to the first 200 from /readyz.
# Usage: src/jmh/memory.sh [extra JVM flags...]
# ACCELD_JAVA picks the runtime (e.g. the jlinked target/runtime-image/jre/bin/java).
set -eu
jar=${ACCELD_JAR:-target/acceld.jar}
java=${ACCELD_JAVA:-java}
port=${ACCELD_MEMORY_PORT:-19446}
start_ns=$(date +%s%N)
"$java" "$@" -jar "$jar" run --simulate --kubelet-registration none \
  --metrics-address "127.0.0.1:$port" --telemetry-interval 1s >/tmp/acceld-memory.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
i=0
until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -gt 400 ] && { echo "agent did not become ready"; exit 1; }
  sleep 0.05
done
ready_ms=$((($(date +%s%N) - start_ns) / 1000000))
sleep 10
for _ in 1 2 3 4 5 6 7 8 9 10; do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null; done
sleep 2
rss_kb=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
threads=$(awk '/^Threads/ {print $2}' /proc/$pid/status)
metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
heap=$(echo "$metrics" | awk '/^jvm_memory_used_bytes\{area="heap"/ {s += $NF} END {printf "%.1f", s / 1048576}')
nonheap=$(echo "$metrics" | awk '/^jvm_memory_used_bytes\{area="nonheap"/ {s += $NF} END {printf "%.1f", s / 1048576}')
echo "java: $java  JVM flags: ${*:-(defaults)}"
echo "ready after: $ready_ms ms"
echo "RSS: $((rss_kb / 1024)) MiB  heap used: $heap MiB  non-heap used: $nonheap MiB  threads: $threads"
