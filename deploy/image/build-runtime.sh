#!/usr/bin/env bash
# Builds the installable acceld tree: a jlinked Java runtime cut to the modules the agent uses, the
# jar, the launcher, and an AppCDS archive recorded from a real run of the agent. The Dockerfile, the
# systemd install script and RuntimeImageIT all run this one script, so what the tests start is what
# ships.
#
# Usage: deploy/image/build-runtime.sh JAR PREFIX
#   JAR     the shaded agent jar (target/acceld.jar)
#   PREFIX  the tree to create: PREFIX/bin/acceld, PREFIX/lib/acceld.jar, PREFIX/jre (+ lib/acceld.jsa),
#           PREFIX/share/bash-completion/completions/acceld
# Environment:
#   JAVA_HOME                the JDK whose jdeps/jlink are used (default: the one on PATH)
#   ACCELD_NATIVE_PROBES     the NVML test double's directory, so the training run exercises the
#                            NVML binding too (default: native-probes/ next to the jar, if built)
#   ACCELD_TRAINING_PORT     loopback port for the training run's metrics server (default 19448)
#   ACCELD_SKIP_CDS=true     skip the class-data archive (AppCDS, or an AOT cache on Java 25+)
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
#    through JUL, bridged to SLF4J) and java.xml (Logback parses an operator's
#    -Dlogback.configurationFile with SAX; its own set-up is code, cli/LogbackDefaults).
#    jdk.management backs the process CPU metrics, which are loaded reflectively.
#    jdk.crypto.ec is the SunEC provider up to Java 21 (22 moved it into java.base): a service
#    provider, so jdeps never names it, and without it TLS has neither ECDHE nor ECDSA. A JDK
#    server settles for finite-field DH and RSA, so a JDK test double shakes hands regardless; Go's
#    TLS (the kube-apiserver) offers only X25519 and the NIST curves, so DRA could not reach a real
#    API server at all.
found=$("${jdk_bin}jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$jar")
release=$("${jdk_bin}jlink" --version)
case $release in
  17.* | 18.* | 19.* | 20.* | 21.*) providers=jdk.crypto.ec ;;
  *) providers= ;;
esac
modules=$(
  { tr ',' '\n' <<<"$found"; printf '%s\n' java.logging java.xml java.management jdk.management ${providers:+"$providers"}; } |
    grep -v -x -e java.desktop -e java.sql | sort -u | paste -sd, -
)
log "jdeps: $found"
log "modules: $modules"

# 2. The runtime. --generate-cds-archive writes the JDK's own base CDS archive into the image, for a
#    java run without the agent's archive (ACCELD_SKIP_CDS, `java -jar` by hand); the launcher
#    maps the AppCDS archive made below instead.
case $release in
  17.* | 18.* | 19.* | 20.*) compress=--compress=2 ;;
  *) compress=--compress=zip-6 ;;
esac
rm -rf "$prefix"
mkdir -p "$prefix/bin" "$prefix/lib"
# Absolute from here on: the AppCDS archive records the class path it was dumped with, and a
# relative one (PREFIX given as target/runtime-image) matches only when run from the same directory.
prefix=$(cd "$prefix" && pwd)
# --order-resources: the classes a node reads from lib/modules (not from the archive) first and
# side by side, so that they share pages (see jimage-order.classlist).
"${jdk_bin}jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  "$compress" --order-resources="**module-info.class,@$here/jimage-order.classlist" \
  --generate-cds-archive --output "$prefix/jre"
# jlink copies the JDK's native programs and libraries with their symbol tables; running them needs
# only the dynamic symbols, which --strip-unneeded keeps (lintian flags the rest, and it is size).
# Where binutils is missing, the tree is only larger.
if command -v strip >/dev/null 2>&1; then
  find "$prefix/jre" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper -o -name jexec \) \
    -exec strip --strip-unneeded {} +
fi
# The archive for heaps over 32 GiB (no compressed oops) is 10 MiB the agent's 64 MiB heap never uses.
rm -f "$prefix/jre/lib/server/classes_nocoops.jsa"
# The JDK's CA bundle, under a name of its own, which the launcher gives the JVM as its default
# trust store (javax.net.ssl.trustStore): whatever trusted the JDK's CAs still does (a kubeconfig
# that names no CA, `acceld devices --agent https://...`). Why move it: at the first certificate
# check the JDK parses every certificate in lib/security/cacerts to learn which anchors are "JDK
# CAs" (sun.security.util.AnchorCertificates, for the jdkCA constraint and the host-name check),
# and keeps their names: 1.8 MB of live heap, 1.4 MiB RSS on a DRA node, whose API server's CA is
# the cluster's own and never one of them. The one constraint that used that knowledge, "SHA1 jdkCA
# & usage TLSServer", becomes "SHA1 usage TLSServer": SHA-1-signed server certificates stay
# refused, now whoever signed them (Go's TLS, so the kubelet and kubectl, refuses them too).
security="$prefix/jre/lib/security"
if [ -f "$security/cacerts" ]; then
  mv "$security/cacerts" "$security/acceld-cacerts"
  sed -i 's/SHA1 jdkCA & usage TLSServer/SHA1 usage TLSServer/' "$prefix/jre/conf/security/java.security"
  # Any other jdkCA constraint would now match nothing: stop rather than ship a weaker policy.
  if grep -v '^[[:space:]]*#' "$prefix/jre/conf/security/java.security" | grep -q jdkCA; then
    echo "build-runtime: $prefix/jre/conf/security/java.security has a jdkCA constraint this script does not know; see the comment above this check" >&2
    exit 1
  fi
  log "CA bundle: $security/acceld-cacerts, the launcher's javax.net.ssl.trustStore"
