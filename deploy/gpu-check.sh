#!/usr/bin/env bash
# Proves an acceld release tree against a real NVIDIA GPU, reading only: what the agent reports
# (doctor, devices, a 60 s run serving a kubelet stand-in, its /metrics) against what the driver's
# own tool says (nvidia-smi --query-gpu and -q -x), joined by GPU UUID, in one report file.
#
#   gpu-check.sh TREE [REPORT]     TREE: an extracted release tarball (acceld-<version>/), which
#                                  carries this script as share/acceld/gpu-check.sh
#                                  REPORT: default ./gpu-check-report.txt
# Environment:
#   GPU_CHECK_SECONDS   how long the agent runs (default 60)
#   GPU_CHECK_ARGS      extra arguments for doctor, devices and run (the tests pass --simulate)
#   NVIDIA_SMI          the nvidia-smi to ask (default: nvidia-smi on PATH)
#
# Needs nvidia-smi and python3 (to parse and compare); no Java: the tree carries its runtime. It
# never changes the GPU's settings (no nvidia-smi -pm/-mig/-r, no application clocks) and leaves the
# node's kubelet alone: the agent runs with its own plugin directory, state directory and loopback
# metrics port under a temporary directory, and registers with nobody. Exit 0 when every compared
# value matched, 1 when one did not (the report says which), 2 when the check could not run.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 TREE [REPORT]" >&2
  exit 2
fi
tree=$(cd "$1" && pwd)
report=${2:-gpu-check-report.txt}
seconds=${GPU_CHECK_SECONDS:-60}
smi=${NVIDIA_SMI:-nvidia-smi}
read -r -a extra <<<"${GPU_CHECK_ARGS:-}"
acceld=$tree/bin/acceld
for need in "$acceld" "$(command -v "$smi" || true)" "$(command -v python3 || true)"; do
  if [ -z "$need" ] || [ ! -x "$need" ]; then
    echo "$0: needs $acceld, $smi and python3" >&2
    exit 2
  fi
done

work=$(mktemp -d)
agent_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  if [ -n "$agent_pid" ]; then kill -TERM "$agent_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
log() { echo "gpu-check: $*" >&2; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
isolated=(--device-plugin-dir "$work/kubelet/device-plugins"
  --plugins-registry-dir "$work/kubelet/plugins_registry"
  --pod-resources-socket "$work/kubelet/pod-resources/kubelet.sock"
  --state-dir "$work/state" --cdi-dir "$work/cdi" --node-labels-file "")
mkdir -p "$work/kubelet/device-plugins" "$work/kubelet/plugins_registry"

log "acceld $("$acceld" --version | head -n 1)"
"$acceld" --version >"$work/version.txt" 2>&1
log "doctor"
doctor_exit=0
"$acceld" doctor --json "${isolated[@]}" "${extra[@]}" >"$work/doctor.json" 2>"$work/doctor.err" ||
  doctor_exit=$?
log "devices"
"$acceld" devices --json "${extra[@]}" >"$work/devices.json" 2>"$work/devices.err"

log "run for ${seconds}s"
"$acceld" run "${isolated[@]}" --kubelet-registration none --metrics-address "127.0.0.1:$port" \
  --telemetry-interval 1s "${extra[@]}" >"$work/run.log" 2>&1 &
agent_pid=$!
http_get() { # path -> body (bash's /dev/tcp: no curl needed)
  local fd
  exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&"$fd"
  sed '1,/^\r$/d' <&"$fd"
  exec {fd}>&-
}
ready=false
for _ in $(seq 1 300); do
  kill -0 "$agent_pid" 2>/dev/null || break
  if http_get /readyz >/dev/null 2>&1 && [ -S "$work/kubelet/device-plugins/acceld-nvidia.com_gpu.sock" ]; then
    ready=true
    break
  fi
  sleep 0.2
done
probe_exit=0
if [ "$ready" = true ]; then
  "$acceld" kubelet-probe "$work/kubelet/device-plugins/acceld-nvidia.com_gpu.sock" \
    >"$work/probe.txt" 2>&1 || probe_exit=$?
  sleep "$seconds"
  http_get /metrics >"$work/metrics.txt"
  http_get /readyz >"$work/readyz.txt" || true
else
  log "the agent did not serve; see the report"
  probe_exit=-1
fi
# Sampled now, beside the agent's last telemetry sample, so live values can be compared.
"$smi" --query-gpu=uuid,name,pci.bus_id,memory.total,driver_version,temperature.gpu,clocks.sm,clocks.mem,power.draw,utilization.gpu \
  --format=csv,noheader,nounits >"$work/smi.csv" 2>"$work/smi.err"
"$smi" -q -x >"$work/smi.xml" 2>>"$work/smi.err" || true
run_exit=0
if kill -0 "$agent_pid" 2>/dev/null; then
  kill -TERM "$agent_pid"
  wait "$agent_pid" || run_exit=$?
else
  wait "$agent_pid" || run_exit=$?
fi
agent_pid=

status=0
WORK=$work DOCTOR_EXIT=$doctor_exit PROBE_EXIT=$probe_exit RUN_EXIT=$run_exit READY=$ready \
  python3 "$(dirname "$0")/gpu-check-compare.py" >"$report" || status=$?
log "report: $report"
exit "$status"
