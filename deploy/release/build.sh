#!/usr/bin/env bash
# Builds the release artefacts from the shaded jar, with nothing but a JDK 17+ (jdeps, jlink) and
# Debian's dpkg-deb:
#   acceld-<version>-linux-<arch>.tar.gz   the installable tree (jlinked runtime, jar, launcher,
#                                          AppCDS trainer, unit, Mesos drop-in, env file, example
#                                          config, bash completion, Grafana dashboard) under
#                                          acceld-<version>/,
#                                          with an install.sh that needs no JDK on the host
#   acceld_<version>_<arch>.deb            the same tree under /opt/acceld, the unit enabled but not
#                                          started, /etc/default/acceld and /etc/acceld/config.yaml
#                                          as conffiles
#   sha256sums                             of both
# Both are reproducible: the same jar, JDK and SOURCE_DATE_EPOCH give the same bytes (every
# timestamp is SOURCE_DATE_EPOCH, entries are sorted, owners are root, gzip writes no name or time).
#
# Usage: deploy/release/build.sh [JAR [OUTDIR]]     (default target/acceld.jar, target/release)
# Environment:
#   JAVA_HOME          the JDK whose jdeps/jlink are used (default: the one on PATH)
#   SOURCE_DATE_EPOCH  the timestamp of every file (default: the last commit's time, else the jar's)
#   DEB_MAINTAINER     the .deb's Maintainer (default "acceld developers <acceld@localhost>")
#   ACCELD_RELEASE_DEB=false  the tarball only (deploy/systemd/install.sh; no dpkg-deb needed)
set -euo pipefail
# Modes are part of the artefacts: whatever the caller's umask (an agent test JVM sets 077), the tree
# is 0755/0644, as dpkg-deb and an operator's unprivileged readers expect.
umask 022

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
jar=${1:-$repo/target/acceld.jar}
out=${2:-$repo/target/release}

if [ ! -f "$jar" ]; then
  echo "$0: $jar not found: build it with ./mvnw -B package -DskipTests" >&2
  exit 1
fi
deb_too=${ACCELD_RELEASE_DEB:-true}
[ "$deb_too" = false ] || command -v dpkg-deb >/dev/null 2>&1 || {
  echo "$0: dpkg-deb not found: apt-get install dpkg" >&2
  exit 1
}
case $(uname -m) in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) echo "$0: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
maintainer=${DEB_MAINTAINER:-acceld developers <acceld@localhost>}
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || stat -c %Y "$jar")}
export SOURCE_DATE_EPOCH=$epoch

log() { echo "release: $*"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The tree, without an AppCDS archive: a JDK 17 archive is valid only for the path it was made
#    at, so install.sh and the .deb's postinst make it where the tree is installed.
tree=$work/tree
ACCELD_SKIP_CDS=true "$repo/deploy/image/build-runtime.sh" "$jar" "$tree" >"$work/runtime.log" 2>&1 || {
  cat "$work/runtime.log" >&2
  exit 1
}
# The JDK's base CDS archive (jlink --generate-cds-archive) differs from build to build; the release
# leaves it out and train-cds.sh makes it on the host, with the agent's own archive.
rm -f "$tree/jre/lib/server/classes.jsa"
version=$("$tree/bin/acceld" --version | head -n 1 | cut -d ' ' -f 2)
case $version in
  [0-9]*) ;;
  *) echo "$0: unexpected version '$version' from $tree/bin/acceld --version" >&2; exit 1 ;;
esac
install -D -m 0644 "$repo/deploy/systemd/acceld.service" "$tree/share/systemd/acceld.service"
install -D -m 0644 "$repo/deploy/systemd/acceld.env" "$tree/share/systemd/acceld.env"
# Optional, for Mesos nodes: install.sh --mesos puts it beside the unit; the .deb keeps it inactive.
install -D -m 0644 "$repo/deploy/systemd/acceld-mesos.conf" "$tree/share/systemd/acceld-mesos.conf"
install -D -m 0644 "$here/config.yaml" "$tree/share/acceld/config.yaml"
install -D -m 0644 "$repo/deploy/grafana/acceld.json" "$tree/share/grafana/acceld.json"
# The real-GPU check travels with the tarball (docs/real-hardware.md); the .deb leaves it out.
install -D -m 0755 "$repo/deploy/gpu-check.sh" "$tree/share/acceld/gpu-check.sh"
install -D -m 0755 "$repo/deploy/gpu-check-compare.py" "$tree/share/acceld/gpu-check-compare.py"