fi
cp "$jar" "$prefix/lib/acceld.jar"

# The jar's two native libraries for this runtime's architecture, beside it: JNA's dispatch library
# and Netty's epoll transport. The launcher points both at lib/native, so neither extracts its copy
# from the jar to /tmp on every start (which fails on a noexec /tmp, writes ~250 KB a start, and
# makes the temporary names with a SecureRandom, loading the security providers).
arch=$("$prefix/jre/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *os\.arch = //p')
case $arch in
  x86_64 | amd64) jna_dir=linux-x86-64 netty_arch=x86_64 ;;
  aarch64) jna_dir=linux-aarch64 netty_arch=aarch_64 ;;
  *) jna_dir='' netty_arch='' ;;
esac
if [ -n "$jna_dir" ]; then
  natives="$prefix/lib/native"
  unpack=$(mktemp -d)
  (cd "$unpack" && "${jdk_bin}jar" xf "$prefix/lib/acceld.jar" \
    "com/sun/jna/$jna_dir/libjnidispatch.so" \
    "META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_$netty_arch.so")
  mkdir -p "$natives"
  install -m 0644 "$unpack/com/sun/jna/$jna_dir/libjnidispatch.so" "$natives/"
  install -m 0644 "$unpack"/META-INF/native/*.so "$natives/"
  rm -rf "$unpack"
  if command -v strip >/dev/null 2>&1; then
    strip --strip-unneeded "$natives"/*.so
  fi
  log "native libraries: $(cd "$natives" && echo *)"
else
  log "native libraries: none for $arch; JNA and Netty extract theirs at each start"
fi
# JVM flags that hold for this runtime's build and architecture alone, for the launcher to add
# (one line, in jre/lib/acceld.flags). Each Java thread touches its whole stack shadow zone when it
# starts (the JVM bangs every page of it before running Java code): 20 pages, 80 KiB, resident for
# every one of the agent's ~30 threads. The JDK's own minimum on x86-64 is 10 pages; its default of
# 20 was sized for the old socket implementation's 64 KiB stack buffer, which Java 17 no longer
# uses. The launcher cannot ask for 10 everywhere: on aarch64 the minimum is the default, 20, and
# a flag out of range stops the JVM. So the runtime is asked for its own range, here, once.
flags_file="$prefix/jre/lib/acceld.flags"
shadow=$("$prefix/jre/bin/java" -XX:+PrintFlagsRanges -version 2>/dev/null |
  awk '$2 == "StackShadowPages" && $3 == "[" { print $4 }')
shadow_default=$("$prefix/jre/bin/java" -XX:+PrintFlagsFinal -version 2>/dev/null |
  awk '$2 == "StackShadowPages" && $3 == "=" { print $4 }')
case $shadow$shadow_default in
  *[!0-9]* | '') log "runtime flags: none (no StackShadowPages range from this runtime)" ;;
  *)
    if [ "$shadow" -lt "$shadow_default" ]; then
      printf '%s\n' "-XX:StackShadowPages=$shadow" >"$flags_file"
      log "runtime flags: $(cat "$flags_file") (the default is $shadow_default)"
    else
      log "runtime flags: none (StackShadowPages is $shadow_default at least on $arch)"
    fi
    ;;
esac
install -m 0755 "$here/../bin/acceld" "$prefix/bin/acceld"
log "runtime: $(du -sh "$prefix/jre" | cut -f1) in $prefix/jre (jlink $release)"

# The bash completion script, generated by the jlinked runtime itself (a first check that it runs).
# The image and install.sh link it where bash-completion looks.
completion="$prefix/share/bash-completion/completions/acceld"
mkdir -p "$(dirname "$completion")"
"$prefix/bin/acceld" completion bash >"$completion"
bash -n "$completion"
log "bash completion: $completion"

# 3. The AppCDS archive trainer, kept in the tree so an installed tree can make its own archive.
install -m 0755 "$here/train-cds.sh" "$prefix/lib/train-cds.sh"

if [ "${ACCELD_SKIP_CDS:-false}" = true ]; then
  exit 0
fi
# 4. AppCDS, for the tree where it stands (train-cds.sh says how it is made).
ACCELD_NATIVE_PROBES=${ACCELD_NATIVE_PROBES:-$(dirname "$jar")/native-probes} \
  "$prefix/lib/train-cds.sh" "$prefix"
