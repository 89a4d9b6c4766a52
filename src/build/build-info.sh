#!/bin/sh
# Writes the build's identity for util.BuildInfo (acceld --version, acceld_build_info):
#
#   src/build/build-info.sh BASEDIR OUT_FILE VERSION [REVISION]
#
# REVISION is used as given when not empty (a build from a source tarball, or an image build
# without .git, passes it: -Dacceld.revision=...). Otherwise it is BASEDIR's git commit, abbreviated
# to 12 digits, with "-dirty" when tracked files differ from it; "unknown" when BASEDIR is not the
# top of a git work tree (no .git: a tarball, a Docker context) or git is missing. The top-level
# check matters: a tarball unpacked inside some other checkout must not claim that checkout's
# commit. The build date is now, or SOURCE_DATE_EPOCH for a reproducible build; always UTC.
set -eu

if [ $# -lt 3 ]; then
  echo "usage: $0 BASEDIR OUT_FILE VERSION [REVISION]" >&2
  exit 2
fi
basedir=$1
out=$2
version=$3
revision=${4:-}

git_revision() {
  command -v git >/dev/null 2>&1 || return 1
  top=$(git -C "$basedir" rev-parse --show-toplevel 2>/dev/null) || return 1
  [ "$(cd "$top" && pwd -P)" = "$(cd "$basedir" && pwd -P)" ] || return 1
  commit=$(git -C "$basedir" rev-parse --short=12 HEAD 2>/dev/null) || return 1
  if git -C "$basedir" diff --quiet HEAD -- 2>/dev/null; then
    echo "$commit"
  else
    echo "$commit-dirty"
  fi
}

if [ -z "$revision" ]; then
  revision=$(git_revision) || revision=unknown
fi
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  built=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
else
  built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi

mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
printf 'version=%s\nrevision=%s\nbuildDate=%s\n' "$version" "$revision" "$built" >"$tmp"
mv "$tmp" "$out"
