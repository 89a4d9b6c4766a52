#!/usr/bin/env bash
# Builds the installable acceld tree: a jlinked Java runtime cut to the modules the agent uses, the
# jar, the launcher, and an AppCDS archive recorded from a real run of the agent. The Dockerfile, the
# systemd install script and RuntimeImageIT all run this one script, so what the tests start is what
# ships.
#
# Usage: deploy/image/build-runtime.sh JAR PREFIX
#   JAR     the shaded agent jar (target/acceld.jar)
#   PREFIX  the tree to create: PREFIX/bin/acceld, PREFIX/lib/acceld.jar, PREFIX/jre (+ lib/acceld.jsa)
# Environment:
#   JAVA_HOME                the JDK whose jdeps/jlink are used (default: the one on PATH)
#   ACCELD_NATIVE_PROBES     the NVML test double's directory, so the training run exercises the
#                            NVML binding too (default: native-probes/ next to the jar, if built)
#   ACCELD_TRAINING_PORT     loopback port for the training run's metrics server (default 19448)
#   ACCELD_SKIP_CDS=true     skip the AppCDS archive
#
# The archive is only valid for the jar at PREFIX/lib/acceld.jar with its size and mtime: build in
# the final location (the Dockerfile builds in /opt/acceld and copies the tree as a whole).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 JAR PREFIX" >&2
  exit 2
fi
jar=$1
prefix=$2
here=$(cd "$(dirname "$0")" && pwd)
jdk_bin=${JAVA_HOME:+$JAVA_HOME/bin/}

if [ ! -f "$jar" ]; then
  echo "$0: $jar not found: build it with ./mvnw -B package -DskipTests" >&2
  exit 1
fi

log() { echo "build-runtime: $*"; }

# 1. The modules. jdeps reads the shaded jar; two of its answers are dropped because nothing the
#    agent runs needs them: java.desktop (JNA's AWT helpers) and java.sql (optional Jackson and
#    Logback types). What jdeps saw only through those two is added back: java.logging (grpc logs
#    through JUL, bridged to SLF4J) and java.xml (Logback parses its logback.xml with SAX).
#    jdk.management backs the process CPU metrics, which are loaded reflectively.
found=$("${jdk_bin}jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$jar")
modules=$(
  { tr ',' '\n' <<<"$found"; printf '%s\n' java.logging java.xml java.management jdk.management; } |
    grep -v -x -e java.desktop -e java.sql | sort -u | paste -sd, -
)
log "jdeps: $found"
log "modules: $modules"

# 2. The runtime. --generate-cds-archive writes the JDK's own base CDS archive into the image; the
#    dynamic AppCDS archive below sits on top of it.
release=$("${jdk_bin}jlink" --version)
case $release in
  17.* | 18.* | 19.* | 20.*) compress=--compress=2 ;;
  *) compress=--compress=zip-6 ;;
esac
rm -rf "$prefix"
mkdir -p "$prefix/bin" "$prefix/lib"
"${jdk_bin}jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  "$compress" --generate-cds-archive --output "$prefix/jre"
# The archive for heaps over 32 GiB (no compressed oops) is 10 MiB the agent's 64 MiB heap never uses.
rm -f "$prefix/jre/lib/server/classes_nocoops.jsa"
cp "$jar" "$prefix/lib/acceld.jar"
install -m 0755 "$here/../bin/acceld" "$prefix/bin/acceld"
log "runtime: $(du -sh "$prefix/jre" | cut -f1) in $prefix/jre (jlink $release)"

if [ "${ACCELD_SKIP_CDS:-false}" = true ]; then
  exit 0
fi

# 3. AppCDS. Run the real agent on the simulated node (kubelet servers, NVML double, health,
#    telemetry, metrics), wait until it serves /readyz, scrape /metrics once so the exposition
#    classes load too, then stop it with SIGTERM: the JVM writes the archive as it exits.
port=${ACCELD_TRAINING_PORT:-19448}
probes=${ACCELD_NATIVE_PROBES:-$(dirname "$jar")/native-probes}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archive="$prefix/jre/lib/acceld.jsa"

http_get() { # path -> status line (bash's /dev/tcp: the build stage need not have curl)
  local fd
  exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&"$fd"
  local status
  IFS= read -r status <&"$fd" || true
  cat <&"$fd" >/dev/null || true
  exec {fd}>&-
  echo "$status"
}

ACCELD_NATIVE_PROBES=$probes ACCELD_JVM_EXTRA_FLAGS="-XX:ArchiveClassesAtExit=$archive" \
  "$prefix/bin/acceld" run --simulate --kubelet-registration none \
  --metrics-address "127.0.0.1:$port" --telemetry-interval 1s >"$work/training.log" 2>&1 &
pid=$!
ready=false
for _ in $(seq 1 300); do
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  if [[ $(http_get /readyz 2>/dev/null) == *" 200"* ]]; then
    ready=true
    break
  fi
  sleep 0.2
done
if [ "$ready" != true ]; then
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$0: the training run never became ready; its log:" >&2
  cat "$work/training.log" >&2
  exit 1
fi
http_get /metrics >/dev/null
http_get /devices >/dev/null
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
if [ "$status" -ne 0 ] || [ ! -s "$archive" ]; then
  echo "$0: the training run exited $status without writing $archive; its log:" >&2
  cat "$work/training.log" >&2
  exit 1
fi
log "AppCDS archive: $(du -h "$archive" | cut -f1) at $archive"
