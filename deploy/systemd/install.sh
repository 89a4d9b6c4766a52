#!/usr/bin/env bash
# Installs (or upgrades) acceld as a systemd service from a source checkout:
#
#   deploy/systemd/install.sh [--no-start] [--mesos] [JAR]   (as root; JAR: target/acceld.jar)
#
# Builds the release tarball from JAR with deploy/release/build.sh (needs a JDK 17+: jdeps, jlink)
# and installs it with the tarball's own install.sh, so a source install is a release install:
# same tree, same unit, same AppCDS archive made in place. PREFIX, UNIT_DIR, ENV_FILE, CONFIG_DIR,
# BIN_DIR, COMPLETION_DIR and ACCELD_SKIP_CDS pass through (see deploy/release/install.sh).
# A host without a JDK installs the release tarball or .deb instead (README "Install").
set -euo pipefail

args=()
while [ "${1:-}" = --no-start ] || [ "${1:-}" = --mesos ]; do
  args+=("$1") # --mesos: also the Mesos drop-in (see deploy/release/install.sh)
  shift
done
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
jar=${1:-$repo/target/acceld.jar}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ACCELD_RELEASE_DEB=false "$repo/deploy/release/build.sh" "$jar" "$work/out"
tar -xzf "$work"/out/acceld-*-linux-*.tar.gz -C "$work"
installers=("$work"/acceld-*/install.sh)
"${installers[0]}" "${args[@]}"
