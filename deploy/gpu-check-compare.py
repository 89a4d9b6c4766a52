#!/usr/bin/env python3
"""gpu-check.sh's comparison: what acceld reported against what nvidia-smi says, one report.

Reads the files gpu-check.sh left in $WORK and prints the report. Exit 0 when every compared value
matched, 1 when one did not or the agent did not run cleanly. Live values (temperature, clocks,
power, utilisation) are compared with a tolerance, because the agent's last sample and nvidia-smi's
are up to a second apart; identities (UUID, PCI bus ID, memory, driver version) must be equal.
"""
import csv
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

work = os.environ["WORK"]
lines = []
mismatches = 0


def out(text=""):
    lines.append(text)


def check(gpu, field, ours, theirs, ok):
    global mismatches
    if not ok:
        mismatches += 1
    out(f"{'MATCH   ' if ok else 'MISMATCH'} {gpu} {field}: acceld {ours!r} nvidia-smi {theirs!r}")


def read(name, default=""):
    try:
        with open(os.path.join(work, name), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def bus_id(text):
    # nvidia-smi: 00000000:17:00.0 (8-digit domain); sysfs and acceld: 0000:17:00.0
    text = (text or "").strip().lower()
    return text[-12:] if len(text) >= 12 else text


def number(text):
    try:
        return float(str(text).strip())
    except (TypeError, ValueError):
        return None


def near(ours, theirs, absolute, relative):
    if ours is None or theirs is None:
        return False
    return abs(ours - theirs) <= max(absolute, relative * abs(theirs))


LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def metrics(text):
    """{(name, UUID): value} for the per-GPU series (GPU-instance series left out)."""
    found = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)", line)
        if not m:
            continue
        labels = dict(LABEL.findall(m.group(2) or ""))
        if "UUID" in labels and "GPU_I_ID" not in labels:
            found[(m.group(1), labels["UUID"])] = number(m.group(3))
    return found


out("acceld gpu-check report")
out(read("version.txt").strip())
out(f"agent served: {os.environ.get('READY')}; kubelet-probe exit {os.environ.get('PROBE_EXIT')};"
    f" run exit {os.environ.get('RUN_EXIT')} (0 on SIGTERM); doctor exit {os.environ.get('DOCTOR_EXIT')}")
agent_ok = os.environ.get("READY") == "true" and os.environ.get("PROBE_EXIT") == "0" \
    and os.environ.get("RUN_EXIT") == "0"
if not agent_ok:
    mismatches += 1
    out("MISMATCH the agent did not serve, answer the kubelet probe and stop cleanly; its log:")
    out(read("run.log")[-4000:])

smi = {}
for row in csv.reader(read("smi.csv").splitlines()):
    row = [c.strip() for c in row]
    if len(row) >= 10 and row[0].startswith("GPU-"):
        keys = ["uuid", "name", "bus", "memory", "driver", "temp", "sm", "mem", "power", "util"]
        smi[row[0]] = dict(zip(keys, row))
try:
    xml = ET.fromstring(read("smi.xml", "<nvidia_smi_log/>"))
    xml_driver = (xml.findtext("driver_version") or "").strip()
    xml_cuda = (xml.findtext("cuda_version") or "").strip()
except ET.ParseError:
    xml_driver = xml_cuda = ""
out(f"nvidia-smi: {len(smi)} GPU(s), driver {xml_driver or '?'}, CUDA {xml_cuda or '?'}")

try:
    devices = json.loads(read("devices.json", "[]"))
except json.JSONDecodeError as e:
    devices = []
    mismatches += 1
    out(f"MISMATCH acceld devices --json is not JSON: {e}")
ours = {d["uuid"]: d for d in devices if d.get("uuid", "").startswith("GPU-")}
series = metrics(read("metrics.txt"))

out()
for uuid in sorted(set(ours) | set(smi)):
    d, s = ours.get(uuid), smi.get(uuid)
    if d is None or s is None:
        check(uuid, "present", d is not None, s is not None, False)
        continue
    check(uuid, "pci bus id", d.get("pciAddress"), s["bus"], bus_id(d.get("pciAddress")) == bus_id(s["bus"]))
    ours_mib = d.get("memoryBytes", 0) // (1 << 20)
    check(uuid, "memory MiB", ours_mib, s["memory"], number(s["memory"]) == ours_mib)
    check(uuid, "driver version", d.get("driverVersion"), s["driver"], d.get("driverVersion") == s["driver"])
    for field, metric, key, absolute, relative in [
        ("temperature C", "DCGM_FI_DEV_GPU_TEMP", "temp", 5, 0),
        ("SM clock MHz", "DCGM_FI_DEV_SM_CLOCK", "sm", 100, 0.1),
        ("memory clock MHz", "DCGM_FI_DEV_MEM_CLOCK", "mem", 100, 0.1),
        ("power W", "DCGM_FI_DEV_POWER_USAGE", "power", 20, 0.2),
        ("utilisation %", "DCGM_FI_DEV_GPU_UTIL", "util", 30, 0),
    ]:
        theirs = number(s[key])
        if theirs is None:
            out(f"SKIPPED  {uuid} {field}: nvidia-smi says {s[key]!r}")
            continue
        value = series.get((metric, uuid))
        check(uuid, field, value, theirs, near(value, theirs, absolute, relative))

out()
out(f"{mismatches} mismatch(es)")
out()
out("--- acceld doctor --json")
out(read("doctor.json").strip())
out("--- acceld kubelet-probe")
out(read("probe.txt").strip())
print("\n".join(lines))
sys.exit(1 if mismatches else 0)