# Same bytes from the same inputs: one timestamp, and modes 0755/0644 (jlink writes its legal
# notices read-only, 0444).
normalise() {
  chmod -R u+rwX,go+rX,go-w "$1"
  find "$1" -exec touch -h -d "@$epoch" {} +
}

mkdir -p "$out"
rm -f "$out"/acceld-*.tar.gz "$out"/acceld_*.deb "$out/sha256sums"

# 2. The tarball.
name=acceld-$version
mkdir "$work/tar"
cp -a "$tree" "$work/tar/$name"
install -m 0755 "$here/install.sh" "$work/tar/$name/install.sh"
normalise "$work/tar"
tarball=$name-linux-$arch.tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --format=gnu \
  -C "$work/tar" -cf - "$name" | gzip -9n >"$out/$tarball"
log "$out/$tarball: $(du -h "$out/$tarball" | cut -f 1)"

if [ "$deb_too" = false ]; then
  (cd "$out" && sha256sum "$tarball" >sha256sums)
  exit 0
fi

# 3. The .deb.
root=$work/deb
mkdir -p "$root/opt" "$root/DEBIAN"
cp -a "$tree" "$root/opt/acceld"
# The unit and env file go where systemd and dpkg look; the Mesos drop-in stays in the tree,
# inactive until the operator copies it to /etc/systemd/system/acceld.service.d/mesos.conf.
rm "$root/opt/acceld/share/systemd/acceld.service" "$root/opt/acceld/share/systemd/acceld.env"
rm -r "$root/opt/acceld/share/acceld"
install -D -m 0644 "$repo/deploy/systemd/acceld.service" "$root/lib/systemd/system/acceld.service"
install -D -m 0644 "$repo/deploy/systemd/acceld.env" "$root/etc/default/acceld"
install -D -m 0644 "$here/config.yaml" "$root/etc/acceld/config.yaml"
mkdir -p "$root/usr/bin" "$root/usr/share/bash-completion/completions" "$root/usr/share/doc/acceld"
ln -s /opt/acceld/bin/acceld "$root/usr/bin/acceld"
ln -s /opt/acceld/share/bash-completion/completions/acceld \
  "$root/usr/share/bash-completion/completions/acceld"
install -m 0644 "$here/debian/copyright" "$root/usr/share/doc/acceld/copyright"
sed -e "s/@VERSION@/$version/" -e "s|@MAINTAINER@|$maintainer|" "$here/debian/changelog" | gzip -9n >"$root/usr/share/doc/acceld/changelog.gz"
install -D -m 0644 "$here/debian/lintian-overrides" "$root/usr/share/lintian/overrides/acceld"
for script in postinst prerm postrm; do
  install -m 0755 "$here/debian/$script" "$root/DEBIAN/$script"
done
printf '%s\n' /etc/default/acceld /etc/acceld/config.yaml >"$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f 1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s|@MAINTAINER@|$maintainer|" \
  "$here/debian/control" >"$root/DEBIAN/control"
normalise "$root"
deb=acceld_${version}_$arch.deb
# gzip, not dpkg-deb's default xz: the tree is mostly a compressed jar and a compressed jlink image,
# xz gains 3 MiB on it, and takes minutes on a busy 2-core machine.
dpkg-deb --root-owner-group -Zgzip -z9 --build "$root" "$out/$deb" >/dev/null
log "$out/$deb: $(du -h "$out/$deb" | cut -f 1)"

(cd "$out" && sha256sum "$tarball" "$deb" >sha256sums)
log "$out/sha256sums"
