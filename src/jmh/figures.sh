#!/usr/bin/env bash
# Regenerates every figure of BENCHMARKS.md in one run, and with BASE_REV the same figures of that
# revision beside them: both builds are measured alternately on the same machine state, so "before"
# and "after" differ by the code, not by what else the machine was doing that hour.
#
# Usage: src/jmh/figures.sh [--only SECTIONS] [--quick] [--skip-build] [--out DIR] [BASE_REV]
#   SECTIONS  comma-separated, default all, in this order:
#             footprint   exec→registered, RSS, threads, idle CPU (right after start-up and from
#                         120 s, when warming up is over), 64 GPUs, 1,024-ID ListAndWatch
#                         (io.acceld.bench.FootprintHarness on the shipped launcher and runtime)
#             rpc         KubeletRpcBenchmark (the kubelet's RPCs over a Unix socket)
#             preferred   PreferredAllocationBenchmark (the algorithm alone)
#             fragmented  FragmentedAllocationBenchmark and AllocationCpuHarness (64 devices)
#             health      HealthLatencyHarness (fault to ListAndWatch)
#             mig         MigLatencyHarness (56 MIG devices: instance XID, Allocate, re-partition)
#             scrape      ScrapeBenchmark (/metrics at 64 GPUs)
#             mesos       src/jmh/mesos-bench.sh (the Mesos bridge)
#             restart     KubeletRestartChaosIT's latency figures (re-registration after restarts)
#   --quick       fewer runs, rounds and iterations: minutes, not an hour; for a section's check,
#                 not for the numbers BENCHMARKS.md keeps
#   --skip-build  use this tree's target/ as it is (after a build of your own)
#   --out DIR     where logs and report.md go (default: a new /tmp/acceld-figures-* directory)
#   --also-jdk DIR  footprint: this tree's runtime built a second time with DIR's jlink (a JDK 25
#                 makes it with an AOT cache instead of AppCDS, see deploy/image/train-cds.sh),
#                 measured beside the others as "current-jdkN"; mesos: this tree's bench run a
#                 second time on DIR's java, right after the first, in a table of its own
#   BASE_REV      a revision to measure beside this tree, built in a temporary git worktree that
#                 is removed afterwards. Where it lacks a benchmark this tree has, the benchmark is
#                 copied into it when it compiles there; the footprint harness (this tree's) only
#                 needs its jar and launcher. What still cannot run there is reported as absent.
# The report (Markdown, before | after per figure, with the machine and the load average) goes to
# stdout and DIR/report.md; progress and build output go to stderr and DIR/*.log.
set -euo pipefail

cd "$(dirname "$0")/../.."
current=$(pwd)

all_sections=footprint,rpc,preferred,fragmented,health,mig,scrape,mesos,restart
sections=$all_sections
quick=false
skip_build=false
out=
base_rev=
also_jdk=
while [ $# -gt 0 ]; do
  case $1 in
    --only) sections=$2; shift 2 ;;
    --quick) quick=true; shift ;;
    --skip-build) skip_build=true; shift ;;
    --out) out=$2; shift 2 ;;
    --also-jdk) also_jdk=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "figures.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) base_rev=$1; shift ;;
  esac
done
for s in ${sections//,/ }; do
  case ",$all_sections," in
    *",$s,"*) ;;
    *) echo "figures.sh: unknown section $s (one of $all_sections)" >&2; exit 2 ;;
  esac
