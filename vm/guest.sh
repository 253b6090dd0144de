#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs inside a test guest, chrooted into the host's tree (read-only)
# with the results directory writable. POSIX sh: the 686 guest runs it
# with a 32-bit busybox. Mounts what the tests need, runs
# $starvd_results/cmd from the top of the tree, and prints its exit
# status as STARVD-VM-RC=N, which vm/run.sh reads from the console (or
# hands the guest on: below).
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
# The tests' own I/O (binaries, results: the host's tree over 9p) must
# not wait for the CPU under test: with threaded IRQs (PREEMPT_RT) the 9p
# queue's IRQ thread follows its IRQ, and on CPU 1 it starves behind the
# tests' busy loops with every exec and write of the test scripts. Keep
# device IRQs on CPU 0, as irqaffinity= keeps them on housekeeping CPUs
# (guest-escalate.sh moves the 9p one to CPU 1 on purpose, and back).
for a in /proc/irq/[0-9]*/smp_affinity_list; do
	echo 0 >"$a" 2>/dev/null
done
# Likewise unbound workqueues (what tuned's realtime profile does): their
# kworkers complete the 9p reads, and one queued on CPU 1 behind a busy
# loop held a starting starvd's mlockall() page-in for seconds (seen in
# the 6.12-rt guest). Per-CPU workqueues, which the tests starve on
# purpose, are not affected.
echo 1 >/sys/devices/virtual/workqueue/cpumask 2>/dev/null
# For vm/sample.py (VM_SAMPLE): Debian's System.map is a stub.
grep -qw nokaslr /proc/cmdline &&
	cat /proc/kallsyms >"$R/kallsyms.tmp" && mv "$R/kallsyms.tmp" "$R/kallsyms"
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export STARVD_VM_GUEST="$starvd_guest" STARVD_VM_RESULTS="$R"
cd "$starvd_top" || exit 1
# tee too: it writes every line of the suites to the host over 9p, and
# left to the scheduler it ran on CPU 1 behind the busy loops (seen in
# both PREEMPT_RT guests, where the fair server gives it 5% and 6.1 gives
# it nothing). A starvd being exec'd then sat for seconds in a 9p walk
# behind the write tee had in flight, and the test saw no daemon at all.
pin=
taskset 1 true 2>/dev/null && pin="taskset 1"
{ sh "$R/cmd"; echo $? >"$R/rc"; } 2>&1 | $pin tee "$R/out"
# Every level of the kernel's log, for vm/kernel-reports.sh: the console
# (loglevel=3) carries only the most urgent.
dmesg >"$R/dmesg" 2>&1
# A command that leaves /run/starvd-vm-handoff ("ROOT INIT [ARGS]") hands
# the guest to that init (vm/initramfs-init execs it as PID 1, chrooted
# into ROOT), which then prints the exit status itself and powers off.
[ -s /run/starvd-vm-handoff ] || echo "STARVD-VM-RC=$(cat "$R/rc")"
