#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs inside a test guest, chrooted into the host's tree (read-only)
# with the results directory writable. POSIX sh: the 686 guest runs it
# with a 32-bit busybox. Mounts what the tests need, runs
# $starvd_results/cmd from the top of the tree, and prints its exit
# status as STARVD-VM-RC=N, which vm/run.sh reads from the console.
R=$starvd_results
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -n "$starvd_busybox" ]; then
	# Module autoload must not exec the host's 64-bit modprobe, nor
	# system() and su the host's 64-bit /bin/sh.
	echo "${starvd_busybox%/bin/busybox}/sbin/modprobe" >/proc/sys/kernel/modprobe
	mount --bind "$starvd_busybox" /bin/sh
fi
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export STARVD_VM_GUEST="$starvd_guest" STARVD_VM_RESULTS="$R"
cd "$starvd_top" || exit 1
{ sh "$R/cmd"; echo $? >"$R/rc"; } 2>&1 | tee "$R/out"
echo "STARVD-VM-RC=$(cat "$R/rc")"