done
wants() { case ",$sections," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
wants_jmh() { wants rpc || wants preferred || wants fragmented || wants health || wants mig || wants scrape; }

out=${out:-$(mktemp -d /tmp/acceld-figures-XXXXXX)}
mkdir -p "$out"
report=$out/report.md
: >"$report"
emit() { printf '%s\n' "$*" | tee -a "$report"; }
say() { echo "figures.sh: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# Quick and full settings for every section.
if [ "$quick" = true ]; then
  footprint_args=(--runs 3 --settle 5 --cpu-window 10 --scrapes 3)
  jmh_args=(-f 1 -wi 1 -w 1s -i 2 -r 1s)
  cpu_rounds=5
  health_rounds=50
  mesos_args=(subscribes=20 accepts=50 launchSeconds=10 frameworks=20 allocates=300)
  chaos_rounds=50
else
  footprint_args=(--runs 5 --settle 10 --cpu-window 30 --steady-after 120 --scrapes 5)
  jmh_args=(-f 1 -wi 3 -w 1s -i 5 -r 1s)
  cpu_rounds=20
  health_rounds=300
  mesos_args=()
  chaos_rounds=250
fi

# ---------------------------------------------------------------------------------------------
# Builds

# build TREE NAME: the agent jar, the shipped runtime (jlink + AppCDS) and, when a JMH section
# runs, the benchmarks jar. The runtime is built before -Pbench, whose jar also holds the JMH code.
build() {
  local tree=$1 name=$2 runtime_script
  say "building $name in $tree"
  (cd "$tree" && ./mvnw -B -q package -DskipTests) >"$out/build-$name.log" 2>&1 ||
    { cat "$out/build-$name.log" >&2; return 1; }
  if wants footprint; then
    # An older tree without the script gets this tree's: the layout it makes is what the
    # launcher of that tree looks for.
    runtime_script=$tree/deploy/image/build-runtime.sh
    [ -x "$runtime_script" ] || runtime_script=$current/deploy/image/build-runtime.sh
    if [ ! -x "$tree/deploy/bin/acceld" ]; then
      say "$name has no deploy/bin/acceld: the footprint runs it as java -jar"
    else
      (cd "$tree" && "$runtime_script" target/acceld.jar target/runtime-image) \
        >>"$out/build-$name.log" 2>&1 || { cat "$out/build-$name.log" >&2; return 1; }
    fi
  fi
  if wants_jmh; then
    (cd "$tree" && ./mvnw -B -q -Pbench package -DskipTests) >>"$out/build-$name.log" 2>&1 ||
      return 1
  fi
}

# The base tree gets this tree's benchmark sources it does not have; if they do not compile
# against its code, they are taken out again and the base is built with its own only.
build_base() {
  local copied=()
  if wants_jmh; then
    while IFS= read -r f; do
      if [ ! -e "$base/$f" ]; then
        mkdir -p "$(dirname "$base/$f")"
        cp "$current/$f" "$base/$f"
        copied+=("$f")
      fi
    done < <(git ls-files src/jmh/java)
    ((${#copied[@]} == 0)) || say "copied into base: ${copied[*]}"
  fi
  if build "$base" base; then
    return 0
  fi
  ((${#copied[@]} > 0)) || return 1
  say "base does not compile with the copied benchmarks; building it with its own"
  (cd "$base" && rm -f "${copied[@]}")
  build "$base" base || { cat "$out/build-base.log" >&2; return 1; }
}

base=
if [ -n "$base_rev" ]; then
  base=$out/base
  git worktree add --detach "$base" "$base_rev" >/dev/null
  # shellcheck disable=SC2064 # expand now: the path is fixed
  trap "git -C '$current' worktree remove --force '$base' || true" EXIT
  build_base
fi
if [ "$skip_build" != true ]; then
  build "$current" current || { cat "$out/build-current.log" >&2; exit 1; }
fi
also_name=
if [ -n "$also_jdk" ]; then
  also_name=current-jdk$("$also_jdk/bin/java" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p')
fi
if [ -n "$also_jdk" ] && wants footprint; then
  say "building $also_name's runtime with $also_jdk"
  JAVA_HOME=$also_jdk deploy/image/build-runtime.sh target/acceld.jar "target/runtime-image-$also_name" \
    >"$out/build-$also_name.log" 2>&1 || { cat "$out/build-$also_name.log" >&2; exit 1; }
fi
current_rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src deploy pom.xml || echo +changes)"

# ---------------------------------------------------------------------------------------------
# Report helpers

# builds: "base current" when there is a base, else "current".
builds() { if [ -n "$base" ]; then echo base current; else echo current; fi; }
tree_of() { if [ "$1" = base ]; then echo "$base"; else echo "$current"; fi; }

# jmh_rows CSV: "benchmark (params)<TAB>p50 / p90 / p99 unit" from JMH's -rf csv, SampleTime.
jmh_rows() {
  [ -s "$1" ] || return 0
  awk -F, '
    function unq(s) { gsub(/^"|"$/, "", s); return s }
    function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
    { sub(/\r$/, "") }
    NR == 1 { for (i = 8; i <= NF; i++) { h = unq($i); sub(/^Param: /, "", h); param[i] = h }; next }
    {
      name = unq($1)
      pct = ""
      if (match(name, /:p0\.(50|90|99)$/)) { pct = substr(name, RSTART + 2); name = substr(name, 1, RSTART - 1) }
      else if (name ~ /:/) next
      parts = split(name, part, ".")
      name = part[parts - 1] "." part[parts]
      key = name; sep = " ("
      for (i = 8; i <= NF; i++) { key = key sep param[i] "=" unq($i); sep = ", " }
      if (sep == ", ") key = key ")"
      if (!(key in seen)) { seen[key] = 1; order[++n] = key }
      if (pct != "") v[key, pct] = fmt($5)
      unit[key] = unq($7)
    }
    END {
      for (k = 1; k <= n; k++) {
        key = order[k]
        printf "%s\t%s / %s / %s %s\n", key, v[key, "0.50"], v[key, "0.90"], v[key, "0.99"], unit[key]
      }
    }' "$1"
}

# text_rows LOG: "label<TAB>figures" from a harness's output: a line "LABEL n=..." keys on LABEL,
# a line "LABEL: ..." on LABEL; lines starting with a timestamp are the agent's log, not figures.
text_rows() {
  [ -s "$1" ] || return 0
  grep -v -E '^([0-9]{4}-[0-9]{2}-[0-9]{2}T)?[0-9]{2}:[0-9]{2}:[0-9]{2}\.' "$1" | awk '
    {
      line = $0; sub(/[ \t]+$/, "", line)
      if ((i = index(line, " n=")) > 0) { key = substr(line, 1, i - 1); val = substr(line, i + 1) }
      else if ((i = index(line, ": ")) > 0) { key = substr(line, 1, i - 1); val = substr(line, i + 2) }
      else next
      gsub(/^[ \t]+|[ \t]+$|:$/, "", key); gsub(/[ \t]+/, " ", key); gsub(/\|/, "/", val)
      if (key != "") printf "%s\t%s\n", key, val
    }' || true
}

# table TITLE ROWS_BASE ROWS_CURRENT: one Markdown row per key, this tree's order first.
table() {
  local title=$1 rows_base=$2 rows_current=$3
  if [ -n "$base" ]; then
    emit "| $title | base ($base_rev) | current ($current_rev) |"
    emit "|---|---|---|"
    awk -F'\t' '
      FNR == NR { b[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; bo[++nb] = $1 }; next }
      { printf "| %s | %s | %s |\n", $1, ($1 in b ? b[$1] : "absent"), $2; done[$1] = 1 }
      END { for (k = 1; k <= nb; k++) if (!(bo[k] in done)) printf "| %s | %s | absent |\n", bo[k], b[bo[k]] }
    ' "$rows_base" "$rows_current" | tee -a "$report"
  else
    emit "| $title | current ($current_rev) |"
    emit "|---|---|"
    awk -F'\t' '{ printf "| %s | %s |\n", $1, $2 }' "$rows_current" | tee -a "$report"
  fi
}

section() {
  emit ""
  emit "## $1"
  emit ""
  emit "Load average before: $(load)."
  emit ""
}

# jmh SECTION BENCHMARK_REGEX: the benchmark from each build's jar, alternately, then the table.
jmh() {
  local name=$1 pattern=$2 b jar
  for b in $(builds); do
    jar=$(tree_of "$b")/target/benchmarks.jar
    say "$name: $pattern on $b"
    : >"$out/$name-$b.csv"
    (cd "$out" && java -jar "$jar" "$pattern" "${jmh_args[@]}" -rf csv -rff "$out/$name-$b.csv") \
      >"$out/$name-$b.log" 2>&1 || say "$name on $b failed (absent there?): see $out/$name-$b.log"
    jmh_rows "$out/$name-$b.csv" >"$out/$name-$b.rows"
  done
  table "$pattern p50 / p90 / p99" "$out/$name-base.rows" "$out/$name-current.rows"
}

# harness SECTION CLASS ARGS...: a main in each build's benchmarks jar, alternately.
harness() {
  local name=$1 class=$2 b jar
  shift 2
  for b in $(builds); do
    jar=$(tree_of "$b")/target/benchmarks.jar
    say "$name: $class on $b"
    java -cp "$jar" "$class" "$@" >"$out/$name-$b.log" 2>&1 ||
      say "$name on $b failed (absent there?): see $out/$name-$b.log"
    text_rows "$out/$name-$b.log" >"$out/$name-$b.rows"
  done
  table "${class##*.} $*" "$out/$name-base.rows" "$out/$name-current.rows"
}

touch "$out/none.rows"

# ---------------------------------------------------------------------------------------------
# The report

emit "# acceld figures$([ -n "$base" ] && echo ": $base_rev beside $current_rev" || echo " at $current_rev")"
emit ""
cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
memory=$(awk '/^MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo)
emit "Machine: $cpu_model, $(nproc) cores, $memory, $(java -version 2>&1 | head -1); $(uname -sr)."
mode=full
[ "$quick" = true ] && mode=quick
emit "Mode: $mode; sections: $sections; started $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(load)."

if wants footprint; then
  section "Footprint and start-up (FootprintHarness)"
  agents=()
  for b in $(builds); do
    t=$(tree_of "$b")
    if [ -x "$t/target/runtime-image/bin/acceld" ]; then
      agents+=(--agent "$b=env ACCELD_NATIVE_PROBES=$t/target/native-probes $t/target/runtime-image/bin/acceld")
    else
      agents+=(--agent "$b=env ACCELD_NATIVE_PROBES=$t/target/native-probes java -jar $t/target/acceld.jar")
    fi
  done
  if [ -n "$also_name" ]; then
    agents+=(--agent "$also_name=env ACCELD_NATIVE_PROBES=$current/target/native-probes $current/target/runtime-image-$also_name/bin/acceld")
  fi
  cp=$(./mvnw -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
  say "footprint: ${agents[*]}"
  java -cp "target/test-classes:target/classes:$cp" io.acceld.bench.FootprintHarness \
    "${agents[@]}" "${footprint_args[@]}" --out "$out/footprint.figures" \
    >"$out/footprint.md" 2>"$out/footprint.log" || say "footprint: some runs failed: see $out/footprint.log"
  tee -a "$report" <"$out/footprint.md"
  emit ""
  emit "Per figure as \`key median min max n\`: $out/footprint.figures"
fi

if wants rpc; then
  section "Kubelet RPCs over a Unix socket (KubeletRpcBenchmark)"
  jmh rpc KubeletRpcBenchmark
fi

if wants preferred; then
  section "GetPreferredAllocation, the algorithm alone (PreferredAllocationBenchmark)"
  jmh preferred PreferredAllocationBenchmark
fi

if wants fragmented; then
  section "GetPreferredAllocation at 64 devices, fragmented"
  jmh fragmented FragmentedAllocationBenchmark
  emit ""
  harness fragmented-cpu io.acceld.bench.AllocationCpuHarness "$cpu_rounds"
fi

if wants health; then
  section "Fault to ListAndWatch (HealthLatencyHarness)"
  harness health io.acceld.bench.HealthLatencyHarness "$health_rounds"
fi

if wants mig; then
  section "MIG: instance XID, Allocate and re-partition (MigLatencyHarness)"
  harness mig io.acceld.bench.MigLatencyHarness "$health_rounds"
fi

if wants scrape; then
  section "Scrape (ScrapeBenchmark)"
  jmh scrape ScrapeBenchmark
fi

if wants mesos; then
  section "The Mesos bridge (mesos-bench.sh)"
  for b in $(builds); do
    t=$(tree_of "$b")
    if [ -f "$t/src/jmh/mesos-bench.sh" ]; then
      say "mesos: on $b"
      (cd "$t" && ACCELD_BENCH_LOG="$out/mesos-$b-agent.log" sh src/jmh/mesos-bench.sh "${mesos_args[@]}") \
        >"$out/mesos-$b.log" 2>&1 || say "mesos on $b failed: see $out/mesos-$b.log"
    else
      : >"$out/mesos-$b.log"
    fi
    text_rows "$out/mesos-$b.log" >"$out/mesos-$b.rows"
    if [ "$b" = current ] && [ -n "$also_name" ]; then
      # Right after the current build's run, so the two runtimes meet the same machine state.
      say "mesos: on current with $also_jdk/bin/java"
      (cd "$current" && ACCELD_JAVA="$also_jdk/bin/java" \
        ACCELD_BENCH_LOG="$out/mesos-$also_name-agent.log" sh src/jmh/mesos-bench.sh "${mesos_args[@]}") \
        >"$out/mesos-$also_name.log" 2>&1 || say "mesos on $also_name failed: see $out/mesos-$also_name.log"
      text_rows "$out/mesos-$also_name.log" >"$out/mesos-$also_name.rows"
    fi
  done
  table "MesosBridgeHarness ${mesos_args[*]}" "$out/mesos-base.rows" "$out/mesos-current.rows"
  if [ -n "$also_name" ]; then
    emit ""
    emit "| MesosBridgeHarness ${mesos_args[*]} | current ($current_rev), $(java -version 2>&1 | head -1) | $also_name, $("$also_jdk/bin/java" -version 2>&1 | head -1) |"
    emit "|---|---|---|"
    awk -F'\t' 'FNR == NR { j[$1] = $2; next } { printf "| %s | %s | %s |\n", $1, $2, ($1 in j ? j[$1] : "absent") }' \
      "$out/mesos-$also_name.rows" "$out/mesos-current.rows" | tee -a "$report"
  fi
fi

if wants restart; then
  section "Re-registration after kubelet restarts (KubeletRestartChaosIT)"
  for b in $(builds); do
    t=$(tree_of "$b")
    : >"$out/restart-$b.log"
    if [ -f "$t/src/test/java/io/acceld/kubelet/KubeletRestartChaosIT.java" ]; then
      say "restart: $chaos_rounds rounds on $b"
      (cd "$t" && ./mvnw -B -q verify -Dit.test=KubeletRestartChaosIT -Dtest=none \
        -Dsurefire.failIfNoSpecifiedTests=false -DargLine="-Dacceld.chaosRounds=$chaos_rounds") \
        >"$out/restart-$b-build.log" 2>&1 || say "restart on $b failed: see $out/restart-$b-build.log"
      cat "$t"/target/failsafe-reports/*KubeletRestartChaosIT-output.txt >"$out/restart-$b.log" 2>/dev/null || true
    fi
    grep '^KubeletRestartChaosIT:' "$out/restart-$b.log" >"$out/restart-$b.lines" || true
    text_rows "$out/restart-$b.lines" >"$out/restart-$b.rows"
  done
  table "KubeletRestartChaosIT, $chaos_rounds rounds" "$out/restart-base.rows" "$out/restart-current.rows"
fi

emit ""
emit "Finished $(date -u '+%H:%M UTC'), load average $(load). Logs: $out"
