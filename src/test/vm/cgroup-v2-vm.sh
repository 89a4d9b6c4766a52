#!/usr/bin/env bash
# Runs a command in a throwaway KVM guest whose only cgroup hierarchy is a pure cgroup v2 one with
# the memory, cpu and pids controllers enabled: the kind of node the development and CI machines
# (cgroup v1 with an empty cgroup2 mount at unified/) cannot show the containment code.
#
# The guest boots a Debian bookworm kernel (downloaded with apt-get download and unpacked, never
# installed) with an initramfs built here from busybox-static and the kernel's virtio and 9p
# modules. Its init mounts the host's root file system read-only over 9p under a tmpfs overlay (so
# the host's JDK, ~/.m2 and tools are there and writes are thrown away), the share (by default this
# repository, writable, at the same path), proc, sysfs, devtmpfs, a tmpfs /tmp and cgroup2 alone at
# /sys/fs/cgroup; it brings up loopback, runs the command as root in the share's current directory
# and powers off. This script exits with the command's status (125 when the guest gave none).
#
# Usage: src/test/vm/cgroup-v2-vm.sh [options] [--] COMMAND [ARG...]
#   --share DIR         writable host directory seen at the same path in the guest
#                       (V2VM_SHARE; default: this repository)
#   --cache DIR         where the kernel, busybox and initramfs are kept between runs
#                       (V2VM_CACHE; default: ${XDG_CACHE_HOME:-$HOME/.cache}/acceld-v2vm)
#   --kernel PACKAGE    the Debian kernel package (V2VM_KERNEL_PACKAGE; default: the newest
#                       linux-image-6.1.0-*-amd64-unsigned apt knows of)
#   --mem MIB           guest memory (V2VM_MEM; default 4096)
#   --cpus N            guest vCPUs (V2VM_CPUS; default 2)
#   --root DIR          host directory the guest uses as its (read-only) root (V2VM_ROOT; default /)
#   --accel kvm|tcg     (V2VM_ACCEL; default kvm) tcg emulates the CPU: slower, for hosts whose
#                       KVM cannot boot the kernel (V2VM_CPU overrides the -cpu model)
#   --env NAME          pass the host's value of NAME into the guest (repeatable; PATH, HOME, LANG,
#                       JAVA_HOME, MAVEN_OPTS and CONTAINMENT_TESTS_LACK are always passed)
# QEMU (V2VM_QEMU; default qemu-system-x86_64) needs /dev/kvm. Run as root: the shares use
# security_model=passthrough, and the tests inside need root anyway.
#
# Example, the containment tests against pure v2 (docs/cgroup-v2.md says what it ran and found):
#   ./mvnw -B -o -q package -DskipTests && ./mvnw -B -o -q test-compile
#   src/test/vm/cgroup-v2-vm.sh ./mvnw -B -o surefire:test -Dtest='io.acceld.mesos.containment.*Test'
set -euo pipefail

repo=$(cd "$(dirname "$0")/../../.." && pwd)
share=${V2VM_SHARE:-$repo}
cache=${V2VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acceld-v2vm}
kernel_package=${V2VM_KERNEL_PACKAGE:-}
mem=${V2VM_MEM:-4096}
cpus=${V2VM_CPUS:-2}
root=${V2VM_ROOT:-/}
qemu=${V2VM_QEMU:-qemu-system-x86_64}
accel=${V2VM_ACCEL:-kvm}
cpu_model=${V2VM_CPU:-}
pass=(PATH HOME LANG JAVA_HOME MAVEN_OPTS CONTAINMENT_TESTS_LACK)

usage() {
  sed -n '/^# Usage:/,/^# QEMU/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while (($# > 0)); do
  case $1 in
    --share) share=$2; shift 2 ;;
    --cache) cache=$2; shift 2 ;;
    --kernel) kernel_package=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --accel) accel=$2; shift 2 ;;
    --env) pass+=("$2"); shift 2 ;;
    --) shift; break ;;
    -h | --help) usage ;;
    -*) echo "cgroup-v2-vm: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($# > 0)) || usage
