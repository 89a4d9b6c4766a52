#!/bin/sh
# Memory of the running agent: starts `acceld run --simulate` (8 GPUs, NVML double, metrics and
# telemetry on), lets it settle, scrapes /metrics a few times, then reports the process RSS and the
# JVM's heap and non-heap use. Usage: src/jmh/memory.sh [extra JVM flags...]
set -eu
jar=${ACCELD_JAR:-target/acceld.jar}
port=${ACCELD_MEMORY_PORT:-19446}
java "$@" -jar "$jar" run --simulate --kubelet-registration none \
  --metrics-address 127.0.0.1:$port --telemetry-interval 1s >/tmp/acceld-memory.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
i=0
until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -gt 100 ] && { echo "agent did not become ready"; exit 1; }
  sleep 0.2
done
sleep 10
for n in 1 2 3 4 5 6 7 8 9 10; do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null; done
sleep 2
rss_kb=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
threads=$(awk '/^Threads/ {print $2}' /proc/$pid/status)
metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
heap=$(echo "$metrics" | awk '/^jvm_memory_used_bytes\{area="heap"/ {s += $NF} END {printf "%.1f", s / 1048576}')
nonheap=$(echo "$metrics" | awk '/^jvm_memory_used_bytes\{area="nonheap"/ {s += $NF} END {printf "%.1f", s / 1048576}')
echo "JVM flags: ${*:-(defaults)}"
echo "RSS: $((rss_kb / 1024)) MiB  heap used: $heap MiB  non-heap used: $nonheap MiB  threads: $threads"
