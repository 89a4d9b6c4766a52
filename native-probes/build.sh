#!/bin/sh
# Builds acceld's NVML test double (a stand-in for the driver's libnvidia-ml.so.1):
#   OUTDIR/libnvidia-ml.so.1             current driver
#   OUTDIR/old-driver/libnvidia-ml.so.1  older driver without the optional symbols
# Usage: build.sh OUTDIR     (Maven runs it in generate-resources; CC overrides the compiler)
# Up-to-date outputs are left alone so repeated builds stay fast.
set -eu

if [ "$#" -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}

sources="$here/fake_nvml.c $here/fake_nvml_scenario.c $here/fake_nvml_events.c $here/fake_nvml_control.c $here/fake_nvml_mig.c"
inputs="$sources $here/nvml_types.h $here/fake_nvml_internal.h $here/build.sh"

# True when $1 is missing or any input is newer than it (find -newer is POSIX; test -nt is not).
stale() {
  [ -f "$1" ] || return 0
  # shellcheck disable=SC2086
  [ -n "$(find $inputs -newer "$1" 2>/dev/null)" ]
}

if ! stale "$out/libnvidia-ml.so.1" && ! stale "$out/old-driver/libnvidia-ml.so.1"; then
  exit 0
fi

if ! command -v "$cc" >/dev/null 2>&1; then
  echo "native-probes: C compiler '$cc' not found. Install gcc (e.g. apt-get install gcc) to build" >&2
  echo "native-probes: the NVML test double that the tests and simulate mode load." >&2
  exit 127
fi

# -Bsymbolic: each copy of the library (tests load one per temp dir, RTLD_GLOBAL) must bind its
# own symbols, never an earlier copy's.
# $1 = output file, remaining args = extra compiler flags. Builds into a temp file and renames,
# so an interrupted or failed build never leaves a fresh-looking broken library behind.
build() {
  target=$1
  shift
  mkdir -p "$(dirname "$target")"
  tmp="$target.tmp.$$"
  # shellcheck disable=SC2086
  if ! "$cc" -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC -shared \
      -fvisibility=hidden -Wl,-Bsymbolic -Wl,-soname,libnvidia-ml.so.1 -Wl,--no-undefined "$@" \
      -o "$tmp" $sources -lpthread -ldl; then
    rm -f "$tmp"
    echo "native-probes: building $target failed (see compiler output above)" >&2
    exit 1
  fi
  mv -f "$tmp" "$target"
}

build "$out/libnvidia-ml.so.1"
build "$out/old-driver/libnvidia-ml.so.1" -DFAKE_OLD_DRIVER
# A sparse NVML that also lacks functions every driver has: the agent must degrade, not die.
build "$out/sparse/libnvidia-ml.so.1" -DFAKE_SPARSE
echo "native-probes: built NVML test double in $out"
