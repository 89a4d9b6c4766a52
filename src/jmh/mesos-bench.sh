#!/bin/sh
# The Mesos bridge's figures (issue 8): runs io.acceld.bench.MesosBridgeHarness (src/test) against the
# real daemon, the NVML double and the kubelet double, on the test classpath.
# Usage: sh src/jmh/mesos-bench.sh [subscribes=200] [accepts=300] [launchSeconds=60] [frameworks=100]
#        [isolation="devices,memory,cpu;none"] (each value a fresh agent, every phase once)
#        [allocates=3000] [heartbeat=100ms]
# ACCELD_JAVA picks the runtime; extra JVM flags go in ACCELD_BENCH_JVM_FLAGS. The agent's log (it logs
# every task at INFO, as in production) goes to ${ACCELD_BENCH_LOG:-/tmp/acceld-mesos-bench.log}; the
# figures are the lines that do not start with a log timestamp.
set -eu
java=${ACCELD_JAVA:-java}
./mvnw -B -q test-compile
cp=$(./mvnw -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
log=${ACCELD_BENCH_LOG:-/tmp/acceld-mesos-bench.log}
# Word splitting of the flags is intended: a list of JVM options.
# shellcheck disable=SC2086
"$java" ${ACCELD_BENCH_JVM_FLAGS:-} -Dacceld.nativeProbes=target/native-probes \
  -cp "target/test-classes:target/classes:$cp" io.acceld.bench.MesosBridgeHarness "$@" \
  | tee "$log" | grep --line-buffered -v '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.'
