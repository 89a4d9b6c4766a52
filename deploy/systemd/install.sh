#!/usr/bin/env bash
# Installs (or upgrades) acceld as a systemd service.
#
#   deploy/systemd/install.sh [--no-start] [JAR]    (as root; JAR defaults to target/acceld.jar)
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

if [ ! -f "$jar" ]; then
  echo "$0: $jar not found: build it with ./mvnw -B package -DskipTests" >&2
  exit 1
fi

if [ -d "$prefix" ]; then
  rm -rf "$prefix.previous"
  mv "$prefix" "$prefix.previous"
fi
"$repo/deploy/image/build-runtime.sh" "$jar" "$prefix"

install -d -m 0755 "$unit_dir" /etc/acceld
sed "s|/opt/acceld/|$prefix/|g" "$here/acceld.service" >"$unit_dir/acceld.service"
chmod 0644 "$unit_dir/acceld.service"
if [ ! -e "$env_file" ]; then
  install -D -m 0644 "$here/acceld.env" "$env_file"
fi
ln -sf "$prefix/bin/acceld" /usr/local/bin/acceld

if [ "$start" = true ]; then
  systemctl daemon-reload
  systemctl enable acceld.service
  systemctl restart acceld.service
  echo "acceld installed in $prefix and (re)started: systemctl status acceld"
else
  echo "acceld installed in $prefix; start it with: systemctl daemon-reload && systemctl enable --now acceld"
fi
