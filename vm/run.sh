#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/run.sh [-t SECONDS] [-m MiB] [-a KERNEL-ARGS] GUEST COMMAND...
#
# Boot the Debian kernel of GUEST (6.1, 6.12, 6.12-rt, 686; see vm/fetch.sh) under
# qemu with software emulation (TCG; KVM hangs on this kind of machine;
# single-threaded: with one host thread per vCPU, a 6.12 guest patching
# its kernel text for a BPF tracepoint hit a stale int3 and oopsed),
# with the host's root shared read-only over virtio-9p and a results
# directory shared read-write, run COMMAND (a shell command line, run by
# /bin/sh from the top of the tree; by busybox sh in the 686 guest) and
# exit with its exit status. The arm64 guests boot under
# qemu-system-aarch64 (virt machine, GICv3: its ITS gives the virtio
# devices MSI-X, so the 9p requests queue has an IRQ of its own, as on
# x86) and chroot into the arm64 root of vm/fetch.sh, shared read-only
# too, in which the tree, the results and the host's /lib/modules/KVER
# (DKMS's module) appear at their host paths (vm/initramfs-init). 124: timeout; 125: the guest did not run it.
# -a adds words to the guest kernel's command line (e.g. threadirqs).
# The command's output is printed and kept in .cache/vm/results/GUEST/out;
# the whole console in .cache/vm/results/GUEST/console.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

timeout=300
mem=1024
kargs=""
while getopts "t:m:a:" o; do
	case $o in
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	a) kargs=$OPTARG ;;
	*) die "usage: vm/run.sh [-t SECONDS] [-m MiB] [-a KERNEL-ARGS] GUEST COMMAND..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || die "usage: vm/run.sh [-t SECONDS] [-m MiB] [-a KERNEL-ARGS] GUEST COMMAND..."
guest=$1
shift

vm_resolve_kernels
kver=$(vm_kver "$guest")
arch=$(vm_arch "$guest")
dir=$VM_CACHE/$guest
[ -f "$dir/initrd.img" ] && [ "$(cat "$dir/kver" 2>/dev/null)" = "$kver" ] ||
	"$STARVD_TOP/vm/fetch.sh" "$guest"

results=$VM_CACHE/results/$guest
rm -rf "$results"
mkdir -p "$results"
printf '%s\n' "$*" >"$results/cmd"

qemu=(qemu-system-x86_64 -cpu max)
console=ttyS0
extra=$kargs
share=()
case $arch in
i386)
	qemu=(qemu-system-i386 -cpu max)
	extra="$extra starvd_busybox=$VM_CACHE/busybox-i386/bin/busybox" ;;
arm64)
	# pauth-impdef: pointer authentication with QEMU's own cheap hash
	# (the architected one, QARMA, is slow under TCG).
	qemu=(qemu-system-aarch64 -M virt,gic-version=3 -cpu max,pauth-impdef=on)
	console=ttyAMA0
	extra="$extra starvd_guestroot=1"
	share=(-virtfs "local,path=$ARM64/root,mount_tag=guestroot,security_model=none,readonly=on,multidevs=remap") ;;
esac
command -v "${qemu[0]}" >/dev/null || die "${qemu[0]} not found: run scripts/deps-vm.sh (qemu-system-x86, qemu-system-arm)"
case "$STARVD_TOP$results" in
*" "*) die "the tree's path must not contain spaces (kernel command line): $STARVD_TOP" ;;
esac

# VM_SAMPLE=SECONDS: record where each vCPU is, from outside the guest,
# in $results/samples (vm/sample.py; x86_64 guests, booted with nokaslr).
monitor=(-monitor none)
if [ -n "${VM_SAMPLE:-}" ] && [ "$arch" = amd64 ]; then
	monitor=(-monitor "unix:$results/monitor.sock,server=on,wait=off")
	extra="$extra nokaslr"
fi

start=$(date +%s.%N)
rc=0
# The guest and the sampler run in the background, so that a signal to
# this script is handled at once (bash runs traps only once a foreground
# command ends) and stops them: no qemu outlives its run.sh.
bg=()
trap 'kill_tree "${bg[@]}"; exit 143' TERM HUP
trap 'kill_tree "${bg[@]}"; exit 130' INT
if [ "${monitor[1]}" != none ]; then
	"$STARVD_TOP/vm/sample.py" "$results/monitor.sock" \
		"$results/kallsyms" "$VM_SAMPLE" "$results/samples" &
	bg+=($!)
fi
timeout --foreground -k 5 "$timeout" \
	"${qemu[@]}" -accel tcg,thread=single -smp 2 -m "$mem" \
	-nographic -no-reboot -nic none "${monitor[@]}" -serial stdio \
	-kernel "$dir/root/boot/vmlinuz-$kver" -initrd "$dir/initrd.img" \
	-append "console=$console quiet loglevel=3 panic=-1 oops=panic starvd_top=$STARVD_TOP starvd_results=$results starvd_guest=$guest $extra" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$results,mount_tag=results,security_model=none" \
	"${share[@]}" \
	</dev/null >"$results/console" 2>&1 &
bg+=($!)
wait "$!" || rc=$?
trap - TERM HUP INT
secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	cat "$results/out" 2>/dev/null || true
	echo "vm-run: $guest: timed out after ${timeout}s; console: $results/console" >&2
	tail -n 20 "$results/console" >&2
	exit 124
fi
cat "$results/out" 2>/dev/null || true
grc=$(sed -n 's/^STARVD-VM-RC=\([0-9]*\).*/\1/p' "$results/console" | tail -n1)
if [ -z "$grc" ]; then
	echo "vm-run: $guest: the guest did not report an exit status (qemu exit $rc); console: $results/console" >&2
	tail -n 30 "$results/console" >&2
	exit 125
fi
printf 'vm-run: %s (%s): exit %s in %.1fs\n' "$guest" "$kver" "$grc" "$secs" >&2
exit "$grc"
