#!/usr/bin/env bash
# Makes the class-data archive of an installed acceld tree, with nothing but the tree itself (its
# own jlinked java; no JDK), valid for PREFIX/lib/acceld.jar only:
#   - on a Java 25+ runtime, an AOT cache (JEP 483/514/515: classes loaded and linked, and the
#     training run's method profiles), PREFIX/jre/lib/acceld.aot;
#   - on an older one (17), an AppCDS archive, PREFIX/jre/lib/acceld.jsa.
# The launcher (bin/acceld) uses whichever is there. Both record the jar's path and are refused
# for a jar anywhere else, so they are made where the tree is used: build-runtime.sh runs this for
# a tree built in place (the image), and the release's install.sh and the .deb's postinst run the
# copy in PREFIX/lib/ after installing.
#
# Usage: train-cds.sh PREFIX
# Environment:
#   ACCELD_NATIVE_PROBES     the NVML test double's directory, so the training run exercises the
#                            NVML binding too (default: none: the JNA classes then load from the jar)
#   ACCELD_TRAINING_PORT     loopback port for the training run's metrics server (default 19448)
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
prefix=$(cd "$1" && pwd)

log() { echo "train-cds: $*"; }

# The JDK's own base archive, for a java run without the agent's (a release tree ships without it:
# it is not the same from one build to the next, and releases are).
base="$prefix/jre/lib/server/classes.jsa"
if [ ! -s "$base" ]; then
  "$prefix/jre/bin/java" -Xshare:dump >/dev/null
  log "base CDS archive: $base"
fi

# Run the real agent on the simulated node (kubelet servers, NVML double, health,
#    telemetry, metrics), wait until it serves, scrape /metrics once so the exposition classes load
#    too, then stop it with SIGTERM. The run records the classes it loaded, and one static archive
#    of exactly those (JDK and agent alike) replaces the JDK's base archive plus a dynamic one on
#    top: this JDK maps archives at a random address and relocates them, which touches every page,
#    so every class in an archive is resident whether the agent loads it or not. The base archive
#    holds ~1,300 JDK classes picked for other programs; one archive of what the agent uses is
#    1 MiB less RSS. For the same reason the run does not ask for /devices: its JSON is
#    jackson-databind, ~300 classes no node loads until an operator asks (4 MiB of RSS when
#    archived).
#    Register is on every start's critical path, so the run registers too: its kubelet.sock is a
#    link to the agent's own plugin socket. That server answers Register UNIMPLEMENTED, but the
#    call loads the whole gRPC client (channel, name resolution, HTTP/2 client codec, the
#    Registration stubs: about 400 classes, left out of the archive when the run registered with
#    --kubelet-registration none), which a real start then maps instead of parsing. Then
#    `acceld kubelet-probe` calls the plugin as the kubelet does after Register (options,
#    ListAndWatch, a preferred allocation; no Allocate, so nothing is leased), which loads the
#    server side of a call.
major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$prefix/jre/release" 2>/dev/null || true)
if [ "${major:-0}" -ge 25 ]; then
  kind="AOT cache"
  archive="$prefix/jre/lib/acceld.aot"
  recording="-XX:AOTCacheOutput=$archive"
else
  kind="AppCDS archive"
  archive="$prefix/jre/lib/acceld.jsa"
fi
# Neither a stale archive of either kind nor its record may outlive a retraining.
rm -f "$prefix/jre/lib/acceld.aot" "$prefix/jre/lib/acceld.aot.classpath" \
  "$prefix/jre/lib/acceld.jsa" "$prefix/jre/lib/acceld.jsa.classpath"
log "making the $kind (runtime $("$prefix/jre/bin/java" -version 2>&1 | head -n 1))"
port=${ACCELD_TRAINING_PORT:-19448}
probes=${ACCELD_NATIVE_PROBES:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plugins="$work/device-plugins"
mkdir -p "$plugins"

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

classes="$work/classes.lst"
# AppCDS: the run lists the classes it loads, and a dump after it archives them. AOT cache: the
# run records, and at its exit the JVM assembles the cache itself (JEP 514).
ACCELD_NATIVE_PROBES=$probes \
  ACCELD_JVM_EXTRA_FLAGS="${recording:--Xshare:off -XX:DumpLoadedClassList=$classes}" \
  "$prefix/bin/acceld" run --simulate --device-plugin-dir "$plugins" \
  --metrics-address "127.0.0.1:$port" --telemetry-interval 1s >"$work/training.log" 2>&1 &
pid=$!
# Serving (alive, and the plugin socket bound), then registering against the stand-in kubelet
# until the first Register has been answered.
ready=false
linked=false
for _ in $(seq 1 300); do
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  if [ "$linked" != true ] && [ -S "$plugins/acceld-nvidia.com_gpu.sock" ] &&
    [[ $(http_get /healthz 2>/dev/null) == *" 200"* ]]; then
    ln -s acceld-nvidia.com_gpu.sock "$plugins/kubelet.sock"
    linked=true
  fi
  if [ "$linked" = true ] && grep -q "Register of nvidia.com/gpu failed" "$work/training.log"; then
    ready=true
    break
  fi
  sleep 0.2
done
if [ "$ready" != true ]; then
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$0: the training run never served and registered; its log:" >&2
  cat "$work/training.log" >&2
  exit 1
fi
"$prefix/bin/acceld" kubelet-probe "$plugins/acceld-nvidia.com_gpu.sock" >"$work/probe.log" 2>&1 || {
  echo "$0: kubelet-probe of the training run failed:" >&2
  cat "$work/probe.log" >&2
  exit 1
}
http_get /metrics >/dev/null
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
if [ -n "${recording:-}" ]; then
  if [ "$status" -ne 0 ] || [ ! -s "$archive" ]; then
    echo "$0: the training run exited $status without making $archive; its log:" >&2
    cat "$work/training.log" >&2
    exit 1
  fi
  # The JVM writes it owner-only; like the rest of the tree (and the AppCDS archive) it is for
  # whichever user runs the agent.
  chmod 0644 "$archive"
  printf '%s\n' "$prefix/lib/acceld.jar" >"$archive.classpath"
  log "AOT cache: $(du -h "$archive" | cut -f1), at $archive"
  exit 0
fi
if [ "$status" -ne 0 ] || [ ! -s "$classes" ]; then
  echo "$0: the training run exited $status without listing its classes in $classes; its log:" >&2
  cat "$work/training.log" >&2
  exit 1
fi
# The dump's heap settings match the launcher's (compressed oops and class pointers must agree).
# Its warnings name classes it cannot archive (picocli's Java 5 class files, JFR event classes):
# those load from the jar as before.
if ! "$prefix/jre/bin/java" -Xshare:dump -XX:SharedClassListFile="$classes" \
  -XX:SharedArchiveFile="$archive" -XX:+UseSerialGC -Xmx64m -cp "$prefix/lib/acceld.jar" \
  >"$work/dump.log" 2>&1 || [ ! -s "$archive" ]; then
  echo "$0: the archive dump of $(wc -l <"$classes") classes failed; its log:" >&2
  cat "$work/dump.log" >&2
  exit 1
fi
# JDK 17 archives hold the jar's path and are refused, silently, for a jar anywhere else: the
# launcher reads this to say so instead of starting slower and larger without a word.
printf '%s\n' "$prefix/lib/acceld.jar" >"$archive.classpath"
log "AppCDS archive: $(du -h "$archive" | cut -f1), $(wc -l <"$classes") classes, at $archive"
