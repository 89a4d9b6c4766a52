#!/bin/sh
# DRA latencies through the real agent: NodePrepareResources of 1- and 8-GPU claims, and XID -> the
# health stream / the slice. Runs io.acceld.bench.DraPrepareHarness (src/test) in one JVM with the
# agent, the API-server stand-in on loopback and the stand-in kubelet on the real sockets.
# Usage: sh src/jmh/dra-prepare-bench.sh [warmup=50] [prepares=300] [xids=20]
set -eu
java=${ACCELD_JAVA:-java}
./mvnw -B -o -q test-compile
# Offline without the dependency plugin: the shaded jar (built by `./mvnw -o package`) and AssertJ,
# the one test-scope library the stand-in kubelet needs.
cp=$(./mvnw -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout 2>/dev/null) ||
  cp="target/acceld.jar:$(find "$HOME/.m2/repository/org/assertj/assertj-core" -name 'assertj-core-*.jar' | sort | tail -1)"
log=${ACCELD_BENCH_LOG:-/tmp/acceld-dra-prepare-bench.log}
# shellcheck disable=SC2086
"$java" ${ACCELD_BENCH_JVM_FLAGS:-} -cp "target/test-classes:target/classes:$cp" \
  io.acceld.bench.DraPrepareHarness "$@" \
  | tee "$log" | grep --line-buffered -v '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.'
