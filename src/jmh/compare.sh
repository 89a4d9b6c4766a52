#!/bin/sh
# Runs the same JMH benchmark from two builds back to back, so a before/after comparison shares one
# machine state. Usage: sh src/jmh/compare.sh BEFORE.jar AFTER.jar BENCHMARK [JMH options...]
# Build the "before" jar from an older commit in a git worktree:
#   git worktree add /tmp/before <commit> && (cd /tmp/before && ./mvnw -B -q -Pbench package -DskipTests)
set -eu
before=$1; after=$2; shift 2
for build in before after; do
  if [ "$build" = before ]; then jar=$before; else jar=$after; fi
  echo "== $build: $jar"
  java -jar "$jar" "$@" 2>&1 | grep -E '^(Benchmark|KubeletRpc|Preferred|Fragmented|Scrape)[A-Za-z.]*|p0\.(50|99)0' || true
done
