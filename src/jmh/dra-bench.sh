#!/bin/sh
# What one node's DRA side costs the API server: runs io.acceld.bench.DraSliceHarness (src/test)
# against the API-server double over real HTTP, with the publisher's production timings.
# Usage: sh src/jmh/dra-bench.sh [idleSeconds=120] [flapSeconds=60] [fastSeconds=30] [watchTimeout=10m]
set -eu
java=${ACCELD_JAVA:-java}
./mvnw -B -q test-compile
cp=$(./mvnw -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
log=${ACCELD_BENCH_LOG:-/tmp/acceld-dra-bench.log}
# shellcheck disable=SC2086
"$java" ${ACCELD_BENCH_JVM_FLAGS:-} -cp "target/test-classes:target/classes:$cp" \
  io.acceld.bench.DraSliceHarness "$@" \
  | tee "$log" | grep --line-buffered -v '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.'
