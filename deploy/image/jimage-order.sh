#!/bin/sh
# Writes deploy/image/jimage-order.classlist from class-loading logs: every class a run loaded from
# the runtime's lib/modules ("source: jrt:/..."), not from the class-data archive or the jar, in
# the form jlink's --order-resources reads (internal name, no module, no .class).
#
# Usage: deploy/image/jimage-order.sh LOG... (the comment block of the current list is kept)
# The logs: each mode of the agent run once on an installed tree, for instance
#   java -cp "target/test-classes:target/classes:$cp" io.acceld.bench.FootprintHarness \
#     --agent "t=env ACCELD_JVM_EXTRA_FLAGS=-Xlog:class+load:file=/tmp/cl-%p.txt <tree>/bin/acceld" \
#     --modes 8,64,dra,dra-tls,mesos --runs 1 --settle 10 --cpu-window 10 --scrapes 3 --warm-up 0
#   deploy/image/jimage-order.sh /tmp/cl-*.txt
set -eu
if [ $# -eq 0 ]; then
  echo "usage: $0 LOG..." >&2
  exit 2
fi
list=$(dirname "$0")/jimage-order.classlist
header=$(grep '^#' "$list" || true)
classes=$(cat "$@" | awk '$0 ~ /source: jrt:\// { gsub(/\./, "/", $2); print $2 }' | sort -u)
printf '%s\n%s\n' "$header" "$classes" >"$list"
echo "$list: $(printf '%s\n' "$classes" | wc -l) classes"