share=$(cd "$share" && pwd)
case $PWD/ in
  "$share"/*) ;;
  *) echo "cgroup-v2-vm: run it from inside the share ($share)" >&2; exit 2 ;;
esac
case $accel in
  kvm)
    [ -w /dev/kvm ] || { echo "cgroup-v2-vm: needs /dev/kvm (or --accel tcg)" >&2; exit 2; }
    # Nested under a Firecracker host, -cpu host asks for an MSR the host refuses to set.
    cpu_model=${cpu_model:-host,-arch-capabilities}
    accel_args=(-accel kvm)
    ;;
  tcg)
    cpu_model=${cpu_model:-max}
    accel_args=(-accel 'tcg,thread=multi,tb-size=512')
    ;;
  *) echo "cgroup-v2-vm: --accel is kvm or tcg" >&2; exit 2 ;;
esac

# The kernel and busybox, once per kernel package.
if [ -z "$kernel_package" ]; then
  kernel_package=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' |
    awk '{print $1}' | sort -V | tail -n 1)
  [ -n "$kernel_package" ] || {
    echo "cgroup-v2-vm: apt knows no linux-image-6.1.0-*-amd64-unsigned (apt-get update?)" >&2
    exit 2
  }
fi
work=$cache/$kernel_package
if [ ! -e "$work/ready" ]; then
  echo "cgroup-v2-vm: fetching $kernel_package and busybox-static into $work" >&2
  rm -rf "$work" && mkdir -p "$work/debs"
  (cd "$work/debs" && apt-get download -q "$kernel_package" busybox-static >&2)
  mkdir "$work/kernel" "$work/busybox"
  dpkg-deb -x "$work"/debs/linux-image-*.deb "$work/kernel"
  dpkg-deb -x "$work"/debs/busybox-static_*.deb "$work/busybox"
  touch "$work/ready"
fi
vmlinuz=$(echo "$work"/kernel/boot/vmlinuz-*)
modules=$(echo "$work"/kernel/lib/modules/*)

# The initramfs: busybox, the modules for 9p over virtio (with what they depend on, in load
# order: there is no modules.dep in an unpacked package) and the init below.
initrd=$work/initrd.gz
if [ ! -e "$initrd" ] || [ "$0" -nt "$initrd" ]; then
  tree=$work/initramfs
  rm -rf "$tree" && mkdir -p "$tree"/{bin,modules,proc,sys,dev,ctl,lower,upper,newroot}
  cp "$work/busybox/bin/busybox" "$tree/bin/busybox"
  declare -A loaded=()
  order=()
  add_module() {
    local name=$1 file dep
    [ -z "${loaded[$name]:-}" ] || return 0
    loaded[$name]=1
    file=$(find "$modules/kernel" -name "$name.ko" -o -name "${name//_/-}.ko" | head -n 1)
    [ -n "$file" ] || { echo "cgroup-v2-vm: no module $name in $modules" >&2; exit 1; }
    for dep in $(grep -a -o 'depends=[^[:cntrl:]]*' "$file" | head -n 1 | cut -d= -f2 | tr , ' '); do
      add_module "$dep"
    done
    cp "$file" "$tree/modules/$name.ko"
    order+=("$name")
  }
  for module in virtio_pci 9pnet_virtio 9p overlay; do
    add_module "$module"
  done
  printf '%s\n' "${order[@]}" >"$tree/modules/order"
  cat >"$tree/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules/order); do insmod "/modules/$m.ko" || echo "v2vm: insmod $m failed"; done
die() { echo "v2vm: $*"; poweroff -f; }
ninep=trans=virtio,version=9p2000.L,msize=1048576
mount -t 9p -o "$ninep" ctl /ctl || die "no control share"
mount -t 9p -o "$ninep,ro,cache=loose" hostroot /lower || die "no host root share"
mount -t tmpfs -o size=75% tmpfs /upper
mkdir /upper/data /upper/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work /newroot ||
  die "no overlay"
r=/newroot
mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
mount -t devtmpfs devtmpfs $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts devpts $r/dev/pts
mount -t tmpfs tmpfs $r/dev/shm
mount -t tmpfs -o mode=1777 tmpfs $r/tmp
mount -t tmpfs tmpfs $r/run
mount -t cgroup2 cgroup2 $r/sys/fs/cgroup || die "no cgroup2"
echo "+memory +cpu +pids" >$r/sys/fs/cgroup/cgroup.subtree_control ||
  die "could not enable memory, cpu and pids"
share=$(cat /ctl/share)
mount -t 9p -o "$ninep" share "$r$share" || die "no work share"
mkdir -p $r/run/v2vm
mount --bind /ctl $r/run/v2vm
ip link set lo up
hostname v2vm
echo "v2vm: $(uname -r), cgroup2 controllers: $(cat $r/sys/fs/cgroup/cgroup.subtree_control)"
chroot $r /bin/sh /run/v2vm/command
echo $? >/ctl/status
sync
poweroff -f
INIT
  chmod +x "$tree/init"
  (cd "$tree" && find . | "$tree/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$initrd.new"
  mv "$initrd.new" "$initrd"
fi

# The command, in the share's current directory, with the passed environment.
ctl=$(mktemp -d)
trap 'rm -rf "$ctl"' EXIT
echo "$share" >"$ctl/share"
{
  echo 'set -e'
  for name in "${pass[@]}"; do
    if [ -n "${!name+x}" ]; then
      printf 'export %s=%q\n' "$name" "${!name}"
    fi
  done
  printf 'cd %q\n' "$PWD"
  printf 'set +e\n'
  printf '%q ' "$@"
  printf '\n'
} >"$ctl/command"

"$qemu" "${accel_args[@]}" -cpu "$cpu_model" -m "$mem" -smp "$cpus" -nographic -no-reboot -nic none \
  -kernel "$vmlinuz" -initrd "$initrd" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 systemd.unified_cgroup_hierarchy=1" \
  -virtfs "local,path=$root,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap" \
  -virtfs "local,path=$share,mount_tag=share,security_model=passthrough,multidevs=remap" \
  -virtfs "local,path=$ctl,mount_tag=ctl,security_model=passthrough" </dev/null

if [ ! -s "$ctl/status" ]; then
  echo "cgroup-v2-vm: the guest reported no exit status" >&2
  exit 125
fi
exit "$(cat "$ctl/status")"
