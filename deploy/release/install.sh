#!/usr/bin/env bash
# Installs (or upgrades) acceld from this release tree as a systemd service. Needs no JDK: the tree
# carries its own runtime.
#
#   ./install.sh [--no-start] [--mesos]    (as root, from the extracted acceld-<version>/ directory)
#
# --mesos also installs the drop-in for nodes that run the Mesos bridge with task containment
# (share/systemd/acceld-mesos.conf, which says why each line is needed) as
# $UNIT_DIR/acceld.service.d/mesos.conf, replacing the one there. Without it an existing drop-in is
# left alone: it is the operator's to remove.
#
# Copies the tree to $PREFIX (default /opt/acceld; the tree it replaces is kept as
# $PREFIX.previous), makes the AppCDS archive there (a JDK 17 archive is valid only for the jar path
# it was made for; ACCELD_SKIP_CDS=true skips it, and the agent then starts without one), and installs
# the unit, /etc/default/acceld, /etc/acceld/config.yaml (neither replaced if present), the acceld
# command and its bash completion. Each path can be moved with PREFIX, UNIT_DIR, ENV_FILE,
# CONFIG_DIR, BIN_DIR and COMPLETION_DIR (ReleaseIT installs into a temporary tree that way).
# Rollback: systemctl stop acceld; rm -rf $PREFIX; mv $PREFIX.previous $PREFIX; systemctl start acceld.
set -euo pipefail
# The tree, unit and env file as packaged (0755/0644), whatever the caller's umask.
umask 022

start=true
mesos=false
for arg in "$@"; do
  case $arg in
    --no-start) start=false ;;
    --mesos) mesos=true ;;
    *) echo "usage: $0 [--no-start] [--mesos]" >&2; exit 2 ;;
  esac
done
tree=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-/opt/acceld}
unit_dir=${UNIT_DIR:-/etc/systemd/system}
env_file=${ENV_FILE:-/etc/default/acceld}
config_dir=${CONFIG_DIR:-/etc/acceld}
bin_dir=${BIN_DIR:-/usr/local/bin}
# bash-completion loads completions/<command> from each of XDG_DATA_DIRS (/usr/local/share first).
completion_dir=${COMPLETION_DIR:-/usr/local/share/bash-completion/completions}

parts="bin/acceld lib/acceld.jar jre/bin/java lib/train-cds.sh share/systemd/acceld.service"
if [ "$mesos" = true ]; then
  parts="$parts share/systemd/acceld-mesos.conf"
fi
for part in $parts; do
  if [ ! -e "$tree/$part" ]; then
    echo "$0: $tree/$part is missing: run install.sh from an extracted acceld release" >&2
    exit 1
  fi
done
case $prefix in
  /*) ;;
  *) echo "$0: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
if [ "$prefix" = "$tree" ]; then
  echo "$0: PREFIX is this tree itself; extract the release elsewhere" >&2
  exit 2
fi

install -d -m 0755 "$(dirname "$prefix")"
staging=$prefix.installing
rm -rf "$staging"
cp -a "$tree" "$staging"
rm -f "$staging/install.sh"
if [ -d "$prefix" ]; then
  rm -rf "$prefix.previous"
  mv "$prefix" "$prefix.previous"
fi
mv "$staging" "$prefix"

if [ "${ACCELD_SKIP_CDS:-false}" != true ]; then
  if ! "$prefix/lib/train-cds.sh" "$prefix" >"$prefix/lib/train-cds.log" 2>&1; then
    echo "$0: the class-data archive was not made (see $prefix/lib/train-cds.log); acceld starts without it, a little slower" >&2
  fi
fi

install -d -m 0755 "$unit_dir" "$config_dir" "$bin_dir" "$completion_dir"
sed "s|/opt/acceld/|$prefix/|g" "$prefix/share/systemd/acceld.service" >"$unit_dir/acceld.service"
chmod 0644 "$unit_dir/acceld.service"
if [ "$mesos" = true ]; then
  install -D -m 0644 "$prefix/share/systemd/acceld-mesos.conf" "$unit_dir/acceld.service.d/mesos.conf"
fi
if [ ! -e "$env_file" ]; then
  install -D -m 0644 "$prefix/share/systemd/acceld.env" "$env_file"
fi
if [ ! -e "$config_dir/config.yaml" ]; then
  install -m 0644 "$prefix/share/acceld/config.yaml" "$config_dir/config.yaml"
fi
ln -sfn "$prefix/bin/acceld" "$bin_dir/acceld"
ln -sfn "$prefix/share/bash-completion/completions/acceld" "$completion_dir/acceld"

if [ "$start" = true ]; then
  systemctl daemon-reload
  systemctl enable acceld.service
  systemctl restart acceld.service
  echo "acceld $("$prefix/bin/acceld" --version | head -n 1 | cut -d ' ' -f 2) installed in $prefix and (re)started: systemctl status acceld"
else
  echo "acceld installed in $prefix; start it with: systemctl daemon-reload && systemctl enable --now acceld"
fi
