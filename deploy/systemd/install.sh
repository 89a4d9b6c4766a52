#!/usr/bin/env bash
# Installs (or upgrades) acceld as a systemd service.
#
#   deploy/systemd/install.sh [--no-start] [JAR]    (as root; JAR defaults to target/acceld.jar)
#
# Installs the unit, /etc/default/acceld, the acceld command in /usr/local/bin and its bash
# completion; each path can be moved with PREFIX, UNIT_DIR, ENV_FILE, CONFIG_DIR, BIN_DIR and
# COMPLETION_DIR (InstallScriptIT installs into a temporary tree that way, with --no-start).
#
# Builds the runtime tree with deploy/image/build-runtime.sh straight into $PREFIX (default
# /opt/acceld: the AppCDS archive is tied to the jar's final path), keeping the tree it replaces as
# $PREFIX.previous. Rollback: systemctl stop acceld; rm -rf $PREFIX; mv $PREFIX.previous $PREFIX;
# systemctl start acceld. Needs a JDK 17+ (jdeps, jlink) on PATH or in JAVA_HOME.
set -euo pipefail

start=true
if [ "${1:-}" = --no-start ]; then
  start=false
  shift
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
jar=${1:-$repo/target/acceld.jar}
prefix=${PREFIX:-/opt/acceld}
unit_dir=${UNIT_DIR:-/etc/systemd/system}
env_file=${ENV_FILE:-/etc/default/acceld}
config_dir=${CONFIG_DIR:-/etc/acceld}
bin_dir=${BIN_DIR:-/usr/local/bin}
# bash-completion loads completions/<command> from each of XDG_DATA_DIRS (/usr/local/share first).
completion_dir=${COMPLETION_DIR:-/usr/local/share/bash-completion/completions}

if [ ! -f "$jar" ]; then
  echo "$0: $jar not found: build it with ./mvnw -B package -DskipTests" >&2
  exit 1
fi

if [ -d "$prefix" ]; then
  rm -rf "$prefix.previous"
  mv "$prefix" "$prefix.previous"
fi
"$repo/deploy/image/build-runtime.sh" "$jar" "$prefix"

install -d -m 0755 "$unit_dir" "$config_dir" "$bin_dir" "$completion_dir"
sed "s|/opt/acceld/|$prefix/|g" "$here/acceld.service" >"$unit_dir/acceld.service"
chmod 0644 "$unit_dir/acceld.service"
if [ ! -e "$env_file" ]; then
  install -D -m 0644 "$here/acceld.env" "$env_file"
fi
ln -sf "$prefix/bin/acceld" "$bin_dir/acceld"
ln -sf "$prefix/share/bash-completion/completions/acceld" "$completion_dir/acceld"

if [ "$start" = true ]; then
  systemctl daemon-reload
  systemctl enable acceld.service
  systemctl restart acceld.service
  echo "acceld installed in $prefix and (re)started: systemctl status acceld"
else
  echo "acceld installed in $prefix; start it with: systemctl daemon-reload && systemctl enable --now acceld"
fi
