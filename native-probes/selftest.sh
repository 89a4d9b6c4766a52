#!/bin/sh
# Runs the NVML test double's C self-test under AddressSanitizer+UBSan (leaks included) and
# ThreadSanitizer. Not part of the Maven build (sanitizer runtimes are not always installed).
# Usage: sh native-probes/selftest.sh [WORKDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-${TMPDIR:-/tmp}/fake-nvml-selftest-build}
mkdir -p "$work"
cc=${CC:-gcc}
sources="$here/selftest.c $here/fake_nvml.c $here/fake_nvml_scenario.c $here/fake_nvml_events.c $here/fake_nvml_control.c $here/fake_nvml_mig.c"
flags="-std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fno-omit-frame-pointer"

# shellcheck disable=SC2086
"$cc" $flags -fsanitize=address,undefined -fno-sanitize-recover=all -o "$work/selftest-asan" $sources -lpthread -ldl
# shellcheck disable=SC2086
"$cc" $flags -fsanitize=thread -o "$work/selftest-tsan" $sources -lpthread -ldl

echo "== AddressSanitizer + UBSan"
ASAN_OPTIONS=detect_leaks=1 "$work/selftest-asan"
echo "== ThreadSanitizer"
TSAN_OPTIONS=halt_on_error=1 "$work/selftest-tsan"
